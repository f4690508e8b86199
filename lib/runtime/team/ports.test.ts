import { describe, expect, it } from "vitest";
import type { TimelineRecord } from "@/lib/protocol";
import type { EngineDeps } from "./deps";
import { limitsFromEnv } from "./config";
import type { EngineBus, EngineStorage } from "./ports";
import { TeamState } from "./state";

/** A storage and a bus that only record what the engine asks of them: another backend's stand-in. */
function recordingPorts() {
  const timeline: Array<{ convId: string; record: TimelineRecord }> = [];
  const journal = new Map<string, string>();
  const published: Array<{ topic: string; event: unknown }> = [];
  const storage: EngineStorage = {
    conversations: {} as EngineStorage["conversations"],
    appendTimeline: async (convId, record) => void timeline.push({ convId, record }),
    appendContextReport: async () => undefined,
    durability: () => null,
    journal: () => ({
      state: async (key) => (journal.has(key) ? { status: "done", result: journal.get(key)! } : { status: "none" }),
      started: async () => undefined,
      done: async (key, result) => void journal.set(key, result),
    }),
  };
  const bus: EngineBus = { publish: (topic, event) => void published.push({ topic, event }), subscribe: () => () => undefined };
  return { storage, bus, timeline, journal, published };
}

describe("the engine's ports", () => {
  it("writes the timeline and publishes through the ports it is given, not the file store or the process bus", async () => {
    const ports = recordingPorts();
    // No data folder, no store: a run state with other ports needs neither.
    const app = { root: "/nonexistent-astrion-root", store: null, roles: null } as unknown as EngineDeps;
    const state = new TeamState(app, "conv_ports", limitsFromEnv({}), ports);
    state.lastTrace = { trace_id: "trace_0123456789abcdef", turn_id: "turn_0123456789abcdef" };
    await state.emitNow({ type: "event", from: "system", to: "leader", payload: { x: 1 }, action: "probe", resource: "conversation:conv_ports" });
    state.notice("info", "stopped", "notice.msg.stopped");
    expect(ports.timeline).toHaveLength(1);
    expect(ports.timeline[0]!.convId).toBe("conv_ports");
    expect(ports.timeline[0]!.record.action).toBe("probe");
    expect(ports.published.map((p) => [p.topic, (p.event as { type: string }).type])).toEqual([
      ["conv:conv_ports", "timeline"],
      ["conv:conv_ports", "notice"],
    ]);
    await state.journal.done("agent:1:call_1", "ok");
    expect(await state.journal.state("agent:1:call_1")).toEqual({ status: "done", result: "ok" });
    expect(ports.journal.get("agent:1:call_1")).toBe("ok");
  });
});


describe("the engine's events and the storage's durability", () => {
  it("holds an event until the storage says the changes made before it are durable, and answers a request only then", async () => {
    const ports = recordingPorts();
    let made = 0;
    let durable = 0;
    const waiters: Array<() => void> = [];
    const storage = {
      ...ports.storage,
      durability: () => ({ durableMark: made, isDurable: (m: number) => durable >= m, whenDurable: (m = made) => (durable >= m ? Promise.resolve() : new Promise<void>((r) => waiters.push(r))) }),
    };
    const app = { root: "/nonexistent-astrion-root", store: null, roles: null } as unknown as EngineDeps;
    const state = new TeamState(app, "conv_held", limitsFromEnv({}), { storage, bus: ports.bus });
    made = 1; // a change the storage has not made durable yet
    state.notice("info", "stopped", "notice.msg.stopped");
    const answered = state.durable();
    await new Promise((r) => setImmediate(r));
    expect(ports.published).toEqual([]);
    durable = 1;
    for (const w of waiters.splice(0)) w();
    await answered;
    expect(ports.published.map((p) => (p.event as { type: string }).type)).toEqual(["notice"]);
  });
});
