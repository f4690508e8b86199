/**
 * The two state machines of a conversation (SPEC §3, seed 003 §4.1): the conversation phase and
 * each sub-agent's status. Every phase or status change in the runtime goes through this module,
 * so an impossible change (a terminated agent running again, a closed conversation waking up)
 * is a typed error at the call site instead of a corrupt file. Pure: no I/O.
 *
 * Phase is kept as a function of facts: the runtime calls {@link derivePhase} with the agents'
 * statuses and whether the leader is busy, and {@link reconcilePhase} moves the stored phase
 * there through the transition table, so the phase shown never drifts from what is happening.
 */
import { AstrionError } from "@/lib/contracts/errors";
import type { AgentStatus, ConversationPhase } from "@/lib/contracts/on-disk";

/** Every conversation phase, in the seed's order. */
export const PHASES = ["IDLE", "ENGAGED", "WAITING", "RESPONDING", "HANDOFF", "CLOSED"] as const satisfies readonly ConversationPhase[];

/** Every sub-agent status, in the seed's order. */
export const AGENT_STATUSES = ["running", "waiting", "idle", "completed", "terminated"] as const satisfies readonly AgentStatus[];

/**
 * Phase events. Each names the phase it leads to, except `settle` (work ran out → IDLE) and
 * `reopen` (CLOSED → IDLE, the only way out of CLOSED).
 */
export const PHASE_EVENTS = ["engage", "wait", "respond", "handoff", "settle", "close", "reopen"] as const;
/** A phase event. */
export type PhaseEvent = (typeof PHASE_EVENTS)[number];

/**
 * Legal phase transitions: `PHASE_TRANSITIONS[from][event]` is the next phase; a missing entry is
 * illegal. Self-transitions are absent on purpose: "nothing changed" is not a transition.
 *
 * - IDLE waits for an instruction: a user message engages the leader; a person messaging an
 *   agent directly makes it respond or hands it a task.
 * - ENGAGED (the leader splits the task), WAITING, RESPONDING and HANDOFF reach each other as
 *   facts change, and settle to IDLE when nothing is left to do.
 * - Neither IDLE nor ENGAGED goes straight to WAITING: only a running agent can ask, so the
 *   phase passes through RESPONDING first. Such a jump means a status change skipped
 *   {@link reconcilePhase}, which is the bug this table exists to catch.
 * - CLOSED ends the conversation; only an explicit reopen leads back to IDLE.
 */
export const PHASE_TRANSITIONS: Readonly<Record<ConversationPhase, Readonly<Partial<Record<PhaseEvent, ConversationPhase>>>>> = {
  IDLE: { engage: "ENGAGED", respond: "RESPONDING", handoff: "HANDOFF", close: "CLOSED" },
  ENGAGED: { respond: "RESPONDING", handoff: "HANDOFF", settle: "IDLE", close: "CLOSED" },
  WAITING: { engage: "ENGAGED", respond: "RESPONDING", handoff: "HANDOFF", settle: "IDLE", close: "CLOSED" },
  RESPONDING: { engage: "ENGAGED", wait: "WAITING", handoff: "HANDOFF", settle: "IDLE", close: "CLOSED" },
  HANDOFF: { engage: "ENGAGED", wait: "WAITING", respond: "RESPONDING", settle: "IDLE", close: "CLOSED" },
  CLOSED: { reopen: "IDLE" },
};

/**
 * Sub-agent events:
 * - `ask`: `ask_master` was called; the agent waits for the leader or a person.
 * - `answer`: its pending question was answered; it runs again.
 * - `pause`: it stopped without reporting (a person pressed Stop, or its turn ended with nothing
 *   pending); it is idle until a message arrives.
 * - `assign`: a new task or message is delivered to an idle or completed agent.
 * - `complete`: it called `report_to_leader`.
 * - `terminate`: the leader or a person ended it; final.
 */
export const AGENT_EVENTS = ["ask", "answer", "pause", "assign", "complete", "terminate"] as const;
/** A sub-agent event. */
export type AgentEvent = (typeof AGENT_EVENTS)[number];

/** Status of a sub-agent when it is created: it starts on its task at once. */
export const INITIAL_AGENT_STATUS: AgentStatus = "running";

/**
 * Legal sub-agent transitions: `AGENT_TRANSITIONS[from][event]` is the next status; a missing
 * entry is illegal. `terminated` is final. A waiting agent can only be answered or terminated, so
 * a pending question is never silently dropped.
 */
const AGENT_TRANSITIONS: Readonly<Record<AgentStatus, Readonly<Partial<Record<AgentEvent, AgentStatus>>>>> = {
  running: { ask: "waiting", pause: "idle", complete: "completed", terminate: "terminated" },
  waiting: { answer: "running", terminate: "terminated" },
  idle: { assign: "running", terminate: "terminated" },
  completed: { assign: "running", terminate: "terminated" },
  terminated: {},
};

/** Which machine refused a transition. */
export type StateMachineName = "phase" | "agent";

/** A state change that the transition table does not allow. Answered as 409 Conflict. */
export class IllegalTransitionError extends AstrionError {
  readonly machine: StateMachineName;
  readonly from: string;
  readonly event: string;

  constructor(machine: StateMachineName, from: string, event: string, allowed: readonly string[]) {
    const what = machine === "phase" ? "conversation phase" : "agent status";
    super(
      "conflict",
      `Illegal ${what} transition: "${event}" from ${from}` +
        (allowed.length ? ` (allowed: ${allowed.join(", ")})` : ` (${from} is final)`),
      { machine, from, event, allowed },
    );
    this.machine = machine;
    this.from = from;
    this.event = event;
  }
}

/** Events legal from `from` (for UIs and error messages). */
function allowedPhaseEvents(from: ConversationPhase): PhaseEvent[] {
  return PHASE_EVENTS.filter((event) => PHASE_TRANSITIONS[from][event] !== undefined);
}

/** Events legal from `from` (for UIs and error messages). */
export function allowedAgentEvents(from: AgentStatus): AgentEvent[] {
  return AGENT_EVENTS.filter((event) => AGENT_TRANSITIONS[from][event] !== undefined);
}

/**
 * The phase after `event`.
 * @throws IllegalTransitionError when `event` is not legal from `from`.
 */
export function transitionPhase(from: ConversationPhase, event: PhaseEvent): ConversationPhase {
  const to = PHASE_TRANSITIONS[from]?.[event];
  if (to === undefined) throw new IllegalTransitionError("phase", from, event, allowedPhaseEvents(from));
  return to;
}

/**
 * The agent status after `event`.
 * @throws IllegalTransitionError when `event` is not legal from `from` (always, from `terminated`).
 */
export function transitionAgent(from: AgentStatus, event: AgentEvent): AgentStatus {
  const to = AGENT_TRANSITIONS[from]?.[event];
  if (to === undefined) throw new IllegalTransitionError("agent", from, event, allowedAgentEvents(from));
  return to;
}

/** True when `event` is legal from `from`. */
export function canTransitionPhase(from: ConversationPhase, event: PhaseEvent): boolean {
  return PHASE_TRANSITIONS[from]?.[event] !== undefined;
}

/** True when `event` is legal from `from`. */
export function canTransitionAgent(from: AgentStatus, event: AgentEvent): boolean {
  return AGENT_TRANSITIONS[from]?.[event] !== undefined;
}

/** True for a status an agent never leaves. */
export function isFinalAgentStatus(status: AgentStatus): boolean {
  return allowedAgentEvents(status).length === 0;
}

/** Facts beyond the agents' statuses that decide the phase. */
export interface PhaseFacts {
  /** Tasks or messages handed to an agent and not yet picked up by it. Default 0. */
  handoffs?: number;
  /** The conversation was closed. Default false. */
  closed?: boolean;
}

/**
 * The phase the facts describe. Precedence, most telling first:
 * CLOSED (closed) → RESPONDING (an agent is producing output: work is moving) → HANDOFF (a task is
 * in flight between agents) → WAITING (someone waits for an answer and nothing else moves) →
 * ENGAGED (only the leader works) → IDLE. Idle, completed and terminated agents count for nothing.
 */
export function derivePhase(
  agentStatuses: Iterable<AgentStatus>,
  leaderBusy: boolean,
  facts: PhaseFacts = {},
): ConversationPhase {
  if (facts.closed) return "CLOSED";
  let running = false;
  let waiting = false;
  for (const status of agentStatuses) {
    if (status === "running") running = true;
    else if (status === "waiting") waiting = true;
  }
  if (running) return "RESPONDING";
  if ((facts.handoffs ?? 0) > 0) return "HANDOFF";
  if (waiting) return "WAITING";
  if (leaderBusy) return "ENGAGED";
  return "IDLE";
}

/** The event that leads from `from` to `to`, or null when the table has no such edge. */
export function phaseEventBetween(from: ConversationPhase, to: ConversationPhase): PhaseEvent | null {
  const row = PHASE_TRANSITIONS[from];
  return PHASE_EVENTS.find((event) => row[event] === to) ?? null;
}

/**
 * Moves `current` to `target` (usually {@link derivePhase}'s answer) through the table.
 * Returns `current` unchanged when they are equal.
 * @throws IllegalTransitionError when the table has no edge from `current` to `target`.
 */
export function reconcilePhase(current: ConversationPhase, target: ConversationPhase): ConversationPhase {
  if (current === target) return current;
  const event = phaseEventBetween(current, target);
  if (event === null) {
    throw new IllegalTransitionError("phase", current, `→${target}`, allowedPhaseEvents(current));
  }
  return transitionPhase(current, event);
}
