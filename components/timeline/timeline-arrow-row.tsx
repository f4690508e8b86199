"use client";

import type { KeyboardEvent } from "react";
import type { TimelineRecord } from "@/lib/contracts/timeline-record";
import { useT } from "@/lib/i18n";
import { isConflict, statusTone, type ArrowGeometry, type LinkKind } from "./timeline-model";
import { CONFLICT_BADGE, CONFLICT_ROW, STATUS_BADGE, TYPE_STYLES } from "./timeline-styles";
import { statusLabel, typeLabel } from "./timeline-labels";

/** Horizontal center of lane `index` of `count`, in percent of the lanes area. */
export function laneCenter(index: number, count: number): number {
  return ((index + 0.5) / count) * 100;
}

/** An arrowhead whose tip sits at `x` percent, pointing right or left, in the row's type color. */
function ArrowHead({ x, pointsRight }: { x: number; pointsRight: boolean }) {
  return (
    <svg
      aria-hidden
      width="9"
      height="10"
      viewBox="0 0 9 10"
      className="absolute top-[23px]"
      style={{ left: pointsRight ? `calc(${x}% - 9px)` : `${x}%` }}
    >
      <path d={pointsRight ? "M0 0 L9 5 L0 10 Z" : "M9 0 L0 5 L9 10 Z"} fill="currentColor" />
    </svg>
  );
}

/**
 * One envelope as a row of the swimlane view: an arrow from the sender's lane to the receiver's
 * (or to every recipient of a broadcast), labelled with its action and type, its status marked.
 * The whole row is the hit target, so a short arrow is as easy to point at as a long one.
 */
export function TimelineArrowRow({
  record,
  geometry,
  laneCount,
  time,
  label,
  selected,
  focused,
  link,
  onFocus,
  onSelect,
}: {
  record: TimelineRecord;
  geometry: ArrowGeometry;
  laneCount: number;
  time: string;
  /** Accessible description: "Team Leader → Reviewer_1: create_sub_agent (request)". */
  label: string;
  selected: boolean;
  /** True for the row the pointer or keyboard is on (or the selected one when nothing is). */
  focused: boolean;
  link: LinkKind | undefined;
  onFocus: (messageId: string | null) => void;
  onSelect: (messageId: string) => void;
}) {
  const t = useT();
  const type = record.envelope.type;
  const style = TYPE_STYLES[type];
  const tone = statusTone(record.status);
  const conflict = isConflict(record);
  const id = record.envelope.message_id;

  const from = laneCenter(geometry.from, laneCount);
  const targets = geometry.to.map((i) => laneCenter(i, laneCount));
  const xs = [from, ...targets];
  const left = Math.min(...xs);
  const right = Math.max(...xs);
  const self = targets.length === 0;
  // Where along the row (0–100) the label belongs: the arrow's middle, or its own lane for a self-arrow.
  const labelAt = self ? from : (left + right) / 2;

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      onSelect(id);
    }
  };

  const rowTone = selected
    ? "bg-indigo-100/80 dark:bg-indigo-500/20"
    : link
      ? "bg-sky-50 dark:bg-sky-500/10"
      : focused
        ? "bg-zinc-100/80 dark:bg-zinc-800/60"
        : conflict
          ? CONFLICT_ROW
          : "";
  const linkBar = link ? "shadow-[inset_3px_0_0_0] shadow-sky-500 dark:shadow-sky-400" : selected ? "shadow-[inset_3px_0_0_0] shadow-indigo-500" : "";

  return (
    <div
      role="button"
      tabIndex={0}
      aria-pressed={selected}
      aria-label={label}
      title={label}
      data-testid="timeline-arrow"
      data-type={type}
      data-action={record.action}
      data-status={record.status}
      data-turn-id={record.turn_id}
      data-parent-turn-id={record.parent_turn_id ?? ""}
      data-trace-id={record.trace_id}
      data-message-id={id}
      data-from={record.from_agent}
      data-to={record.to_agent}
      data-conflict={conflict ? "true" : undefined}
      data-linked={link}
      data-selected={selected ? "true" : undefined}
      className={`relative grid scroll-mt-24 cursor-pointer grid-cols-[5.5rem_minmax(0,1fr)] outline-none focus-visible:ring-2 focus-visible:ring-inset focus-visible:ring-indigo-500 ${rowTone} ${linkBar}`}
      onMouseEnter={() => onFocus(id)}
      onMouseLeave={() => onFocus(null)}
      onFocus={() => onFocus(id)}
      onBlur={() => onFocus(null)}
      onClick={() => onSelect(id)}
      onKeyDown={onKeyDown}
    >
      <div className="flex flex-col justify-center px-2 font-mono text-[11px] leading-tight text-zinc-500 tabular-nums dark:text-zinc-400">
        <span>{time}</span>
        {link ? (
          <span className="font-sans text-[10px] font-semibold text-sky-700 dark:text-sky-300" data-testid="timeline-link-marker">
            {link === "parent" ? `▲ ${t("timeline.link.parent")}` : `▼ ${t("timeline.link.child")}`}
          </span>
        ) : null}
      </div>
      <div className={`relative h-12 ${style.text}`}>
        {/* Sender dot. */}
        <span
          aria-hidden
          className="absolute top-[28px] h-2.5 w-2.5 -translate-x-1/2 -translate-y-1/2 rounded-full bg-current ring-2 ring-white dark:ring-zinc-900"
          style={{ left: `${from}%` }}
        />
        {self ? (
          <span
            aria-hidden
            className={`absolute top-[20px] h-4 w-6 rounded-r-full border-2 border-l-0 ${style.line}`}
            style={{ left: `${from}%` }}
          />
        ) : (
          <>
            <span aria-hidden className={`absolute top-[27px] border-t-2 ${style.line}`} style={{ left: `${left}%`, width: `${right - left}%` }} />
            {targets.map((x) => (
              <ArrowHead key={x} x={x} pointsRight={x > from} />
            ))}
            {targets.length > 1
              ? targets.map((x) => (
                  <span
                    key={`tick-${x}`}
                    aria-hidden
                    className="absolute top-[28px] h-1.5 w-px -translate-y-1/2 bg-current"
                    style={{ left: `${x}%` }}
                  />
                ))
              : null}
          </>
        )}
        {/*
          The label sits over the arrow's middle (a self-arrow's lane), yet always whole inside
          the row: the two spacers share the room the label leaves in the ratio of that point, so
          a label of the first or last lane is moved in from the edge rather than cut by it.
        */}
        <span className="absolute inset-x-0 top-[3px] z-10 flex">
          <span aria-hidden style={{ flexGrow: labelAt }} />
          <span
            className="flex shrink-0 items-center gap-1 whitespace-nowrap rounded bg-white/90 px-1 text-xs leading-5 text-zinc-900 dark:bg-zinc-900/90 dark:text-zinc-100"
            data-testid="timeline-arrow-label"
          >
            {conflict ? (
              <span className={`rounded px-1 text-[10px] font-semibold uppercase ${CONFLICT_BADGE}`} data-testid="timeline-conflict-badge">
                ⚖ {t("timeline.conflict")}
              </span>
            ) : null}
            <code className="font-mono font-medium">{record.action}</code>
            <span className={`rounded px-1 text-[10px] font-medium ${style.chip}`}>{typeLabel(type, t)}</span>
            {tone ? (
              <span className={`rounded px-1 text-[10px] font-semibold uppercase ${STATUS_BADGE[tone]}`} data-testid="timeline-status-badge" data-tone={tone}>
                {statusLabel(record.status, t)}
              </span>
            ) : null}
          </span>
          <span aria-hidden style={{ flexGrow: 100 - labelAt }} />
        </span>
      </div>
    </div>
  );
}
