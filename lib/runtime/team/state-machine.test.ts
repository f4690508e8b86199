import { describe, expect, it } from "vitest";
import { AstrionError } from "@/lib/contracts/errors";
import type { AgentStatus, ConversationPhase } from "@/lib/contracts/on-disk";
import { AgentStatusSchema, ConversationPhaseSchema } from "@/lib/contracts/on-disk";
import {
  AGENT_EVENTS,
  AGENT_STATUSES,
  allowedAgentEvents,
  canTransitionAgent,
  canTransitionPhase,
  derivePhase,
  IllegalTransitionError,
  INITIAL_AGENT_STATUS,
  isFinalAgentStatus,
  PHASE_EVENTS,
  PHASES,
  phaseEventBetween,
  reconcilePhase,
  transitionAgent,
  transitionPhase,
  type AgentEvent,
  type PhaseEvent,
} from "./state-machine";

/** The expected phase edges, written out independently of the module's table. */
const PHASE_EDGES: Array<[ConversationPhase, PhaseEvent, ConversationPhase]> = [
  ["IDLE", "engage", "ENGAGED"],
  ["IDLE", "respond", "RESPONDING"],
  ["IDLE", "handoff", "HANDOFF"],
  ["IDLE", "close", "CLOSED"],
  ["ENGAGED", "respond", "RESPONDING"],
  ["ENGAGED", "handoff", "HANDOFF"],
  ["ENGAGED", "settle", "IDLE"],
  ["ENGAGED", "close", "CLOSED"],
  ["WAITING", "engage", "ENGAGED"],
  ["WAITING", "respond", "RESPONDING"],
  ["WAITING", "handoff", "HANDOFF"],
  ["WAITING", "settle", "IDLE"],
  ["WAITING", "close", "CLOSED"],
  ["RESPONDING", "engage", "ENGAGED"],
  ["RESPONDING", "wait", "WAITING"],
  ["RESPONDING", "handoff", "HANDOFF"],
  ["RESPONDING", "settle", "IDLE"],
  ["RESPONDING", "close", "CLOSED"],
  ["HANDOFF", "engage", "ENGAGED"],
  ["HANDOFF", "wait", "WAITING"],
  ["HANDOFF", "respond", "RESPONDING"],
  ["HANDOFF", "settle", "IDLE"],
  ["HANDOFF", "close", "CLOSED"],
  ["CLOSED", "reopen", "IDLE"],
];

/** The expected agent edges (seed statuses), written out independently of the module's table. */
const AGENT_EDGES: Array<[AgentStatus, AgentEvent, AgentStatus]> = [
  ["running", "ask", "waiting"],
  ["running", "pause", "idle"],
  ["running", "complete", "completed"],
  ["running", "terminate", "terminated"],
  ["waiting", "answer", "running"],
  ["waiting", "terminate", "terminated"],
  ["idle", "assign", "running"],
  ["idle", "terminate", "terminated"],
  ["completed", "assign", "running"],
  ["completed", "terminate", "terminated"],
];

function catchError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

describe("state lists", () => {
  it("match the store's schemas exactly", () => {
    expect([...PHASES]).toEqual(ConversationPhaseSchema.options);
    expect([...AGENT_STATUSES]).toEqual(AgentStatusSchema.options);
  });
});

describe("conversation phase transitions", () => {
  const all = PHASES.flatMap((from) => PHASE_EVENTS.map((event) => ({ from, event })));
  const expected = new Map(PHASE_EDGES.map(([from, event, to]) => [`${from}/${event}`, to]));

  it(`covers all ${PHASES.length * PHASE_EVENTS.length} (phase, event) pairs: ${PHASE_EDGES.length} legal`, () => {
    expect(all).toHaveLength(42);
    expect(expected.size).toBe(PHASE_EDGES.length);
  });

  it.each(all)("$from + $event", ({ from, event }) => {
    const to = expected.get(`${from}/${event}`);
    expect(canTransitionPhase(from, event)).toBe(to !== undefined);
    if (to !== undefined) {
      expect(transitionPhase(from, event)).toBe(to);
    } else {
      const error = catchError(() => transitionPhase(from, event));
      expect(error).toBeInstanceOf(IllegalTransitionError);
      expect(error).toBeInstanceOf(AstrionError);
      expect(error).toMatchObject({ code: "conflict", status: 409, machine: "phase", from, event });
    }
  });

  it("CLOSED leaves only by an explicit reopen", () => {
    for (const event of PHASE_EVENTS) {
      if (event !== "reopen") expect(() => transitionPhase("CLOSED", event)).toThrow(IllegalTransitionError);
    }
    expect(transitionPhase("CLOSED", "reopen")).toBe("IDLE");
    expect((catchError(() => transitionPhase("CLOSED", "engage")) as Error).message).toMatch(/allowed: reopen/);
  });

  it("has no self-transitions", () => {
    for (const [from, , to] of PHASE_EDGES) expect(to).not.toBe(from);
  });
});

describe("agent status transitions", () => {
  const all = AGENT_STATUSES.flatMap((from) => AGENT_EVENTS.map((event) => ({ from, event })));
  const expected = new Map(AGENT_EDGES.map(([from, event, to]) => [`${from}/${event}`, to]));

  it(`covers all ${AGENT_STATUSES.length * AGENT_EVENTS.length} (status, event) pairs: ${AGENT_EDGES.length} legal`, () => {
    expect(all).toHaveLength(30);
  });

  it.each(all)("$from + $event", ({ from, event }) => {
    const to = expected.get(`${from}/${event}`);
    expect(canTransitionAgent(from, event)).toBe(to !== undefined);
    if (to !== undefined) {
      expect(transitionAgent(from, event)).toBe(to);
    } else {
      const error = catchError(() => transitionAgent(from, event));
      expect(error).toBeInstanceOf(IllegalTransitionError);
      expect(error).toMatchObject({ code: "conflict", status: 409, machine: "agent", from, event });
    }
  });

  it("terminated is final and the only final status", () => {
    expect(AGENT_STATUSES.filter(isFinalAgentStatus)).toEqual(["terminated"]);
    expect(allowedAgentEvents("terminated")).toEqual([]);
    expect((catchError(() => transitionAgent("terminated", "assign")) as Error).message).toMatch(/terminated is final/);
  });

  it("a completed agent runs again when given a new task; a waiting one when answered", () => {
    expect(transitionAgent("completed", "assign")).toBe("running");
    expect(transitionAgent("waiting", "answer")).toBe("running");
    expect(() => transitionAgent("waiting", "assign")).toThrow(IllegalTransitionError);
    expect(() => transitionAgent("running", "answer")).toThrow(IllegalTransitionError);
  });

  it("new agents start running", () => {
    expect(INITIAL_AGENT_STATUS).toBe("running");
  });
});

describe("derivePhase", () => {
  it.each<[string, AgentStatus[], boolean, { handoffs?: number; closed?: boolean }, ConversationPhase]>([
    ["nothing happening", [], false, {}, "IDLE"],
    ["only finished agents", ["completed", "terminated", "idle"], false, {}, "IDLE"],
    ["the leader splitting the task", [], true, {}, "ENGAGED"],
    ["the leader busy, agents done", ["completed"], true, {}, "ENGAGED"],
    ["an agent asking", ["waiting", "completed"], false, {}, "WAITING"],
    ["the leader answering a waiting agent", ["waiting"], true, {}, "WAITING"],
    ["an agent working", ["running"], false, {}, "RESPONDING"],
    ["one working, one asking", ["waiting", "running"], true, {}, "RESPONDING"],
    ["a task in flight", ["completed"], true, { handoffs: 1 }, "HANDOFF"],
    ["a task in flight while one waits", ["waiting"], false, { handoffs: 2 }, "HANDOFF"],
    ["a task in flight while one works", ["running"], false, { handoffs: 1 }, "RESPONDING"],
    ["closed, whatever else", ["running"], true, { handoffs: 1, closed: true }, "CLOSED"],
  ])("%s → %s", (_name, statuses, leaderBusy, facts, phase) => {
    expect(derivePhase(statuses, leaderBusy, facts)).toBe(phase);
  });

  it("accepts any iterable of statuses", () => {
    expect(derivePhase(new Set<AgentStatus>(["waiting"]), false)).toBe("WAITING");
  });
});

describe("reconcilePhase", () => {
  it("is a no-op when the phase already fits and follows the table otherwise", () => {
    for (const from of PHASES) {
      for (const to of PHASES) {
        if (from === to) {
          expect(reconcilePhase(from, to)).toBe(from);
          continue;
        }
        const event = phaseEventBetween(from, to);
        if (event) {
          expect(reconcilePhase(from, to)).toBe(to);
          expect(transitionPhase(from, event)).toBe(to);
        } else {
          expect(() => reconcilePhase(from, to)).toThrow(IllegalTransitionError);
        }
      }
    }
  });

  it("refuses to derive a closed conversation back to life, or WAITING without an agent running first", () => {
    expect(() => reconcilePhase("CLOSED", "RESPONDING")).toThrow(IllegalTransitionError);
    expect(() => reconcilePhase("IDLE", "WAITING")).toThrow(IllegalTransitionError);
    expect(() => reconcilePhase("ENGAGED", "WAITING")).toThrow(IllegalTransitionError);
  });

  it("never throws along any sequence of legal agent events (10,000 seeded random steps)", () => {
    // mulberry32: a small deterministic PRNG, so a failure is reproducible.
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
    };
    let phase: ConversationPhase = "IDLE";
    let leaderBusy = false;
    let handoffs = 0;
    let agents: AgentStatus[] = [];
    const seen = new Set<string>();
    for (let step = 0; step < 10_000; step++) {
      const action = rand(10);
      if (action <= 1) {
        leaderBusy = !leaderBusy;
      } else if (action === 2) {
        if (agents.length + handoffs < 3) handoffs++;
      } else if (action === 9) {
        // A handoff is dropped (its target was terminated before picking it up).
        if (handoffs > 0) handoffs--;
      } else if (action === 3) {
        // A handoff is picked up: by a new agent or by an existing idle/completed one.
        if (handoffs > 0) {
          handoffs--;
          const wakeable = agents.findIndex((s) => canTransitionAgent(s, "assign"));
          if (wakeable >= 0 && rand(2) === 0) agents[wakeable] = transitionAgent(agents[wakeable] ?? "idle", "assign");
          else agents.push(INITIAL_AGENT_STATUS);
        }
      } else if (agents.length > 0) {
        const i = rand(agents.length);
        const current = agents[i] ?? "idle";
        const events = allowedAgentEvents(current);
        agents[i] = transitionAgent(current, events[rand(events.length)] ?? "terminate");
        // Terminated agents count for nothing; dropping them keeps the team small and lively.
        agents = agents.filter((a) => a !== "terminated");
      }
      const before: ConversationPhase = phase;
      phase = reconcilePhase(phase, derivePhase(agents, leaderBusy, { handoffs }));
      if (before !== phase) seen.add(`${before}->${phase}`);
    }
    // The walk really exercised the machine: every edge between live phases that facts can cause.
    expect([...seen].sort()).toEqual(
      PHASE_EDGES.filter(([from, event]) => from !== "CLOSED" && event !== "close")
        .map(([from, , to]) => `${from}->${to}`)
        .sort(),
    );
  });

  it("follows a whole run: goal, delegation, question, answer, report, summary, close", () => {
    let phase: ConversationPhase = "IDLE";
    const step = (statuses: AgentStatus[], busy: boolean, handoffs = 0) => {
      phase = reconcilePhase(phase, derivePhase(statuses, busy, { handoffs }));
      return phase;
    };
    expect(step([], true)).toBe("ENGAGED"); // the user's goal reaches the leader
    expect(step([], true, 1)).toBe("HANDOFF"); // create_sub_agent hands a task over
    expect(step(["running"], true)).toBe("RESPONDING"); // the agent works
    expect(step(["waiting"], false)).toBe("WAITING"); // ask_master
    expect(step(["running"], false)).toBe("RESPONDING"); // answered
    expect(step(["completed"], true)).toBe("ENGAGED"); // the report wakes the leader
    expect(step(["completed"], false)).toBe("IDLE"); // the summary is written
    phase = transitionPhase(phase, "close");
    expect(phase).toBe("CLOSED");
    expect(() => step(["completed"], true)).toThrow(IllegalTransitionError);
    expect(transitionPhase(phase, "reopen")).toBe("IDLE");
  });
});
