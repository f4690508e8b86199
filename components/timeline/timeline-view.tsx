"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useMemo, useRef, useState } from "react";
import { mergeTimeline, timelineQuery } from "@/lib/client";
import { useLocale, useT } from "@/lib/i18n";
import { ENVELOPE_TYPES } from "@/lib/contracts/envelope";
import type { TimelineRecord } from "@/lib/contracts/timeline-record";
import type { AgentView } from "@/lib/contracts/events";
import { useStickToBottom } from "@/components/ui/use-stick-to-bottom";
import { Banner } from "@/components/ui/banner";
import { cardClass, inputClass } from "@/components/ui/styles";
import { TimelineArrowRow, laneCenter } from "./timeline-arrow-row";
import { TimelineDetails } from "./timeline-details";
import { clockTime, laneName, partyName, statusLabel, typeLabel } from "./timeline-labels";
import { arrowOf, buildLanes, filterByPerson, filterByTrace, linkedRows, personOptions, traceOptions, viewItems, type Lane } from "./timeline-model";
import { LANE_AVATAR, STATUS_BADGE, TYPE_STYLES, CONFLICT_BADGE } from "./timeline-styles";

/** Width of the time column, shared by the lane header and every row so lanes line up. */
const TIME_COLUMN = "5.5rem";
/** Narrowest a lane gets before the view scrolls sideways (a label must fit between two lanes). */
const LANE_MIN_REM = 8.5;

function LaneHeader({ lane, count }: { lane: Lane; count: number }) {
  const t = useT();
  const name = laneName(lane, t);
  const initial = lane.kind === "agent" && lane.agentId !== null ? String(lane.agentId) : name.slice(0, 1).toUpperCase();
  return (
    <div
      className="flex min-w-0 flex-col items-center gap-0.5 px-1 py-2 text-center"
      style={{ width: `${100 / count}%` }}
      data-testid="timeline-lane"
      data-party={lane.party}
      data-kind={lane.kind}
    >
      <span aria-hidden className={`flex h-6 w-6 items-center justify-center rounded-full text-xs font-semibold ${LANE_AVATAR[lane.kind]}`}>
        {initial}
      </span>
      <span className="max-w-full truncate text-xs font-semibold text-zinc-800 dark:text-zinc-100" title={name}>
        {name}
      </span>
      {lane.roleId ? <span className="max-w-full truncate font-mono text-[10px] text-zinc-500 dark:text-zinc-400">{lane.roleId}</span> : null}
    </div>
  );
}

function Legend() {
  const t = useT();
  return (
    <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-[11px] text-zinc-600 dark:text-zinc-300" aria-label={t("timeline.legend")}>
      {ENVELOPE_TYPES.map((type) => (
        <span key={type} className={`inline-flex items-center gap-1 ${TYPE_STYLES[type].text}`}>
          <span aria-hidden className={`inline-block w-5 border-t-2 ${TYPE_STYLES[type].line}`} />
          <span className="text-zinc-700 dark:text-zinc-200">{typeLabel(type, t)}</span>
        </span>
      ))}
      <span className={`rounded px-1 text-[10px] font-semibold uppercase ${STATUS_BADGE.danger}`}>{t("timeline.status.refused")}</span>
      <span className={`rounded px-1 text-[10px] font-semibold uppercase ${STATUS_BADGE.warning}`}>{t("timeline.status.capped")}</span>
      <span className={`rounded px-1 text-[10px] font-semibold uppercase ${CONFLICT_BADGE}`}>⚖ {t("timeline.conflict")}</span>
    </div>
  );
}

/**
 * The swimlane view of a conversation's envelope relay (SPEC §5, issue 4): one lane per
 * participant, one arrow per envelope in time order, reply↔request links on hover or click, marked
 * refusals, caps, failures and conflicts, a trace filter and a details panel. It fetches the
 * timeline once per snapshot `epoch` and appends the records streamed since (`live`), so it
 * updates as the run goes.
 */
export function TimelineView({
  conversationId,
  epoch,
  live,
  agents,
}: {
  conversationId: string;
  /** `LiveState.epoch`: a new snapshot refetches the file. */
  epoch: number;
  /** `LiveState.timeline`: records streamed since the last snapshot. */
  live: readonly TimelineRecord[];
  agents: readonly AgentView[];
}) {
  const t = useT();
  const locale = useLocale();
  const query = useQuery(timelineQuery(conversationId, epoch));
  const [traceId, setTraceId] = useState<string | null>(null);
  const [personId, setPersonId] = useState<string | null>(null);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [hoverId, setHoverId] = useState<string | null>(null);

  const scrollRef = useRef<HTMLDivElement>(null);
  const contentRef = useRef<HTMLDivElement>(null);
  useStickToBottom(scrollRef, contentRef);

  // Opening the details panel shrinks the rows' area; keep the chosen row in sight.
  useEffect(() => {
    if (!selectedId) return;
    const row = scrollRef.current?.querySelector(`[data-message-id="${CSS.escape(selectedId)}"]`);
    row?.scrollIntoView({ block: "nearest" });
  }, [selectedId]);

  const records = useMemo(() => mergeTimeline(query.data?.records ?? [], live), [query.data, live]);
  const agentInfo = useMemo(
    () => agents.map((a) => ({ agent_id: a.metadata.agent_id, display_name: a.metadata.display_name, role_id: a.metadata.role_id })),
    [agents],
  );
  // Lanes come from every record, not just the filtered ones, so filtering never moves a lane.
  const lanes = useMemo(() => buildLanes(records, agentInfo), [records, agentInfo]);
  const traces = useMemo(() => traceOptions(records), [records]);
  const activeTrace = traceId !== null && traces.some((tr) => tr.trace_id === traceId) ? traceId : null;
  const persons = useMemo(() => personOptions(records), [records]);
  const activePerson = personId !== null && persons.some((p) => p.id === personId) ? personId : null;
  const shown = useMemo(() => filterByPerson(filterByTrace(records, activeTrace), activePerson), [records, activeTrace, activePerson]);
  const items = useMemo(() => viewItems(shown, traces, activeTrace === null && traces.length > 1), [shown, traces, activeTrace]);
  const visibleIds = useMemo(() => new Set(shown.map((r) => r.envelope.message_id)), [shown]);

  const byId = useMemo(() => new Map(records.map((r) => [r.envelope.message_id, r] as const)), [records]);
  const selected = selectedId ? byId.get(selectedId) : undefined;
  const focus = (hoverId ? byId.get(hoverId) : undefined) ?? selected ?? null;
  const links = useMemo(() => linkedRows(records, focus), [records, focus]);
  const selectedLinks = useMemo(() => linkedRows(records, selected ?? null), [records, selected]);

  const laneCount = lanes.length;
  const minWidth = `calc(${TIME_COLUMN} + ${laneCount * LANE_MIN_REM}rem)`;

  return (
    <section
      className={`${cardClass} flex h-[75vh] min-h-[34rem] flex-col lg:h-[calc(100dvh-15rem)]`}
      aria-labelledby="timeline-title"
      data-testid="timeline-view"
      data-record-count={shown.length}
    >
      <header className="space-y-2 border-b border-zinc-200 px-4 py-3 dark:border-zinc-800">
        <div className="flex flex-wrap items-center justify-between gap-2">
          <h2 id="timeline-title" className="text-sm font-semibold">
            {t("timeline.title")}{" "}
            <span className="font-normal text-zinc-500 dark:text-zinc-400" data-testid="timeline-count">
              {activeTrace === null && activePerson === null
                ? t("timeline.count", { n: records.length })
                : t("timeline.countFiltered", { n: shown.length, total: records.length })}
            </span>
          </h2>
          <label className="flex min-w-0 items-center gap-2 text-sm">
            <span className="shrink-0 text-zinc-600 dark:text-zinc-300">{t("timeline.traceFilter")}</span>
            <select
              className={`${inputClass} max-w-[22rem] truncate`}
              value={activeTrace ?? ""}
              onChange={(e) => setTraceId(e.target.value === "" ? null : e.target.value)}
              data-testid="timeline-trace-filter"
            >
              <option value="">{t("timeline.allTraces", { n: traces.length })}</option>
              {traces.map((tr) => (
                <option key={tr.trace_id} value={tr.trace_id}>
                  {`${clockTime(tr.started_at, locale).slice(0, 8)} · ${tr.preview ?? t("timeline.traceUnnamed", { id: tr.trace_id.slice(0, 14) })}`}
                </option>
              ))}
            </select>
          </label>
          {persons.length > 0 ? (
            <label className="flex min-w-0 items-center gap-2 text-sm">
              <span className="shrink-0 text-zinc-600 dark:text-zinc-300">{t("people.filter.person")}</span>
              <select className={`${inputClass} max-w-[14rem] truncate`} value={activePerson ?? ""} onChange={(e) => setPersonId(e.target.value || null)} data-testid="timeline-person-filter">
                <option value="">{t("people.filter.everyone")}</option>
                {persons.map((p) => (
                  <option key={p.id} value={p.id} translate="no">
                    {p.name}
                  </option>
                ))}
              </select>
            </label>
          ) : null}
        </div>
        <Legend />
        {query.data?.bad_lines ? <Banner tone="warning">{t("timeline.badLines", { n: query.data.bad_lines })}</Banner> : null}
        {query.isError ? <Banner tone="error">{t("common.loadFailed", { message: query.error.message })}</Banner> : null}
      </header>

      <div ref={scrollRef} className="min-h-0 flex-1 overflow-auto" data-testid="timeline-scroll">
        <div ref={contentRef} className="relative" style={{ minWidth }}>
          <div
            className="sticky top-0 z-20 grid border-b border-zinc-200 bg-white/95 backdrop-blur dark:border-zinc-800 dark:bg-zinc-900/95"
            style={{ gridTemplateColumns: `${TIME_COLUMN} minmax(0,1fr)` }}
          >
            <div className="flex items-end px-2 pb-2 text-[11px] font-medium text-zinc-500 dark:text-zinc-400">{t("timeline.time")}</div>
            <div className="flex">
              {lanes.map((lane) => (
                <LaneHeader key={lane.party} lane={lane} count={laneCount} />
              ))}
            </div>
          </div>

          <div className="relative pb-4">
            {/* The lanes' vertical lines, drawn once behind every row. */}
            <div aria-hidden className="pointer-events-none absolute inset-y-0 right-0" style={{ left: TIME_COLUMN }}>
              {lanes.map((lane, i) => (
                <span
                  key={lane.party}
                  className={`absolute inset-y-0 w-px ${lane.kind === "system" ? "bg-zinc-200/70 dark:bg-zinc-800" : "bg-zinc-200 dark:bg-zinc-700/80"}`}
                  style={{ left: `${laneCenter(i, laneCount)}%` }}
                />
              ))}
            </div>

            {query.isPending ? (
              <p className="relative px-4 py-6 text-sm text-zinc-500">{t("common.loading")}</p>
            ) : records.length === 0 ? (
              <p className="relative px-4 py-10 text-center text-sm text-zinc-500 dark:text-zinc-400" data-testid="timeline-empty">
                <span className="inline-block max-w-md rounded bg-white/90 px-2 dark:bg-zinc-900/90">{t("timeline.empty")}</span>
              </p>
            ) : (
              items.map((item) =>
                item.kind === "trace" ? (
                  <div
                    key={`trace-${item.trace.trace_id}-${item.trace.started_at}`}
                    className="relative z-10 mt-2 flex items-center gap-2 border-y border-zinc-200 bg-zinc-50 px-2 py-1 text-xs dark:border-zinc-800 dark:bg-zinc-800/70"
                    data-testid="timeline-trace-divider"
                    data-trace-id={item.trace.trace_id}
                  >
                    <span className="font-semibold text-zinc-600 dark:text-zinc-300">{t("timeline.traceFilter")}</span>
                    <span className="truncate text-zinc-800 dark:text-zinc-100">
                      {item.trace.preview ?? t("timeline.traceUnnamed", { id: item.trace.trace_id })}
                    </span>
                    <span className="ml-auto shrink-0 font-mono text-[10px] text-zinc-500 dark:text-zinc-400">{item.trace.trace_id}</span>
                  </div>
                ) : (
                  <TimelineArrowRow
                    key={item.record.envelope.message_id}
                    record={item.record}
                    geometry={arrowOf(item.record, lanes)}
                    laneCount={laneCount}
                    time={clockTime(item.record.timestamp, locale)}
                    label={`${partyName(item.record.from_agent, lanes, t)} → ${partyName(item.record.to_agent, lanes, t)}: \`${item.record.action}\` (${typeLabel(item.record.envelope.type, t)}, ${statusLabel(item.record.status, t)})`}
                    selected={item.record.envelope.message_id === selectedId}
                    focused={item.record.envelope.message_id === hoverId}
                    link={links.get(item.record.envelope.message_id)}
                    onFocus={setHoverId}
                    onSelect={(id) => setSelectedId((current) => (current === id ? null : id))}
                  />
                ),
              )
            )}
            {records.length > 0 ? <p className="relative mt-3 px-3 text-xs text-zinc-500 dark:text-zinc-400">{t("timeline.hint")}</p> : null}
          </div>
        </div>
      </div>

      {selected ? (
        <TimelineDetails
          record={selected}
          lanes={lanes}
          parent={records.find((r) => selectedLinks.get(r.envelope.message_id) === "parent")}
          answers={records.filter((r) => selectedLinks.get(r.envelope.message_id) === "child")}
          visibleIds={visibleIds}
          onSelect={setSelectedId}
          onClose={() => setSelectedId(null)}
        />
      ) : null}
    </section>
  );
}
