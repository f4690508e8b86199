/**
 * The timeline view's model: which lanes to draw, where each envelope's arrow starts and ends,
 * the traces a person can filter by, and which rows are linked by `turn_id`. Pure: no I/O, no
 * React, unit-tested beside it.
 */
import { agentIdOfParty, ALL_PARTY, LEADER_PARTY, SYSTEM_PARTY, USER_PARTY } from "@/lib/contracts/envelope";
import type { TimelineRecord } from "@/lib/contracts/timeline-record";

/** What a lane stands for; the view names the fixed ones in the reader's language. */
type LaneKind = "user" | "leader" | "agent" | "system" | "other";

/** One swimlane: a participant of the conversation. */
export interface Lane {
  /** The party address (`user`, `leader`, `agent:3`, `system`, …). */
  party: string;
  kind: LaneKind;
  /** Sub-agent id for `agent` lanes, else null. */
  agentId: number | null;
  /** A sub-agent's display name when known, or the raw party of an `other` lane; null for the fixed lanes. */
  name: string | null;
  /** A sub-agent's role id when known. */
  roleId: string | null;
}

/** What the view knows of a sub-agent (from the live snapshot). */
export interface AgentInfo {
  agent_id: number;
  display_name: string;
  role_id: string;
}

/**
 * The lanes, left to right: the person, the Team Leader, every sub-agent by id (those in the
 * snapshot and any other the records mention), any other party, and the system last, so the
 * conversation reads from the person outwards and code-made events sit at the edge.
 */
export function buildLanes(records: readonly TimelineRecord[], agents: readonly AgentInfo[]): Lane[] {
  const byId = new Map<number, AgentInfo>();
  for (const a of agents) byId.set(a.agent_id, a);
  const agentIds = new Set(byId.keys());
  const others: string[] = [];
  // People of a team (`person:<id>`, issue 32) are named by the author their envelopes carry.
  const people = new Map<string, string | null>();
  const fixed = new Set([USER_PARTY, LEADER_PARTY, SYSTEM_PARTY, ALL_PARTY]);
  for (const r of records) {
    for (const party of [r.from_agent, r.to_agent]) {
      if (fixed.has(party)) continue;
      if (party.startsWith("person:")) {
        const named = r.from_agent === party ? (r.envelope.author?.name ?? null) : null;
        if (!people.get(party)) people.set(party, named);
        continue;
      }
      const id = agentIdOfParty(party);
      if (id !== null) agentIds.add(id);
      else if (!others.includes(party)) others.push(party);
    }
  }
  const lanes: Lane[] = [
    { party: USER_PARTY, kind: "user", agentId: null, name: null, roleId: null },
    ...[...people].map(([party, name]): Lane => ({ party, kind: "other", agentId: null, name: name ?? party, roleId: null })),
    { party: LEADER_PARTY, kind: "leader", agentId: null, name: null, roleId: null },
  ];
  for (const id of [...agentIds].sort((a, b) => a - b)) {
    const info = byId.get(id);
    lanes.push({ party: `agent:${id}`, kind: "agent", agentId: id, name: info?.display_name ?? null, roleId: info?.role_id ?? null });
  }
  for (const party of others) lanes.push({ party, kind: "other", agentId: null, name: party, roleId: null });
  lanes.push({ party: SYSTEM_PARTY, kind: "system", agentId: null, name: null, roleId: null });
  return lanes;
}

/** Where one record's arrow goes, as lane indexes. */
export interface ArrowGeometry {
  from: number;
  /** Receiving lanes: one for a direct message, several for a broadcast; empty when nobody else receives it. */
  to: number[];
}

/**
 * The arrow of `record` over `lanes`. A broadcast to `all` points at the recipients it names
 * (`payload.recipients`, agent ids) or, without that list, at the leader and every sub-agent
 * except the sender. A message to oneself or to an unknown party has no receiving lane.
 */
export function arrowOf(record: TimelineRecord, lanes: readonly Lane[]): ArrowGeometry {
  const index = new Map(lanes.map((l, i) => [l.party, i] as const));
  const from = index.get(record.from_agent) ?? 0;
  if (record.to_agent === ALL_PARTY) {
    const recipients = record.envelope.payload.recipients;
    let parties: string[];
    if (Array.isArray(recipients) && recipients.length > 0) {
      parties = recipients.filter((r): r is number => typeof r === "number").map((id) => `agent:${id}`);
    } else {
      parties = lanes.filter((l) => l.kind === "agent" || l.kind === "leader").map((l) => l.party);
    }
    const to = [...new Set(parties.map((p) => index.get(p)).filter((i): i is number => i !== undefined && i !== from))].sort((a, b) => a - b);
    return { from, to };
  }
  const to = index.get(record.to_agent);
  return { from, to: to === undefined || to === from ? [] : [to] };
}

/** One trace a person can filter by. */
export interface TraceOption {
  trace_id: string;
  /** The first characters of the user message that started it, or null when the timeline lacks it. */
  preview: string | null;
  /** Time of its first record. */
  started_at: string;
  /** Records in it. */
  count: number;
}

/** How many characters of a user message a trace option shows. */
const PREVIEW_CHARS = 60;

/** `text` cut to `max` characters (with an ellipsis) on one line. */
export function preview(text: string, max = PREVIEW_CHARS): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1).trimEnd()}…` : line;
}

/** The traces present, in the order they started, each named by its first user message. */
export function traceOptions(records: readonly TimelineRecord[]): TraceOption[] {
  const traces = new Map<string, TraceOption>();
  for (const r of records) {
    let option = traces.get(r.trace_id);
    if (!option) {
      option = { trace_id: r.trace_id, preview: null, started_at: r.timestamp, count: 0 };
      traces.set(r.trace_id, option);
    }
    option.count += 1;
    // A person's message is audited as {preview, sha256, length}; timelines written before that hold the text.
    const content = r.envelope.payload.content;
    const text = typeof content === "string" ? content : typeof (content as { preview?: unknown } | null)?.preview === "string" ? (content as { preview: string }).preview : null;
    // A trace a person's intervention started (a new task, a queued message) is named by it too.
    const starts = r.action === "user_message" || (r.action === "intervention" && r.parent_turn_id === null);
    if (option.preview === null && starts && text !== null) option.preview = preview(text);
  }
  return [...traces.values()];
}

/** The records of one trace, or all of them when `traceId` is null. */
export function filterByTrace(records: readonly TimelineRecord[], traceId: string | null): TimelineRecord[] {
  return traceId === null ? [...records] : records.filter((r) => r.trace_id === traceId);
}

/** The people who did something in `records` (their envelopes' authors), in order of first appearance. */
export function personOptions(records: readonly TimelineRecord[]): Array<{ id: string; name: string }> {
  const seen = new Map<string, string>();
  for (const r of records) {
    const author = r.envelope.author;
    if (author && !seen.has(author.id)) seen.set(author.id, author.name);
  }
  return [...seen].map(([id, name]) => ({ id, name }));
}

/** Only what person `personId` did (null: everyone). */
export function filterByPerson(records: readonly TimelineRecord[], personId: string | null): TimelineRecord[] {
  return personId === null ? [...records] : records.filter((r) => r.envelope.author?.id === personId);
}

/** How a row relates to the focused one: it is the focused row's cause, or one of its answers. */
export type LinkKind = "parent" | "child";

/**
 * The rows linked to `focus` by turn ids, by message id: its request (the record whose `turn_id`
 * is the focus's `parent_turn_id`) and its replies and follow-ups (records whose
 * `parent_turn_id` is the focus's `turn_id`).
 */
export function linkedRows(records: readonly TimelineRecord[], focus: TimelineRecord | null): Map<string, LinkKind> {
  const links = new Map<string, LinkKind>();
  if (!focus) return links;
  for (const r of records) {
    if (r.envelope.message_id === focus.envelope.message_id) continue;
    if (focus.parent_turn_id !== null && r.turn_id === focus.parent_turn_id) links.set(r.envelope.message_id, "parent");
    else if (r.parent_turn_id === focus.turn_id) links.set(r.envelope.message_id, "child");
  }
  return links;
}

/** How loudly a status is marked: red for refusals and failures, amber for things held back. */
export type StatusTone = "danger" | "warning" | null;

const QUIET_STATUSES: ReadonlySet<string> = new Set(["ok", "queued", "delivered"]);
const DANGER_STATUSES: ReadonlySet<string> = new Set(["refused", "failed", "denied", "rejected", "error"]);

/**
 * The tone of a record's status. Statuses this view does not know (the governance layer adds
 * some) are marked amber rather than hidden, so nothing unusual passes unseen.
 */
export function statusTone(status: string): StatusTone {
  if (QUIET_STATUSES.has(status)) return null;
  return DANGER_STATUSES.has(status) ? "danger" : "warning";
}

/** True for an arbitration record of the shared context (seed 003 §4.3). */
export function isConflict(record: TimelineRecord): boolean {
  return record.action === "conflict_resolution";
}

/** A row of the view: a record, or a divider where a new trace begins (only when showing all traces). */
export type ViewItem = { kind: "record"; record: TimelineRecord } | { kind: "trace"; trace: TraceOption };

/**
 * The rows to draw: the records in order, with a divider naming the trace wherever the trace
 * changes, so interleaved runs stay readable when no filter is set.
 */
export function viewItems(records: readonly TimelineRecord[], traces: readonly TraceOption[], withDividers: boolean): ViewItem[] {
  const byId = new Map(traces.map((t) => [t.trace_id, t] as const));
  const items: ViewItem[] = [];
  let current: string | null = null;
  for (const record of records) {
    if (withDividers && record.trace_id !== current) {
      const trace = byId.get(record.trace_id);
      if (trace) items.push({ kind: "trace", trace });
    }
    current = record.trace_id;
    items.push({ kind: "record", record });
  }
  return items;
}
