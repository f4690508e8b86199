"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import type { RoleAnyDetail } from "@/lib/roles/schema";
import { ApiError, roleKeys, saveRoleFile, updateRole } from "@/lib/client";
import { useT } from "@/lib/i18n";
import { Banner } from "@/components/ui/banner";
import { buttonPrimary, hintClass, inputClass, labelClass } from "@/components/ui/styles";

/**
 * Edits the whole role file as text (`PUT {etag, raw}`): the only way to fix a file that does
 * not parse, and an escape hatch for anything the form does not cover.
 */
export function RawRoleEditor({
  role,
  fileName,
  onSaved,
  onReload,
}: {
  role: RoleAnyDetail;
  /** Saves by exact file name (`PUT /api/role-files`) for a file whose name is no valid id. */
  fileName?: string;
  onSaved?: (role: RoleAnyDetail) => void;
  onReload?: () => void;
}) {
  const t = useT();
  const uid = useId();
  const queryClient = useQueryClient();
  const [raw, setRaw] = useState(role.raw);
  const [problem, setProblem] = useState<{ message: string; line?: number } | null>(
    role.kind === "error" ? role.error : null,
  );
  const [conflict, setConflict] = useState(false);

  const mutation = useMutation({
    mutationFn: () => (fileName !== undefined ? saveRoleFile(fileName, { etag: role.etag, raw }) : updateRole(role.id, { etag: role.etag, raw })),
    onSuccess: async (saved) => {
      setProblem(saved.kind === "error" ? saved.error : null);
      queryClient.setQueryData(fileName !== undefined ? roleKeys.file(fileName) : roleKeys.detail(saved.id), saved);
      await queryClient.invalidateQueries({ queryKey: roleKeys.list() });
      onSaved?.(saved);
    },
    onError: (error) => {
      if (!(error instanceof ApiError)) return;
      if (error.isConflict) {
        setConflict(true);
        return;
      }
      const issue = error.fieldIssues.find((i) => i.path === "raw") ?? error.fieldIssues[0];
      if (issue) setProblem(issue.line === undefined ? { message: issue.message } : { message: issue.message, line: issue.line });
    },
  });

  function submit(e: FormEvent) {
    e.preventDefault();
    setConflict(false);
    mutation.mutate();
  }

  const otherError =
    mutation.error && !(mutation.error instanceof ApiError && (mutation.error.isConflict || mutation.error.fieldIssues.length > 0))
      ? mutation.error.message
      : undefined;

  return (
    <form onSubmit={submit} className="space-y-3" data-testid="role-raw-form">
      {problem ? (
        <Banner tone="error" testId="role-raw-problem">
          <p className="font-medium">{t("editor.raw.errorTitle")}</p>
          <p className="mt-1 font-mono text-xs whitespace-pre-wrap" data-testid="role-raw-problem-message">
            {problem.line !== undefined ? (
              <span className="mr-2 font-semibold" data-testid="role-raw-problem-line">
                {t("editor.raw.errorLine", { line: problem.line })}
              </span>
            ) : null}
            {problem.message}
          </p>
        </Banner>
      ) : null}
      {conflict ? (
        <Banner tone="error" testId="role-conflict">
          <span>{t("editor.conflict")}</span>
          {onReload ? (
            <button type="button" className="ml-3 font-medium underline" onClick={onReload} data-testid="role-reload">
              {t("editor.reload")}
            </button>
          ) : null}
        </Banner>
      ) : null}
      {otherError ? <Banner tone="error">{otherError}</Banner> : null}
      <div>
        <label htmlFor={`${uid}-raw`} className={labelClass}>
          {t("editor.raw.label")} <code className="font-mono text-xs font-normal text-zinc-500">agents/{role.file}</code>
        </label>
        <p className={hintClass}>{t("editor.raw.hint")}</p>
        <textarea
          id={`${uid}-raw`}
          className={`${inputClass} mt-1 min-h-[28rem] font-mono text-[13px] leading-relaxed`}
          value={raw}
          onChange={(e) => setRaw(e.target.value)}
          spellCheck={false}
          aria-invalid={problem ? true : undefined}
          data-testid="role-raw"
        />
      </div>
      <button type="submit" className={buttonPrimary} disabled={mutation.isPending} data-testid="role-raw-save">
        {mutation.isPending ? t("common.saving") : t("editor.raw.save")}
      </button>
    </form>
  );
}
