"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import {
  decideSharedContextConflict,
  sharedContextKeys,
  sharedContextQuery,
  sharedContextRevision,
  writeSharedContextEntry,
} from "@/lib/client/shared-context";
import type { TimelineRecord } from "@/lib/contracts/timeline-record";
import type { Conflict, DecisionChoice, Entry, Resolution, WriteMode } from "@/lib/shared-context/schema";
import { useLocale, useT, type MessageKey } from "@/lib/i18n";
import { formatRelativeTime } from "@/components/ui/format";
import { useNow } from "@/components/ui/use-now";
import { buttonPrimary, buttonSecondary, cardClass, inputClass } from "@/components/ui/styles";
import { authorLabel, recentResolutions } from "./shared-context-view";

const RULE_KEY: Record<Resolution["rule"], MessageKey> = {
  fresh: "sc.rule.fresh",
  leader_wins: "sc.rule.leader_wins",
  later_wins: "sc.rule.later_wins",
  awaiting_person: "sc.rule.awaiting_person",
  person_decision: "sc.rule.person_decision",
  unknown_version: "sc.rule.unknown_version",
};

const OUTCOME_KEY: Record<Resolution["outcome"], MessageKey> = {
  applied: "sc.outcome.applied",
  rejected: "sc.outcome.rejected",
  pending: "sc.outcome.pending",
};

/**
 * The conversation's shared context (seed 003 §4.3): writes waiting for a person first, with
 * "Keep current" / "Take proposed", then every key's value and version, a person's own write,
 * and the latest resolutions. Refetched whenever a `shared_context:*` timeline record arrives
 * live or a new snapshot starts (records may have been missed). With conflicts pending it moves
 * to the top of a flex column (`order-first`), so it is seen before the team.
 */
export function SharedContextPanel({
  conversationId,
  epoch,
  live,
}: {
  conversationId: string;
  /** Snapshot number: a new snapshot means timeline records may have been missed, so refetch. */
  epoch: number;
  /** Timeline records received live since the snapshot. */
  live: readonly TimelineRecord[];
}) {
  const t = useT();
  const queryClient = useQueryClient();
  const query = useQuery(sharedContextQuery(conversationId));
  const revision = sharedContextRevision(live);
  const first = useRef(true);
  useEffect(() => {
    // The query fetches on mount by itself; only later changes need a refetch.
    if (first.current) {
      first.current = false;
      return;
    }
    void queryClient.invalidateQueries({ queryKey: sharedContextKeys.detail(conversationId) });
  }, [queryClient, conversationId, revision, epoch]);

  const data = query.data;
  const pending = data?.pending ?? [];
  const entries = data ? Object.values(data.entries).sort((a, b) => a.key.localeCompare(b.key)) : [];
  const history = recentResolutions(data?.history ?? [], 8);

  return (
    <section
      className={`${cardClass} p-3 ${pending.length > 0 ? "order-first border-amber-400 ring-1 ring-amber-300 dark:border-amber-600 dark:ring-amber-800" : ""}`}
      data-testid="shared-context"
      data-pending={pending.length}
      aria-labelledby="shared-context-title"
    >
      <header className="mb-2 flex items-baseline justify-between gap-2 px-1">
        <h2 id="shared-context-title" className="text-sm font-semibold">
          {t("sc.title")}
        </h2>
        {pending.length > 0 ? (
          <span
            className="inline-flex items-center rounded-full bg-amber-500 px-2 py-0.5 text-[11px] font-semibold text-white dark:bg-amber-600"
            data-testid="shared-context-pending-count"
          >
            {t("sc.pendingCount", { n: pending.length })}
          </span>
        ) : data ? (
          <span className="text-xs text-zinc-500 dark:text-zinc-400">{t("sc.keyCount", { n: entries.length })}</span>
        ) : null}
      </header>

      {query.isError ? (
        <p className="px-1 text-xs text-red-600 dark:text-red-400" role="alert">
          {t("common.loadFailed", { message: query.error.message })}
        </p>
      ) : !data ? (
        <p className="px-1 py-2 text-sm text-zinc-500">{t("common.loading")}</p>
      ) : (
        <div className="space-y-3">
          {pending.length > 0 ? (
            <div className="space-y-2" aria-label={t("sc.pendingTitle")}>
              {pending.map((c) => (
                <ConflictCard key={c.conflict_id} conversationId={conversationId} conflict={c} />
              ))}
            </div>
          ) : null}

          {entries.length === 0 ? (
            <p className="px-1 text-xs text-zinc-500 dark:text-zinc-400" data-testid="shared-context-empty">
              {t("sc.empty")}
            </p>
          ) : (
            <ul className="space-y-1.5">
              {entries.map((entry) => (
                <EntryRow key={entry.key} entry={entry} />
              ))}
            </ul>
          )}

          <WriteForm conversationId={conversationId} entries={data.entries} />

          {history.length > 0 ? (
            <details className="px-1 text-xs" data-testid="shared-context-history">
              <summary className="cursor-pointer font-medium text-zinc-600 select-none dark:text-zinc-300">
                {t("sc.historyTitle", { n: history.length })}
              </summary>
              <ol className="mt-1.5 space-y-1.5">
                {history.map((r, i) => (
                  <HistoryRow key={`${r.at}-${i}`} resolution={r} />
                ))}
              </ol>
            </details>
          ) : null}
        </div>
      )}
    </section>
  );
}

function EntryRow({ entry }: { entry: Entry }) {
  const t = useT();
  const locale = useLocale();
  const now = useNow();
  return (
    <li
      className="rounded-md border border-zinc-200 px-2.5 py-1.5 text-xs dark:border-zinc-700"
      data-testid="shared-context-entry"
      data-key={entry.key}
      data-version={entry.version}
    >
      <div className="flex items-baseline gap-1.5">
        <span className="min-w-0 flex-1 truncate font-mono font-semibold text-zinc-800 dark:text-zinc-100" title={entry.key}>
          {entry.key}
        </span>
        <span className="shrink-0 rounded bg-zinc-100 px-1 font-mono text-[10px] text-zinc-600 dark:bg-zinc-800 dark:text-zinc-300" data-testid="shared-context-version">
          v{entry.version}
        </span>
      </div>
      <p className="mt-0.5 line-clamp-4 whitespace-pre-wrap break-words text-zinc-700 dark:text-zinc-300" title={entry.value} data-testid="shared-context-value">
        {entry.value}
      </p>
      <p className="mt-0.5 text-[10px] text-zinc-500 dark:text-zinc-400">
        {authorLabel(entry.author, entry.author_role, t("sc.person"))}
        {entry.decided_by ? ` · ${t("sc.decidedBy")}` : ""} · <time dateTime={entry.updated_at}>{formatRelativeTime(entry.updated_at, now, locale)}</time>
      </p>
    </li>
  );
}

function ConflictCard({ conversationId, conflict }: { conversationId: string; conflict: Conflict }) {
  const t = useT();
  const locale = useLocale();
  const now = useNow();
  const queryClient = useQueryClient();
  const decide = useMutation({
    mutationFn: (choice: DecisionChoice) => decideSharedContextConflict(conversationId, { conflict_id: conflict.conflict_id, choice }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: sharedContextKeys.detail(conversationId) }),
  });
  const { current, proposed } = conflict;
  return (
    <article
      className="rounded-md border border-amber-300 bg-amber-50 p-2.5 text-xs dark:border-amber-700 dark:bg-amber-950/30"
      data-testid="conflict-card"
      data-conflict-id={conflict.conflict_id}
      data-key={conflict.key}
    >
      <p className="font-semibold text-amber-900 dark:text-amber-200">
        {t("sc.conflictTitle")} <span className="font-mono">{conflict.key}</span>
      </p>
      <p className="mt-0.5 text-[11px] text-amber-900/80 dark:text-amber-200/80">
        {t("sc.proposedBy", {
          who: authorLabel(proposed.author, proposed.author_role, t("sc.person")),
          when: formatRelativeTime(proposed.at, now, locale),
        })}
      </p>
      <div className="mt-2 grid grid-cols-2 gap-1.5">
        <div className="min-w-0 rounded border border-zinc-200 bg-white p-1.5 dark:border-zinc-700 dark:bg-zinc-900" data-testid="conflict-current">
          <p className="text-[10px] font-semibold text-zinc-500 uppercase dark:text-zinc-400">
            {t("sc.current")} {current ? `· v${current.version}` : ""}
          </p>
          <p className="mt-0.5 max-h-28 overflow-y-auto whitespace-pre-wrap break-words text-zinc-800 dark:text-zinc-100" data-testid="conflict-current-value">
            {current ? current.value : <span className="italic text-zinc-400">{t("sc.noValue")}</span>}
          </p>
          {current ? (
            <p className="mt-0.5 truncate text-[10px] text-zinc-500 dark:text-zinc-400">{authorLabel(current.author, current.author_role, t("sc.person"))}</p>
          ) : null}
        </div>
        <div className="min-w-0 rounded border border-indigo-200 bg-white p-1.5 dark:border-indigo-800 dark:bg-zinc-900" data-testid="conflict-proposed">
          <p className="text-[10px] font-semibold text-indigo-700 uppercase dark:text-indigo-300">
            {t("sc.proposed")} {proposed.expected_version !== null ? `· ${t("sc.basedOn", { n: proposed.expected_version })}` : ""}
          </p>
          <p className="mt-0.5 max-h-28 overflow-y-auto whitespace-pre-wrap break-words text-zinc-800 dark:text-zinc-100" data-testid="conflict-proposed-value">
            {proposed.value}
          </p>
          <p className="mt-0.5 truncate text-[10px] text-zinc-500 dark:text-zinc-400">{authorLabel(proposed.author, proposed.author_role, t("sc.person"))}</p>
        </div>
      </div>
      <div className="mt-2 grid grid-cols-2 gap-1.5">
        <button
          type="button"
          className={`${buttonSecondary} px-2 py-1 text-xs`}
          disabled={decide.isPending}
          onClick={() => decide.mutate("keep_current")}
          data-testid="conflict-keep-current"
        >
          {t("sc.keepCurrent")}
        </button>
        <button
          type="button"
          className={`${buttonPrimary} px-2 py-1 text-xs`}
          disabled={decide.isPending}
          onClick={() => decide.mutate("take_proposed")}
          data-testid="conflict-take-proposed"
        >
          {t("sc.takeProposed")}
        </button>
      </div>
      {decide.error ? (
        <p role="alert" className="mt-1 text-[11px] font-medium text-red-600 dark:text-red-400" data-testid="conflict-error">
          {decide.error.message}
        </p>
      ) : null}
    </article>
  );
}

function HistoryRow({ resolution: r }: { resolution: Resolution }) {
  const t = useT();
  const person = t("sc.person");
  const side = (s: Resolution["winner"]) => (s ? `${t(s.side === "current" ? "sc.current" : "sc.proposed")} (${s.author ? authorLabel(s.author, s.author_role, person) : t("sc.noValue")})` : "—");
  return (
    <li className="rounded border border-zinc-200 px-2 py-1 dark:border-zinc-700" data-testid="shared-context-resolution" data-rule={r.rule} data-outcome={r.outcome}>
      <p className="flex items-baseline gap-1.5">
        <span className="min-w-0 flex-1 truncate font-mono font-semibold">{r.key}</span>
        <span className={`shrink-0 rounded px-1 text-[10px] ${r.outcome === "applied" ? "bg-emerald-100 text-emerald-800 dark:bg-emerald-900/50 dark:text-emerald-200" : r.outcome === "pending" ? "bg-amber-100 text-amber-800 dark:bg-amber-900/50 dark:text-amber-200" : "bg-zinc-100 text-zinc-600 dark:bg-zinc-800 dark:text-zinc-300"}`}>
          {t(OUTCOME_KEY[r.outcome])}
        </span>
      </p>
      <p className="text-[11px] text-zinc-600 dark:text-zinc-400">
        {t(RULE_KEY[r.rule])} · v{r.version}
      </p>
      {r.winner || r.loser ? (
        <p className="text-[11px] text-zinc-500 dark:text-zinc-400">{t("sc.winnerLoser", { winner: side(r.winner), loser: side(r.loser) })}</p>
      ) : null}
    </li>
  );
}

/** A person writes a key. An overwrite is based on the version shown, so a stale one is arbitrated, never blind. */
function WriteForm({ conversationId, entries }: { conversationId: string; entries: Record<string, Entry> }) {
  const t = useT();
  const queryClient = useQueryClient();
  const [key, setKey] = useState("");
  const [value, setValue] = useState("");
  const [mode, setMode] = useState<WriteMode>("overwrite");
  const write = useMutation({
    mutationFn: () =>
      writeSharedContextEntry(conversationId, {
        key: key.trim(),
        value,
        mode,
        expected_version: mode === "overwrite" ? (entries[key.trim()]?.version ?? 0) : undefined,
      }),
    onSuccess: () => setValue(""),
    onSettled: () => queryClient.invalidateQueries({ queryKey: sharedContextKeys.detail(conversationId) }),
  });
  const outcome = write.data?.decision.outcome;
  return (
    <details className="px-1 text-xs" data-testid="shared-context-write">
      <summary className="cursor-pointer font-medium text-zinc-600 select-none dark:text-zinc-300">{t("sc.writeTitle")}</summary>
      <form
        className="mt-1.5 space-y-1.5"
        onSubmit={(e) => {
          e.preventDefault();
          if (key.trim() && !write.isPending) write.mutate();
        }}
      >
        <label className="block">
          <span className="sr-only">{t("sc.key")}</span>
          <input
            className={`${inputClass} py-1 font-mono text-xs`}
            placeholder={t("sc.key")}
            value={key}
            list="shared-context-keys"
            onChange={(e) => setKey(e.target.value)}
            data-testid="shared-context-write-key"
          />
          <datalist id="shared-context-keys">
            {Object.keys(entries).map((k) => (
              <option key={k} value={k} />
            ))}
          </datalist>
        </label>
        <label className="block">
          <span className="sr-only">{t("sc.value")}</span>
          <textarea
            className={`${inputClass} min-h-12 resize-y py-1 text-xs`}
            rows={2}
            placeholder={t("sc.value")}
            value={value}
            onChange={(e) => setValue(e.target.value)}
            data-testid="shared-context-write-value"
          />
        </label>
        <div className="flex items-center gap-1.5">
          <select
            className={`${inputClass} w-auto py-1 text-xs`}
            value={mode}
            onChange={(e) => setMode(e.target.value === "append" ? "append" : "overwrite")}
            aria-label={t("sc.mode")}
            data-testid="shared-context-write-mode"
          >
            <option value="overwrite">{t("sc.mode.overwrite")}</option>
            <option value="append">{t("sc.mode.append")}</option>
          </select>
          <button type="submit" className={`${buttonPrimary} ml-auto px-2 py-1 text-xs`} disabled={write.isPending || !key.trim()} data-testid="shared-context-write-submit">
            {write.isPending ? t("common.saving") : t("sc.write")}
          </button>
        </div>
        {write.error ? (
          <p role="alert" className="text-[11px] font-medium text-red-600 dark:text-red-400">
            {write.error.message}
          </p>
        ) : outcome ? (
          <p className="text-[11px] text-zinc-600 dark:text-zinc-400" data-testid="shared-context-write-result" data-outcome={outcome}>
            {t(OUTCOME_KEY[outcome])}
          </p>
        ) : null}
      </form>
    </details>
  );
}
