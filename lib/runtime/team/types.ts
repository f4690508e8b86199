/**
 * Types and small pure helpers shared by the modules of one conversation's team run
 * (lib/runtime/team/*): the keys the runtime adds to the seed's files, and the text helpers of
 * its messages. Pure: no I/O.
 */
import { LEADER_PARTY, USER_PARTY, type Envelope } from "@/lib/protocol";
import { MessageSchema, type AgentFailure, type AgentMetadata, type ConversationPhase, type Message } from "@/lib/store";
import { PHASE_TRANSITIONS } from "./state-machine";
import type { Author } from "@/lib/contracts/people";

/** The display name the leader has in inter-agent messages (seed). */
export { LEADER_DISPLAY_NAME } from "@/lib/contracts/messages";

/** Keys this runtime adds to a sub-agent's metadata.json (allowed: the schemas are loose). */
interface AgentExtras {
  /** Model calls made for the current task (the cap counts these; survives restarts). */
  calls_this_task?: number;
  /** The trace and the task envelope's turn, so reports reply to their task. */
  trace_id?: string;
  task_turn_id?: string;
  /** Whether the agent reported on its current task. */
  reported?: boolean;
  permissions?: string[];
  /** The file tools the agent's role offered when it was created (its `tools:` mapped); absent for agents made before. */
  file_tools?: string[];
  /** False for work the leader's answer does not wait for (partial results are reported without it). */
  critical?: boolean;
  /** `DEGRADED` while the agent's model keeps failing (seed 003 §6.1). */
  health?: "OK" | "DEGRADED";
  /** Set when an internal error ended the agent's loop; cleared by its next task. */
  failure?: AgentFailure;
  /** The idempotency key of the `create_sub_agent` call that made this agent. */
  effect_key?: string;
  /** Tool calls a person approved that have not run yet (the gate lets each through once). */
  approved_tool_calls?: string[];
  /** A person withdrew the agent's task (issue 32): set until its loop has told it and stopped it. */
  task_withdrawn?: { task_id: string; by: string; at: string };
  /** The ability call this agent is working on: its report goes back to the caller (lib/runtime/team/abilities.ts). */
  ability_request?: AbilityRequest;
}

/** An ability call an agent works on, kept in its metadata until it replies (survives a restart). */
export interface AbilityRequest {
  /** The call's idempotency key (`agent:<caller>:<tool_call_id>`). */
  key: string;
  /** The task id the request was delivered under (`task_NNN`). */
  request_id: string;
  caller_agent_id: number;
  caller_display_name: string;
  tool_call_id: string;
  tool_name: string;
  role_id: string;
  ability: string;
  /** The declared output schema the reply must match, as it was when the call was made. */
  output?: Record<string, unknown>;
  /** The request envelope's trace and turn, so the reply envelope answers it. */
  trace_id: string;
  turn_id: string;
}

/** A sub-agent's metadata with the runtime's keys. */
export type AgentMeta = AgentMetadata & AgentExtras;

/**
 * Whether an agent is at work, counting against its role's `max_concurrency`: running or waiting,
 * except one running only the last step of a turn in which it already reported.
 */
export function atWork(a: AgentMeta): boolean {
  if (a.status === "waiting") return true;
  return a.status === "running" && !(a.reported === true && !a.ability_request);
}

/**
 * Why a person cancelled a model call in flight (the abort reason of the call's own controller):
 * an interrupt, or a withdrawn task.
 */
export class CallCancel extends Error {
  readonly kind: "interrupt" | "withdraw";
  readonly author: Author | undefined;
  constructor(kind: "interrupt" | "withdraw", author: Author | undefined) {
    super(kind === "interrupt" ? "interrupted by a person" : "the task was withdrawn");
    this.name = "CallCancel";
    this.kind = kind;
    this.author = author;
  }
}

/** Whether an abort reason is a {@link CallCancel}. */
export function isCallCancel(reason: unknown): reason is CallCancel {
  return reason instanceof CallCancel;
}

/** Who sends a message to a sub-agent. */
export interface Sender {
  name: string;
  agentId: number | null;
  party: string;
  abbrev: string;
  /** A person sending (issue 32): who, kept on the envelope. */
  author?: Author;
}

/** The leader's inbox in its messages.json metadata (parsed; anything unreadable is ignored). */
export function leaderInbox(metadata: Record<string, unknown> | undefined): Message[] {
  const raw = metadata?.pending_inbox;
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((m) => {
    const parsed = MessageSchema.safeParse(m);
    return parsed.success ? [parsed.data] : [];
  });
}

/**
 * The request the leader's conversation is at (issue 32: requests can run beside each other): the
 * trace of its last message that has one, with the turn of that request's first message that
 * names its turn (the person's message); `known` when the caller knows the request already (the
 * inbox turn's). Undefined when no message has a trace.
 */
export function workingTrace(messages: readonly Message[], known?: string): { trace_id: string; turn_id: string | null } | undefined {
  let trace: string | undefined = known;
  for (let i = messages.length - 1; i >= 0 && !trace; i--) {
    const t = messages[i]!.metadata?.trace_id;
    if (typeof t === "string" && messages[i]!.role !== "system") trace = t;
  }
  if (!trace) return undefined;
  const first = messages.find((m) => m.metadata?.trace_id === trace && typeof m.metadata?.turn_id === "string");
  return { trace_id: trace, turn_id: (first?.metadata?.turn_id as string | undefined) ?? null };
}

/** A tool result that is an error the model can read. */
export function errorResult(message: string): string {
  return JSON.stringify({ error: message });
}

/** True for a tool result made by {@link errorResult}. */
export function isErrorResult(result: string): boolean {
  return result.startsWith('{"error"');
}

/** Text on one line, cut to `max` characters. */
export function summarize(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** A message id: a prefix, the time and a random tail. */
export function messageId(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
}

/**
 * An envelope standing for the request that started a trace, rebuilt from its saved ids. Only a
 * cause: what is recorded is the envelope built from it (`follow`, `replyTo`), which copies its
 * ids and is checked whole as it is built, so this one is not checked on its own.
 */
export function traceCause(traceId: string, turnId: string): Envelope {
  return {
    message_id: `msg_${turnId.slice(5)}`,
    trace_id: traceId,
    turn_id: turnId,
    parent_turn_id: null,
    type: "request",
    from: USER_PARTY,
    to: LEADER_PARTY,
    priority: "normal",
    created_at: new Date().toISOString(),
    payload: {},
    meta: {},
  };
}

/** The shortest path of phases from `from` to `to` through the transition table (BFS). */
export function phasePath(from: ConversationPhase, to: ConversationPhase): ConversationPhase[] | null {
  if (from === to) return [];
  const prev = new Map<ConversationPhase, ConversationPhase>();
  const queue: ConversationPhase[] = [from];
  const seen = new Set<ConversationPhase>([from]);
  while (queue.length) {
    const at = queue.shift()!;
    for (const next of Object.values(PHASE_TRANSITIONS[at]) as ConversationPhase[]) {
      if (seen.has(next)) continue;
      seen.add(next);
      prev.set(next, at);
      if (next === to) {
        const pathOut: ConversationPhase[] = [to];
        let p = at;
        while (p !== from) {
          pathOut.unshift(p);
          p = prev.get(p)!;
        }
        return pathOut;
      }
      queue.push(next);
    }
  }
  return null;
}
