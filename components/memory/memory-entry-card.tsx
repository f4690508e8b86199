"use client";

import Link from "next/link";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { deleteMemoryEntry, patchMemoryEntry } from "@/lib/client";
import type { MemoryEntry, PatchMemoryBody } from "@/lib/memory/schema";
import { en, useLocale, useT, type MessageKey } from "@/lib/i18n";
import { hasOwnKey } from "@/lib/own";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { formatLocalTime } from "@/components/ui/format";
import { badgeClass, buttonGhost, cardClass } from "@/components/ui/styles";
import { formValuesOf, grantOf, MemoryForm, type MemoryFormValues } from "./memory-form";

const LEVEL_TONE = {
  public: "bg-emerald-100 text-emerald-800 dark:bg-emerald-900/50 dark:text-emerald-200",
  project: "bg-sky-100 text-sky-800 dark:bg-sky-900/60 dark:text-sky-200",
  restricted: "bg-amber-100 text-amber-900 dark:bg-amber-900/50 dark:text-amber-200",
} as const;

/** The PATCH body for what changed in the form (nothing unchanged is sent). */
function patchOf(entry: MemoryEntry, v: MemoryFormValues): PatchMemoryBody {
  const patch: PatchMemoryBody = {};
  if (v.kind !== entry.kind) patch.kind = v.kind;
  if (v.statement.trim() !== entry.statement) patch.statement = v.statement;
  if (v.subject.trim() !== entry.subject) patch.subject = v.subject;
  if (v.level !== entry.level) patch.level = v.level;
  const project = v.project_path.trim() === "" ? null : v.project_path.trim();
  if (project !== entry.project_path) patch.project_path = project;
  const grant = v.level === "restricted" ? grantOf(v.grant) : [];
  if (grant.join("\u0000") !== entry.grant.join("\u0000")) patch.grant = grant;
  return patch;
}

/** One memory entry: its text, level, project, source link and what was redacted; edit, re-level, delete. */
export function MemoryEntryCard({ entry }: { entry: MemoryEntry }) {
  const t = useT();
  const locale = useLocale();
  const client = useQueryClient();
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const refresh = () => client.invalidateQueries({ queryKey: ["memory-entries"] });
  const save = useMutation({
    mutationFn: (patch: PatchMemoryBody) => patchMemoryEntry(entry.id, patch),
    onSuccess: async () => {
      setEditing(false);
      await refresh();
    },
  });
  const remove = useMutation({
    mutationFn: () => deleteMemoryEntry(entry.id),
    onSuccess: async () => {
      setConfirming(false);
      await refresh();
    },
  });
  const kinds = [...new Set(entry.redactions.map((r) => r.kind))];
  const source = entry.source.conversation_id;
  const firstMessage = entry.source.message_ids[0];
  return (
    <li className={`${cardClass} p-4`} data-testid="memory-entry" data-entry-id={entry.id}>
      <div className="flex flex-wrap items-center gap-2 text-xs">
        <span className={badgeClass} data-testid="memory-entry-kind">
          {t(`memory.kind.${entry.kind}`)}
        </span>
        <span className={`${badgeClass} ${LEVEL_TONE[entry.level]}`} data-testid="memory-entry-level">
          {t(`memory.level.${entry.level}`)}
        </span>
        {entry.level === "restricted" ? (
          <span className="font-mono text-zinc-500" data-testid="memory-entry-grant">
            {entry.grant.join(", ")}
          </span>
        ) : null}
        {entry.project_path ? <code className="font-mono text-zinc-500 break-all">{entry.project_path}</code> : null}
        <span className="text-zinc-500">{t(entry.author === "person" ? "memory.author.person" : "memory.author.distiller")}</span>
        <span className="text-zinc-500">{t("memory.confidence", { value: entry.confidence.toFixed(2) })}</span>
        <time className="text-zinc-500" dateTime={entry.updated_at}>
          {t("memory.updated", { time: formatLocalTime(entry.updated_at, locale) })}
        </time>
      </div>
      {editing ? (
        <div className="mt-3">
          <MemoryForm
            initial={formValuesOf(entry)}
            submitLabel={t("common.save")}
            busy={save.isPending}
            error={save.error?.message}
            onSubmit={(v) => {
              const patch = patchOf(entry, v);
              if (Object.keys(patch).length === 0) setEditing(false);
              else save.mutate(patch);
            }}
            onCancel={() => setEditing(false)}
            testId="memory-edit"
          />
        </div>
      ) : (
        <>
          {/* An entry is the team's or a person's words, in the language they were written in: data. */}
          {entry.subject ? (
            <p className="mt-2 text-sm font-semibold" data-testid="memory-entry-subject" translate="no">
              {entry.subject}
            </p>
          ) : null}
          <p className="mt-1 text-sm whitespace-pre-wrap" data-testid="memory-entry-statement" translate="no">
            {entry.statement}
          </p>
        </>
      )}
      {kinds.length ? (
        <p className="mt-2 text-xs text-amber-800 dark:text-amber-300" data-testid="memory-entry-redactions">
          {t("memory.redacted", { kinds: kinds.map((k) => redactionLabel(t, k)).join(", ") })}
        </p>
      ) : null}
      {entry.history.length ? (
        <details className="mt-2 text-xs">
          <summary className="cursor-pointer text-zinc-500">{t("memory.history", { n: entry.history.length })}</summary>
          <ul className="mt-1 space-y-1" data-testid="memory-entry-history" translate="no">
            {entry.history.map((h, i) => (
              <li key={i} className="text-zinc-600 dark:text-zinc-400">
                <time dateTime={h.at}>{formatLocalTime(h.at, locale)}</time> · {t(`memory.history.reason.${h.reason}`)} · {h.statement}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
      <div className="mt-2 flex flex-wrap gap-1">
        {source ? (
          <Link
            href={`/conversations/${encodeURIComponent(source)}${firstMessage ? `?message=${encodeURIComponent(firstMessage)}` : ""}`}
            className={buttonGhost}
            data-testid="memory-entry-source"
          >
            {t("memory.source")}
          </Link>
        ) : (
          <span className="px-3 py-1.5 text-xs text-zinc-500">{t("memory.noSource")}</span>
        )}
        {!editing ? (
          <button type="button" className={buttonGhost} onClick={() => setEditing(true)} data-testid="memory-entry-edit">
            {t("memory.edit")}
          </button>
        ) : null}
        <button type="button" className={`${buttonGhost} text-red-700 dark:text-red-400`} onClick={() => setConfirming(true)} data-testid="memory-entry-delete">
          {t("memory.delete")}
        </button>
      </div>
      <ConfirmDialog
        open={confirming}
        title={t("memory.deleteTitle")}
        confirmLabel={t("memory.delete")}
        busy={remove.isPending}
        error={remove.error?.message}
        onConfirm={() => remove.mutate()}
        onCancel={() => setConfirming(false)}
        testId="memory-delete-dialog"
      >
        {t("memory.deleteBody")}
      </ConfirmDialog>
    </li>
  );
}

/** The label of a redaction kind; an unknown kind shows as stored. */
function redactionLabel(t: (key: MessageKey) => string, kind: string): string {
  const key = `memory.redactionKind.${kind}`;
  return hasOwnKey(en, key) ? t(key as MessageKey) : kind;
}
