"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type ReactNode } from "react";
import type { RoleAnyDetail } from "@/lib/roles/schema";
import { ApiError, deleteRoleFile, roleFileQuery, roleKeys } from "@/lib/client";
import { useT } from "@/lib/i18n";
import { Banner } from "@/components/ui/banner";
import { buttonDanger } from "@/components/ui/styles";
import { RawRoleEditor } from "./raw-role-editor";
import { RoleDeleteDialog } from "./role-delete-dialog";
import { RoleRenameFix } from "./role-rename-fix";
import { RolePolicySummary } from "./role-policy-summary";
import { RoleToolMapping } from "./role-tool-mapping";

/**
 * `/roles/<file name>`: a role file whose name is no valid id, opened by its exact name. It is
 * edited as raw text (the form saves by id), renamed with one click, or deleted.
 */
export function RoleFileEditor({ name, backLink }: { name: string; backLink: ReactNode }) {
  const t = useT();
  const router = useRouter();
  const queryClient = useQueryClient();
  const query = useQuery(roleFileQuery(name));
  const [notice, setNotice] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);

  const remove = useMutation({
    mutationFn: () => deleteRoleFile(name),
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: roleKeys.file(name) });
      await queryClient.invalidateQueries({ queryKey: roleKeys.list() });
      router.push("/roles");
    },
  });

  if (query.isPending) return <p className="text-sm text-zinc-500">{t("common.loading")}</p>;
  if (query.isError) {
    const notFound = query.error instanceof ApiError && query.error.status === 404;
    return (
      <div className="space-y-3">
        {backLink}
        <Banner tone="error" testId="role-load-error">
          {notFound ? t("editor.notFound") : t("common.loadFailed", { message: query.error.message })}
        </Banner>
      </div>
    );
  }

  const role = query.data;
  const saved = (next: RoleAnyDetail) => setNotice(next.kind === "role" ? t("editor.saved") : t("editor.raw.stillBroken"));

  return (
    <div className="space-y-4">
      {backLink}
      <div className="flex flex-wrap items-center gap-3">
        <div className="min-w-0 flex-1">
          <h1 className="text-2xl font-semibold tracking-tight" data-testid="page-title">
            {role.kind === "role" ? role.fields.name : role.file}
          </h1>
          <p className="font-mono text-xs text-zinc-500 dark:text-zinc-400" data-testid="role-file">
            {t("editor.editTitle")} · agents/{role.file}
          </p>
        </div>
        <button type="button" className={buttonDanger} onClick={() => setConfirming(true)} data-testid="role-delete">
          {t("editor.delete")}
        </button>
      </div>
      {role.suggested_id !== undefined ? <RoleRenameFix file={role.file} suggestedId={role.suggested_id} open /> : null}
      {notice ? (
        <Banner tone={role.kind === "role" ? "success" : "warning"} testId="role-saved">
          {notice}
        </Banner>
      ) : null}
      {role.kind === "role" ? <RoleToolMapping tools={role.fields.tools} permissions={role.fields.permissions} testId="role-editor-tool-mapping" /> : null}
      {role.kind === "role" ? <RolePolicySummary toolPolicy={role.fields.tool_policy} allowedCommands={role.fields.allowed_commands} /> : null}
      <RawRoleEditor key={role.etag} role={role} fileName={role.file} onSaved={saved} onReload={() => void query.refetch()} />
      <RoleDeleteDialog open={confirming} file={role.file} remove={remove} onClose={() => setConfirming(false)} />
    </div>
  );
}
