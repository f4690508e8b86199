"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { knowledgeQuery, rebuildKnowledgeIndex } from "@/lib/client";
import { useLocale, useT } from "@/lib/i18n";
import type { IndexState } from "@/lib/knowledge/schema";
import { Banner } from "@/components/ui/banner";
import { formatLocalTime } from "@/components/ui/format";
import { badgeClass, cardClass } from "@/components/ui/styles";

const STATE_CLASS: Record<IndexState, string> = {
  none: "bg-zinc-100 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300",
  building: "bg-sky-100 text-sky-800 dark:bg-sky-900/60 dark:text-sky-200",
  ready: "bg-emerald-100 text-emerald-800 dark:bg-emerald-900/50 dark:text-emerald-200",
  error: "bg-red-100 text-red-800 dark:bg-red-900/50 dark:text-red-200",
};

/** The knowledge index of each project folder known from the conversations: state, progress, last update, and a rebuild button. */
export function KnowledgeSection() {
  const t = useT();
  const locale = useLocale();
  const client = useQueryClient();
  const report = useQuery(knowledgeQuery());
  const rebuild = useMutation({
    mutationFn: rebuildKnowledgeIndex,
    onSettled: () => client.invalidateQueries({ queryKey: knowledgeQuery().queryKey }),
  });
  return (
    <section className={`${cardClass} p-5`} aria-labelledby="settings-knowledge" data-testid="settings-knowledge">
      <h2 id="settings-knowledge" className="text-lg font-semibold">
        {t("settings.knowledge")}
      </h2>
      <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">{t("settings.knowledgeHint")}</p>
      {rebuild.isError ? (
        <div className="mt-2">
          <Banner tone="error">{t("settings.knowledge.rebuildFailed", { message: rebuild.error.message })}</Banner>
        </div>
      ) : null}
      {report.isPending ? (
        <p className="mt-2 text-sm text-zinc-500">{t("common.loading")}</p>
      ) : report.isError ? (
        <div className="mt-2">
          <Banner tone="error">{t("common.loadFailed", { message: report.error.message })}</Banner>
        </div>
      ) : (
        <>
          <p className="mt-1 text-xs text-zinc-500">{t("settings.knowledge.limits", { bytes: report.data.limits.max_file_bytes, files: report.data.limits.max_files })}</p>
          {report.data.projects.length === 0 ? (
            <p className="mt-2 text-sm text-zinc-500" data-testid="settings-knowledge-none">
              {t("settings.knowledge.none")}
            </p>
          ) : (
            <ul className="mt-3 space-y-3">
              {report.data.projects.map((p) => (
                <li key={p.project_path} className="rounded border border-zinc-200 p-3 text-sm dark:border-zinc-700" data-testid="settings-knowledge-project" data-project={p.project_path} data-state={p.state}>
                  <div className="flex flex-wrap items-center gap-2">
                    <code className="font-mono text-xs break-all">{p.project_path}</code>
                    <span className={`${badgeClass} ${STATE_CLASS[p.state]}`} data-testid="settings-knowledge-state">
                      {t(`settings.knowledge.state.${p.state}`)}
                    </span>
                    <button
                      type="button"
                      className="ml-auto rounded border border-zinc-300 px-2 py-0.5 text-xs hover:bg-zinc-100 disabled:opacity-50 dark:border-zinc-600 dark:hover:bg-zinc-800"
                      disabled={p.state === "building" || (rebuild.isPending && rebuild.variables === p.project_path)}
                      onClick={() => rebuild.mutate(p.project_path)}
                      data-testid="settings-knowledge-rebuild"
                    >
                      {t(p.state === "none" ? "settings.knowledge.build" : "settings.knowledge.rebuild")}
                    </button>
                  </div>
                  <p className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">
                    <span data-testid="settings-knowledge-files">{t("settings.knowledge.files", { indexed: p.files_indexed, total: p.files_total })}</span>
                    {" · "}
                    {t("settings.knowledge.passages", { n: p.passages })}
                    {p.embedding ? ` · ${t("settings.knowledge.embedding", { key: p.embedding })}` : ""}
                    {" · "}
                    <span data-testid="settings-knowledge-updated">
                      {t("settings.knowledge.lastUpdate", { at: p.last_update ? formatLocalTime(p.last_update, locale) : t("settings.knowledge.never") })}
                    </span>
                  </p>
                  <p className="mt-0.5 text-xs text-zinc-500">
                    {t("settings.knowledge.skipped", { gitignored: p.skipped.gitignored, binary: p.skipped.binary, over: p.skipped.over_file_limit })}
                    {p.truncated_files ? ` · ${t("settings.knowledge.truncated", { n: p.truncated_files })}` : ""}
                  </p>
                  {p.error ? (
                    <div className="mt-1">
                      <Banner tone="error" testId="settings-knowledge-error">
                        {p.error}
                      </Banner>
                    </div>
                  ) : null}
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}
