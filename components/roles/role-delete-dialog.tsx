"use client";

import type { UseMutationResult } from "@tanstack/react-query";
import { useT } from "@/lib/i18n";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";

/**
 * The confirmation before a role file is deleted, in the role editor and in the editor of a file
 * whose name is no valid id. `remove` is the caller's delete mutation; closing resets it.
 */
export function RoleDeleteDialog({ open, file, remove, onClose }: { open: boolean; file: string; remove: UseMutationResult<unknown, Error, void>; onClose: () => void }) {
  const t = useT();
  return (
    <ConfirmDialog
      open={open}
      title={t("editor.deleteTitle")}
      confirmLabel={t("editor.deleteConfirm")}
      busy={remove.isPending}
      error={remove.error?.message}
      onConfirm={() => remove.mutate()}
      onCancel={() => {
        onClose();
        remove.reset();
      }}
      testId="role-delete-dialog"
    >
      {t("editor.deleteBody", { file })}
    </ConfirmDialog>
  );
}
