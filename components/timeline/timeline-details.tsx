"use client";

import type { ReactNode } from "react";
import type { TimelineRecord } from "@/lib/contracts/timeline-record";
import { useLocale, useT } from "@/lib/i18n";
import { buttonGhost } from "@/components/ui/styles";
import { isConflict, statusTone, type Lane } from "./timeline-model";
import { CONFLICT_BADGE, STATUS_BADGE, TYPE_STYLES } from "./timeline-styles";
import { partyName, statusLabel, typeLabel } from "./timeline-labels";

function Field({ label, children, mono = false }: { label: string; children: ReactNode; mono?: boolean }) {
  return (
    <>
      <dt className="text-zinc-500 dark:text-zinc-400">{label}</dt>
      {/* A mono field holds ids and codes: code, not words to translate. */}
      <dd className={`min-w-0 break-all text-zinc-900 dark:text-zinc-100 ${mono ? "font-mono text-xs leading-5" : ""}`}>{mono ? <code>{children}</code> : children}</dd>
    </>
  );
}

/** A link to another row of the timeline (its cause or an answer), or plain text when it is filtered out. */
function RowLink({ record, lanes, visible, onSelect }: { record: TimelineRecord; lanes: readonly Lane[]; visible: boolean; onSelect: (id: string) => void }) {
  const t = useT();
  const text = (
    <>
      <code className="font-mono">{record.action}</code> · {partyName(record.from_agent, lanes, t)} → {partyName(record.to_agent, lanes, t)}
    </>
  );
  if (!visible) {
    return (
      <span className="text-zinc-500 dark:text-zinc-400">
        {text} {t("timeline.details.notShown")}
      </span>
    );
  }
  return (
    <button
      type="button"
      className="text-left text-indigo-700 hover:underline dark:text-indigo-300"
      onClick={() => onSelect(record.envelope.message_id)}
      data-testid="timeline-details-link"
    >
      {text}
    </button>
  );
}

/**
 * Everything about one envelope: its action, route, status, ids and time, the JSON payload and
 * meta, and links to the row that caused it and the rows that answered it.
 */
export function TimelineDetails({
  record,
  lanes,
  parent,
  answers,
  visibleIds,
  onSelect,
  onClose,
}: {
  record: TimelineRecord;
  lanes: readonly Lane[];
  parent: TimelineRecord | undefined;
  answers: readonly TimelineRecord[];
  /** Message ids of the rows the view shows now (the trace filter may hide a cause). */
  visibleIds: ReadonlySet<string>;
  onSelect: (messageId: string) => void;
  onClose: () => void;
}) {
  const t = useT();
  const locale = useLocale();
  const env = record.envelope;
  const tone = statusTone(record.status);
  const time = new Date(record.timestamp);
  return (
    <section
      className="max-h-[40%] shrink-0 overflow-y-auto border-t border-zinc-200 bg-zinc-50 px-4 py-3 text-sm dark:border-zinc-800 dark:bg-zinc-950/60"
      data-testid="timeline-details"
      data-message-id={env.message_id}
      aria-labelledby="timeline-details-title"
    >
      <header className="mb-2 flex items-center justify-between gap-2">
        <h3 id="timeline-details-title" className="flex flex-wrap items-center gap-2 font-semibold">
          <span>{t("timeline.details.title")}</span>
          <code className="font-mono">{record.action}</code>
          <span className={`rounded px-1.5 text-xs font-medium ${TYPE_STYLES[env.type].chip}`}>{typeLabel(env.type, t)}</span>
          {tone ? <span className={`rounded px-1.5 text-xs font-semibold uppercase ${STATUS_BADGE[tone]}`}>{statusLabel(record.status, t)}</span> : null}
          {isConflict(record) ? <span className={`rounded px-1.5 text-xs font-semibold uppercase ${CONFLICT_BADGE}`}>⚖ {t("timeline.conflict")}</span> : null}
        </h3>
        <button type="button" className={buttonGhost} onClick={onClose} aria-label={t("timeline.details.close")} data-testid="timeline-details-close">
          ✕
        </button>
      </header>
      <dl className="grid grid-cols-[8.5rem_minmax(0,1fr)] gap-x-3 gap-y-1">
        <Field label={t("timeline.details.route")}>
          {partyName(record.from_agent, lanes, t)} → {partyName(record.to_agent, lanes, t)}{" "}
          <code className="font-mono text-xs text-zinc-500 dark:text-zinc-400">
            ({record.from_agent} → {record.to_agent})
          </code>
        </Field>
        <Field label={t("timeline.details.status")}>
          {statusLabel(record.status, t)} <code className="font-mono text-xs text-zinc-500 dark:text-zinc-400">({record.status})</code>
        </Field>
        <Field label={t("timeline.details.time")} mono>
          <time dateTime={record.timestamp}>
            {Number.isNaN(time.getTime()) ? record.timestamp : `${time.toLocaleString(locale)} · ${record.timestamp}`}
          </time>
        </Field>
        {record.resource ? (
          <Field label={t("timeline.details.resource")} mono>
            {record.resource}
          </Field>
        ) : null}
        {record.version > 0 ? (
          <Field label={t("timeline.details.version")} mono>
            {record.version}
          </Field>
        ) : null}
        <Field label={t("timeline.details.priority")} mono>
          {env.priority}
        </Field>
        <Field label={t("timeline.details.trace")} mono>
          {record.trace_id}
        </Field>
        <Field label={t("timeline.details.turn")} mono>
          <span data-testid="timeline-details-turn">{record.turn_id}</span>
        </Field>
        <Field label={t("timeline.details.parentTurn")} mono>
          {record.parent_turn_id ?? t("common.none")}
        </Field>
        <Field label={t("timeline.details.message")} mono>
          {env.message_id}
        </Field>
        {parent ? (
          <Field label={t("timeline.details.causedBy")}>
            <RowLink record={parent} lanes={lanes} visible={visibleIds.has(parent.envelope.message_id)} onSelect={onSelect} />
          </Field>
        ) : null}
        {answers.length > 0 ? (
          <Field label={t("timeline.details.answers")}>
            <ul className="space-y-0.5">
              {answers.map((c) => (
                <li key={c.envelope.message_id}>
                  <RowLink record={c} lanes={lanes} visible={visibleIds.has(c.envelope.message_id)} onSelect={onSelect} />
                </li>
              ))}
            </ul>
          </Field>
        ) : null}
      </dl>
      <h4 className="mt-3 mb-1 text-xs font-semibold uppercase tracking-wide text-zinc-500 dark:text-zinc-400">{t("timeline.details.payload")}</h4>
      <pre className="overflow-x-auto rounded-md border border-zinc-200 bg-white p-2 font-mono text-xs text-zinc-800 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-200" data-testid="timeline-details-payload">
        {JSON.stringify(env.payload, null, 2)}
      </pre>
      {Object.keys(env.meta).length > 0 ? (
        <>
          <h4 className="mt-3 mb-1 text-xs font-semibold uppercase tracking-wide text-zinc-500 dark:text-zinc-400">{t("timeline.details.meta")}</h4>
          <pre className="overflow-x-auto rounded-md border border-zinc-200 bg-white p-2 font-mono text-xs text-zinc-800 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-200">
            {JSON.stringify(env.meta, null, 2)}
          </pre>
        </>
      ) : null}
    </section>
  );
}
