/**
 * The browser's copy of one conversation's live state, rebuilt from the runtime's SSE stream:
 * the last `snapshot` plus every change applied to it, the live text of model calls in progress
 * and the sub-agent messages that arrived since the snapshot. Pure: no I/O, unit-tested beside it.
 */
import type { TimelineRecord } from "@/lib/contracts/timeline-record";
import type { RuntimeEvent, ConversationSnapshot } from "@/lib/contracts/events";
import type { AgentStatus, ConversationPhase, Message } from "@/lib/contracts/on-disk";
import { hasOwnKey } from "@/lib/own";

/** Text streamed by one model call that is still running (not saved yet). */
export interface LiveText {
  content: string;
  reasoning: string;
  tool_call: string;
  /** Output of a sub-agent's command still running (`run_command`), its last {@link LIVE_COMMAND_MAX} characters. */
  command?: string;
}

/** Characters of a running command's live output kept in the browser (the saved result holds the capped whole). */
export const LIVE_COMMAND_MAX = 20_000;

/** Key of the live text of the leader (`leader`) or a sub-agent (`agent_<id>`). */
type LiveKey = "leader" | `agent_${number}`;

/** The live state of one conversation. */
export interface LiveState {
  /** Null until the first snapshot arrives. */
  snapshot: ConversationSnapshot | null;
  /** Bumped on every snapshot, so views that fetched extra data (an agent's messages) refetch. */
  epoch: number;
  live: Partial<Record<LiveKey, LiveText>>;
  /** Sub-agent messages received since the last snapshot, by agent id, in arrival order. */
  agentMessages: Record<number, Message[]>;
  /**
   * Timeline records received since the last snapshot, in arrival order. The timeline view
   * fetches the file once per `epoch` and appends these (deduplicated by message id).
   */
  timeline: TimelineRecord[];
}

/** The state before anything arrived. */
export const initialLiveState: LiveState = { snapshot: null, epoch: 0, live: {}, agentMessages: {}, timeline: [] };

/** The live-text key of an agent id (`null` = the leader). */
function liveKey(agentId: number | null): LiveKey {
  return agentId === null ? "leader" : `agent_${agentId}`;
}

/**
 * A stable identity for a message, to drop duplicates when the same message reaches us twice
 * (fetched and streamed). Messages without ids fall back to their whole content.
 */
function messageKey(message: Message): string {
  if (message.message_id) return `id:${message.message_id}`;
  if (message.role === "tool" && message.tool_call_id) return `tool:${message.tool_call_id}`;
  return `raw:${JSON.stringify([message.role, message.content, message.tool_calls ?? null])}`;
}

/** `base` followed by the messages of `extra` it does not already hold. */
export function mergeMessages(base: readonly Message[], extra: readonly Message[]): Message[] {
  if (extra.length === 0) return [...base];
  const seen = new Set(base.map(messageKey));
  const merged = [...base];
  for (const m of extra) {
    const key = messageKey(m);
    if (seen.has(key)) continue;
    seen.add(key);
    merged.push(m);
  }
  return merged;
}

function withoutLive(live: LiveState["live"], key: LiveKey): LiveState["live"] {
  if (!hasOwnKey(live, key)) return live;
  const next = { ...live };
  delete next[key];
  return next;
}

const ACTIVE_AGENT_STATUSES: ReadonlySet<AgentStatus> = new Set(["running"]);

/** Applies one runtime event. Events that arrive before the first snapshot are ignored. */
export function applyRuntimeEvent(state: LiveState, event: RuntimeEvent): LiveState {
  if (event.type === "snapshot") {
    return { snapshot: event.snapshot, epoch: state.epoch + 1, live: {}, agentMessages: {}, timeline: [] };
  }
  const snap = state.snapshot;
  if (!snap) return state;

  switch (event.type) {
    case "phase":
      return { ...state, snapshot: { ...snap, conversation: { ...snap.conversation, phase: event.phase } } };
    case "leader_busy":
      return {
        ...state,
        snapshot: { ...snap, leader: { ...snap.leader, busy: event.busy } },
        live: event.busy ? state.live : withoutLive(state.live, "leader"),
      };
    case "delta": {
      const key = liveKey(event.agent_id);
      const current = state.live[key] ?? { content: "", reasoning: "", tool_call: "" };
      return { ...state, live: { ...state.live, [key]: { ...current, [event.kind]: current[event.kind] + event.text } } };
    }
    case "command_output": {
      const key = liveKey(event.agent_id);
      const current = state.live[key] ?? { content: "", reasoning: "", tool_call: "" };
      return { ...state, live: { ...state.live, [key]: { ...current, command: ((current.command ?? "") + event.text).slice(-LIVE_COMMAND_MAX) } } };
    }
    case "message": {
      const live = withoutLive(state.live, liveKey(event.agent_id));
      if (event.agent_id === null) {
        return { ...state, live, snapshot: { ...snap, leader: { ...snap.leader, messages: mergeMessages(snap.leader.messages, [event.message]) } } };
      }
      const list = state.agentMessages[event.agent_id] ?? [];
      return { ...state, live, agentMessages: { ...state.agentMessages, [event.agent_id]: mergeMessages(list, [event.message]) } };
    }
    case "agent": {
      const id = event.agent.metadata.agent_id;
      const exists = snap.agents.some((a) => a.metadata.agent_id === id);
      const agents = exists
        ? snap.agents.map((a) => (a.metadata.agent_id === id ? event.agent : a))
        : [...snap.agents, event.agent];
      const live = ACTIVE_AGENT_STATUSES.has(event.agent.metadata.status) ? state.live : withoutLive(state.live, liveKey(id));
      return { ...state, live, snapshot: { ...snap, agents } };
    }
    case "question":
      if (snap.questions.some((q) => q.question_id === event.question.question_id)) return state;
      return { ...state, snapshot: { ...snap, questions: [...snap.questions, event.question] } };
    case "question_answered":
      return { ...state, snapshot: { ...snap, questions: snap.questions.filter((q) => q.question_id !== event.question_id) } };
    case "usage":
      return { ...state, snapshot: { ...snap, leader: { ...snap.leader, token_statistics: event.token_statistics } } };
    case "notice":
      return { ...state, snapshot: { ...snap, notices: [...snap.notices, event.notice] } };
    case "queue":
      return { ...state, snapshot: { ...snap, queued: event.queued } };
    case "timeline":
      if (state.timeline.some((r) => r.envelope.message_id === event.record.envelope.message_id)) return state;
      return { ...state, timeline: [...state.timeline, event.record] };
  }
}

/**
 * The stream reconnected. The server replays what was missed from the id it last sent, except
 * live text (it is never kept): pieces streamed meanwhile are gone, so the text held now would
 * read as whole when it has a hole. It is dropped; the text streamed from now on shows, and the
 * saved message, which the replay or a later event brings, holds the whole of it.
 */
export function applyReconnect(state: LiveState): LiveState {
  return Object.keys(state.live).length === 0 ? state : { ...state, live: {} };
}

const IDLE_PHASES: ReadonlySet<ConversationPhase> = new Set(["IDLE", "CLOSED"]);

/** True while anything works: a phase other than IDLE/CLOSED, a busy leader or a running agent. */
export function isWorking(snapshot: ConversationSnapshot | null): boolean {
  if (!snapshot) return false;
  const phase = snapshot.conversation.phase ?? "IDLE";
  return (
    !IDLE_PHASES.has(phase) ||
    snapshot.leader.busy ||
    snapshot.agents.some((a) => a.metadata.status === "running")
  );
}
