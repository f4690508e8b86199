"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { ROLE_ID_PATTERN, type RoleAnyDetail } from "@/lib/roles/schema";
import { ApiError, deleteRole, roleKeys, roleQuery } from "@/lib/client";
import { useT } from "@/lib/i18n";
import { Banner } from "@/components/ui/banner";
import { buttonDanger } from "@/components/ui/styles";
import { RawRoleEditor } from "./raw-role-editor";
import { RoleDeleteDialog } from "./role-delete-dialog";
import { RoleFileEditor } from "./role-file-editor";
import { RoleForm } from "./role-form";
import { RolePolicySummary } from "./role-policy-summary";

function BackLink() {
  const t = useT();
  return (
    <Link href="/roles" className="text-sm text-indigo-600 hover:underline dark:text-indigo-300" data-testid="role-back">
      ← {t("editor.back")}
    </Link>
  );
}

/** `/roles/new`: an empty form that creates the role file. */
export function NewRoleEditor() {
  const t = useT();
  return (
    <div className="space-y-4">
      <BackLink />
      <h1 className="text-2xl font-semibold tracking-tight" data-testid="page-title">
        {t("editor.newTitle")}
      </h1>
      <RoleForm />
    </div>
  );
}

/**
 * `/roles/[id]`: the form (or the raw text) of an existing role. A file that does not load can
 * only be edited as raw text, with the parser's message above it. A segment that is no valid id
 * (it holds the `.md` of an exact file name) opens that file by name.
 */
export function RoleEditor({ id }: { id: string }) {
  return ROLE_ID_PATTERN.test(id) ? <RoleIdEditor id={id} /> : <RoleFileEditor name={id} backLink={<BackLink />} />;
}

function RoleIdEditor({ id }: { id: string }) {
  const t = useT();
  const router = useRouter();
  const queryClient = useQueryClient();
  const query = useQuery(roleQuery(id));
  const [mode, setMode] = useState<"form" | "raw">("form");
  const [notice, setNotice] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);

  const remove = useMutation({
    mutationFn: () => deleteRole(id),
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: roleKeys.detail(id) });
      await queryClient.invalidateQueries({ queryKey: roleKeys.list() });
      router.push("/roles");
    },
  });

  const reload = () => {
    setNotice(null);
    void query.refetch();
  };
  const saved = (role: RoleAnyDetail) => {
    setNotice(role.kind === "role" ? t("editor.saved") : t("editor.raw.stillBroken"));
  };

  if (query.isPending) return <p className="text-sm text-zinc-500">{t("common.loading")}</p>;
  if (query.isError) {
    const notFound = query.error instanceof ApiError && query.error.status === 404;
    return (
      <div className="space-y-3">
        <BackLink />
        <Banner tone="error" testId="role-load-error">
          {notFound ? t("editor.notFound") : t("common.loadFailed", { message: query.error.message })}
        </Banner>
      </div>
    );
  }

  const role = query.data;
  const effectiveMode = role.kind === "error" ? "raw" : mode;

  return (
    <div className="space-y-4">
      <BackLink />
      <div className="flex flex-wrap items-center gap-3">
        <div className="min-w-0 flex-1">
          <h1 className="text-2xl font-semibold tracking-tight" data-testid="page-title">
            {role.kind === "role" ? role.fields.name : role.file}
          </h1>
          <p className="font-mono text-xs text-zinc-500 dark:text-zinc-400" data-testid="role-file">
            {t("editor.editTitle")} · agents/{role.file}
          </p>
        </div>
        {role.kind === "role" ? (
          <div role="tablist" aria-label={t("editor.mode.label")} className="inline-flex rounded-md border border-zinc-300 p-0.5 dark:border-zinc-600">
            {(["form", "raw"] as const).map((m) => (
              <button
                key={m}
                type="button"
                role="tab"
                aria-selected={effectiveMode === m}
                onClick={() => {
                  setNotice(null);
                  setMode(m);
                }}
                data-testid={`role-mode-${m}`}
                className={`rounded px-3 py-1 text-sm ${
                  effectiveMode === m
                    ? "bg-zinc-900 text-white dark:bg-zinc-100 dark:text-zinc-900"
                    : "text-zinc-600 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800"
                }`}
              >
                {t(m === "form" ? "editor.mode.form" : "editor.mode.raw")}
              </button>
            ))}
          </div>
        ) : null}
        <button type="button" className={buttonDanger} onClick={() => setConfirming(true)} data-testid="role-delete">
          {t("editor.delete")}
        </button>
      </div>

      {notice ? (
        <Banner tone={role.kind === "role" ? "success" : "warning"} testId="role-saved">
          {notice}
        </Banner>
      ) : null}

      {role.kind === "role" ? <RolePolicySummary toolPolicy={role.fields.tool_policy} allowedCommands={role.fields.allowed_commands} /> : null}

      {effectiveMode === "raw" ? (
        <RawRoleEditor key={role.etag} role={role} onSaved={saved} onReload={reload} />
      ) : role.kind === "role" ? (
        <RoleForm key={role.etag} role={role} onSaved={saved} onReload={reload} />
      ) : null}

      <RoleDeleteDialog open={confirming} file={role.file} remove={remove} onClose={() => setConfirming(false)} />
    </div>
  );
}
