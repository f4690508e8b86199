"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import type { ImportRoleBody } from "@/lib/roles/schema";
import { ApiError, importRole, roleKeys } from "@/lib/client";
import { useT } from "@/lib/i18n";
import { Banner } from "@/components/ui/banner";
import { FilePickButton } from "@/components/ui/file-pick-button";

/** Reads a `.md` file in the browser and imports it byte for byte; a 409 offers to overwrite. */
export function RoleImportButton() {
  const t = useT();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [pending, setPending] = useState<ImportRoleBody | null>(null);
  const [conflictId, setConflictId] = useState<string | null>(null);

  const mutation = useMutation({
    mutationFn: importRole,
    onSuccess: async (role) => {
      setPending(null);
      setConflictId(null);
      queryClient.setQueryData(roleKeys.detail(role.id), role);
      await queryClient.invalidateQueries({ queryKey: roleKeys.list() });
      router.push(`/roles/${encodeURIComponent(role.id)}`);
    },
    onError: (error, body) => {
      if (error instanceof ApiError && error.isConflict && !body.overwrite) {
        const detailId =
          error.details && typeof error.details === "object" && "id" in error.details && typeof error.details.id === "string"
            ? error.details.id
            : undefined;
        setConflictId(detailId ?? body.file_name?.replace(/\.md$/i, "") ?? "?");
        setPending(body);
      }
    },
  });

  async function onFile(file: File) {
    setConflictId(null);
    const content = await file.text();
    mutation.mutate({ content, file_name: file.name });
  }

  const showError = mutation.error && !(conflictId && pending);

  return (
    <div className="flex flex-col items-end gap-2">
      <FilePickButton accept=".md,.markdown,text/markdown,text/plain" onFile={(file) => void onFile(file)} disabled={mutation.isPending} testId="role-import-input">
        {mutation.isPending ? t("roles.importing") : t("roles.import")}
      </FilePickButton>
      {conflictId && pending ? (
        <Banner tone="warning" testId="role-import-conflict">
          <span>{t("roles.import.conflict", { id: conflictId })}</span>{" "}
          <button
            type="button"
            className="ml-2 font-medium underline"
            onClick={() => mutation.mutate({ ...pending, overwrite: true })}
            data-testid="role-import-overwrite"
          >
            {t("roles.import.overwrite")}
          </button>
          <button
            type="button"
            className="ml-3 underline"
            onClick={() => {
              setPending(null);
              setConflictId(null);
            }}
          >
            {t("common.cancel")}
          </button>
        </Banner>
      ) : null}
      {showError ? (
        <Banner tone="error" testId="role-import-error">
          {t("roles.import.failed", {
            message:
              mutation.error instanceof ApiError && mutation.error.fieldIssues.length > 0
                ? mutation.error.fieldIssues.map((i) => i.message).join("; ")
                : mutation.error.message,
          })}
        </Banner>
      ) : null}
    </div>
  );
}
