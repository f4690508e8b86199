"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { createMemoryEntry, memoryEntriesQuery, useDebouncedValue, type MemoryFilter } from "@/lib/client";
import type { MemoryKind, MemoryLevel } from "@/lib/memory/schema";
import { useT } from "@/lib/i18n";
import { Banner } from "@/components/ui/banner";
import { buttonSecondary, cardClass, inputClass, labelClass } from "@/components/ui/styles";
import { ChoiceSelect } from "./choice-select";
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
        <ChoiceSelect<MemoryKind | "">
          label={t("memory.filter.kind")}
          value={kind}
          onChange={setKind}
          choices={[{ value: "", label: t("memory.filter.any") }, ...KINDS.map((k) => ({ value: k, label: t(`memory.kind.${k}`) }))]}
          testId="memory-filter-kind"
        />
        <ChoiceSelect<MemoryLevel | "">
          label={t("memory.filter.level")}
          value={level}
          onChange={setLevel}
          choices={[{ value: "", label: t("memory.filter.any") }, ...LEVELS.map((l) => ({ value: l, label: t(`memory.level.${l}`) }))]}
          testId="memory-filter-level"
        />
        <ChoiceSelect
          label={t("memory.filter.project")}
          value={project}
          onChange={setProject}
          choices={[{ value: "", label: t("memory.filter.any") }, { value: "none", label: t("memory.filter.noProject") }, ...(list.data?.projects ?? []).map((p) => ({ value: p, label: p }))]}
          testId="memory-filter-project"
        />
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
