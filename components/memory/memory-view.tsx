"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { createMemoryEntry, memoryEntriesQuery, useDebouncedValue, type MemoryFilter } from "@/lib/client";
import type { MemoryKind, MemoryLevel } from "@/lib/memory/schema";
import { useT } from "@/lib/i18n";
import { Banner } from "@/components/ui/banner";
import { buttonSecondary, cardClass, inputClass, labelClass } from "@/components/ui/styles";
import { MemoryEntryCard } from "./memory-entry-card";
import { formValuesOf, grantOf, KINDS, LEVELS, MemoryForm, type MemoryFormValues } from "./memory-form";

const PAGE = 50;

/** The Memory page's body: search and filters, the add form, and the entries. */
export function MemoryView() {
  const t = useT();
  const client = useQueryClient();
  const [q, setQ] = useState("");
  const [kind, setKind] = useState<MemoryKind | "">("");
  const [level, setLevel] = useState<MemoryLevel | "">("");
  const [project, setProject] = useState("");
  const [limit, setLimit] = useState(PAGE);
  const [adding, setAdding] = useState(false);
  const [formKey, setFormKey] = useState(0);
  const [notice, setNotice] = useState<string | null>(null);
  const query = useDebouncedValue(q.trim(), 250);
  const filter: MemoryFilter = { q: query || undefined, kind: kind || undefined, level: level || undefined, project: project || undefined, limit };
  const list = useQuery(memoryEntriesQuery(filter));
  const create = useMutation({
    mutationFn: (v: MemoryFormValues) =>
      createMemoryEntry({
        kind: v.kind,
        statement: v.statement,
        subject: v.subject,
        level: v.level,
        project_path: v.project_path.trim() === "" ? null : v.project_path.trim(),
        grant: v.level === "restricted" ? grantOf(v.grant) : [],
        confidence: 1,
      }),
    onSuccess: async (answer) => {
      setNotice(answer.action === "added" ? t("memory.added") : t("memory.merged", { action: t(`memory.history.reason.${answer.action}`) }));
      setFormKey((k) => k + 1);
      setAdding(false);
      await client.invalidateQueries({ queryKey: ["memory-entries"] });
    },
  });

  return (
    <div className="space-y-4">
      <div className={`${cardClass} grid gap-3 p-4 sm:grid-cols-[2fr_1fr_1fr_1.5fr]`}>
        <label className={labelClass}>
          {t("memory.search.label")}
          <input type="search" className={`${inputClass} mt-1`} value={q} onChange={(e) => setQ(e.target.value)} placeholder={t("memory.search.placeholder")} data-testid="memory-search" />
        </label>
        <label className={labelClass}>
          {t("memory.filter.kind")}
          <select className={`${inputClass} mt-1`} value={kind} onChange={(e) => setKind(e.target.value as MemoryKind | "")} data-testid="memory-filter-kind">
            <option value="">{t("memory.filter.any")}</option>
            {KINDS.map((k) => (
              <option key={k} value={k}>
                {t(`memory.kind.${k}`)}
              </option>
            ))}
          </select>
        </label>
        <label className={labelClass}>
          {t("memory.filter.level")}
          <select className={`${inputClass} mt-1`} value={level} onChange={(e) => setLevel(e.target.value as MemoryLevel | "")} data-testid="memory-filter-level">
            <option value="">{t("memory.filter.any")}</option>
            {LEVELS.map((l) => (
              <option key={l} value={l}>
                {t(`memory.level.${l}`)}
              </option>
            ))}
          </select>
        </label>
        <label className={labelClass}>
          {t("memory.filter.project")}
          <select className={`${inputClass} mt-1`} value={project} onChange={(e) => setProject(e.target.value)} data-testid="memory-filter-project">
            <option value="">{t("memory.filter.any")}</option>
            <option value="none">{t("memory.filter.noProject")}</option>
            {(list.data?.projects ?? []).map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </label>
      </div>

      <div>
        {adding ? (
          <div className={`${cardClass} p-4`}>
            <h2 className="mb-3 text-base font-semibold">{t("memory.add")}</h2>
            <MemoryForm
              key={formKey}
              initial={formValuesOf()}
              submitLabel={t("memory.addSubmit")}
              busy={create.isPending}
              error={create.error?.message}
              onSubmit={(v) => create.mutate(v)}
              onCancel={() => setAdding(false)}
              testId="memory-add"
            />
          </div>
        ) : (
          <button
            type="button"
            className={buttonSecondary}
            onClick={() => {
              setNotice(null);
              setAdding(true);
            }}
            data-testid="memory-add-open"
          >
            {t("memory.add")}
          </button>
        )}
        {notice ? (
          <div className="mt-2">
            <Banner tone="success" testId="memory-notice">
              {notice}
            </Banner>
          </div>
        ) : null}
      </div>

      {list.isPending ? (
        <p className="text-sm text-zinc-500">{t("common.loading")}</p>
      ) : list.isError ? (
        <Banner tone="error">{t("common.loadFailed", { message: list.error.message })}</Banner>
      ) : list.data.entries.length === 0 ? (
        <p className="text-sm text-zinc-500" data-testid="memory-empty">
          {t("memory.empty")}
        </p>
      ) : (
        <>
          <p className="text-xs text-zinc-500" data-testid="memory-count">
            {t("memory.count", { n: list.data.total })}
          </p>
          <ul className="space-y-3" data-testid="memory-list">
            {list.data.entries.map((e) => (
              <MemoryEntryCard key={`${e.id}:${e.updated_at}`} entry={e} />
            ))}
          </ul>
          {list.data.total > list.data.entries.length ? (
            <button type="button" className={buttonSecondary} onClick={() => setLimit((n) => Math.min(n + PAGE, 200))} disabled={limit >= 200} data-testid="memory-more">
              {t("memory.more")}
            </button>
          ) : null}
        </>
      )}
    </div>
  );
}
