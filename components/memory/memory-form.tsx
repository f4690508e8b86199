"use client";

import { useState, type FormEvent } from "react";
import type { MemoryEntry, MemoryKind, MemoryLevel } from "@/lib/memory/schema";
import { useT } from "@/lib/i18n";
import { buttonPrimary, buttonSecondary, hintClass, inputClass, labelClass } from "@/components/ui/styles";
import { ChoiceSelect } from "./choice-select";

/** What the form edits; strings as typed (the server checks them). */
export interface MemoryFormValues {
  kind: MemoryKind;
  subject: string;
  statement: string;
  level: MemoryLevel;
  project_path: string;
  grant: string;
}

export const KINDS: readonly MemoryKind[] = ["fact", "preference", "open_issue"];
export const LEVELS: readonly MemoryLevel[] = ["public", "project", "restricted"];

/** The form's values for an entry (or empty ones for a new entry). */
export function formValuesOf(entry?: MemoryEntry): MemoryFormValues {
  return {
    kind: entry?.kind ?? "fact",
    subject: entry?.subject ?? "",
    statement: entry?.statement ?? "",
    level: entry?.level ?? "public",
    project_path: entry?.project_path ?? "",
    grant: entry?.grant.join(", ") ?? "",
  };
}

/** The role ids typed in the grant field. */
export function grantOf(text: string): string[] {
  return text
    .split(/[,\s，]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Add or edit one entry: kind, subject, statement, level, project folder and (restricted) grant. */
export function MemoryForm({
  initial,
  submitLabel,
  busy,
  error,
  onSubmit,
  onCancel,
  testId,
}: {
  initial: MemoryFormValues;
  submitLabel: string;
  busy: boolean;
  error?: string | undefined;
  onSubmit: (values: MemoryFormValues) => void;
  onCancel?: () => void;
  testId: string;
}) {
  const t = useT();
  const [v, setV] = useState(initial);
  const set = <K extends keyof MemoryFormValues>(k: K, value: MemoryFormValues[K]) => setV((old) => ({ ...old, [k]: value }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSubmit(v);
  };
  return (
    <form onSubmit={submit} className="space-y-3" data-testid={testId}>
      <div className="grid gap-3 sm:grid-cols-3">
        <ChoiceSelect label={t("memory.filter.kind")} value={v.kind} onChange={(k) => set("kind", k)} choices={KINDS.map((k) => ({ value: k, label: t(`memory.kind.${k}`) }))} testId={`${testId}-kind`} />
        <ChoiceSelect label={t("memory.filter.level")} value={v.level} onChange={(l) => set("level", l)} choices={LEVELS.map((l) => ({ value: l, label: t(`memory.level.${l}`) }))} testId={`${testId}-level`} />
        <label className={labelClass}>
          {t("memory.subject")}
          <input className={`${inputClass} mt-1`} value={v.subject} onChange={(e) => set("subject", e.target.value)} maxLength={200} data-testid={`${testId}-subject`} />
        </label>
      </div>
      <label className={labelClass}>
        {t("memory.statement")}
        <textarea className={`${inputClass} mt-1`} rows={3} value={v.statement} onChange={(e) => set("statement", e.target.value)} maxLength={2000} required data-testid={`${testId}-statement`} />
      </label>
      <label className={labelClass}>
        {t("memory.projectPath")}
        <input className={`${inputClass} mt-1 font-mono`} value={v.project_path} onChange={(e) => set("project_path", e.target.value)} placeholder="/home/me/project" data-testid={`${testId}-project`} />
        <span className={hintClass}>{t("memory.projectPathHint")}</span>
      </label>
      {v.level === "restricted" ? (
        <label className={labelClass}>
          {t("memory.grant")}
          <input className={`${inputClass} mt-1 font-mono`} value={v.grant} onChange={(e) => set("grant", e.target.value)} data-testid={`${testId}-grant`} />
          <span className={hintClass}>{t("memory.grantHint")}</span>
        </label>
      ) : null}
      {error ? (
        <p role="alert" className="text-sm text-red-600 dark:text-red-400" data-testid={`${testId}-error`}>
          {error}
        </p>
      ) : null}
      <div className="flex gap-2">
        <button type="submit" className={buttonPrimary} disabled={busy} data-testid={`${testId}-submit`}>
          {busy ? t("common.saving") : submitLabel}
        </button>
        {onCancel ? (
          <button type="button" className={buttonSecondary} onClick={onCancel} data-testid={`${testId}-cancel`}>
            {t("common.cancel")}
          </button>
        ) : null}
      </div>
    </form>
  );
}
