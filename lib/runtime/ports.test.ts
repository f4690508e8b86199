import { describe, expect, it } from "vitest";
import type { TimelineRecord } from "@/lib/protocol";
import type { AstrionApp } from "@/lib/server/app";
import { limitsFromEnv } from "./config";
import type { EngineBus, EngineStorage } from "./ports";
import { TeamState } from "./team/state";

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
    const app = { root: "/nonexistent-astrion-root", store: null, roles: null } as unknown as AstrionApp;
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

/** A storage whose changes become durable only when the test says so (a slow disk, under control). */
function slowDurability() {
  let made = 0;
  let durable = 0;
  let failed: Error | null = null;
  let waiters: Array<{ mark: number; resolve: () => void; reject: (e: Error) => void }> = [];
  const settle = () => {
    waiters = waiters.filter((w) => (w.mark <= durable ? (w.resolve(), false) : failed ? (w.reject(failed), false) : true));
  };
  return {
    durability: {
      get durableMark() {
        return made;
      },
      isDurable: (mark: number) => durable >= mark,
      whenDurable: (mark = made) => (durable >= mark ? Promise.resolve() : failed ? Promise.reject(failed) : new Promise<void>((resolve, reject) => waiters.push({ mark, resolve, reject }))),
    },
    change: () => void made++,
    commit: () => {
      durable = made;
      settle();
    },
    fail: (error: Error) => {
      failed = error;
      settle();
    },
  };
}

describe("the engine's outbox", () => {
  function state() {
    const ports = recordingPorts();
    const slow = slowDurability();
    const app = { root: "/nonexistent-astrion-root", store: null, roles: null } as unknown as AstrionApp;
    const s = new TeamState(app, "conv_outbox", limitsFromEnv({}), { storage: { ...ports.storage, durability: () => slow.durability }, bus: ports.bus });
    const types = () => ports.published.map((p) => (p.event as { type: string; text?: string }).text ?? (p.event as { type: string }).type);
    return { s, slow, types };
  }
  const delta = (text: string) => ({ type: "delta" as const, agent_id: 1, kind: "content" as const, text });

  it("publishes an event only once every change made before it is durable, and keeps the order", async () => {
    const { s, slow, types } = state();
    s.publish(delta("a")); // nothing pending: at once
    expect(types()).toEqual(["a"]);
    slow.change();
    s.publish(delta("b"));
    slow.change();
    s.publish(delta("c"));
    await new Promise((r) => setImmediate(r));
    expect(types()).toEqual(["a"]);
    let acknowledged = false;
    const ack = s.durable().then(() => (acknowledged = true));
    await new Promise((r) => setImmediate(r));
    expect(acknowledged).toBe(false);
    slow.commit();
    await ack;
    expect(types()).toEqual(["a", "b", "c"]);
    // With events still waiting, a new one waits behind them even when its own changes are durable.
    slow.change();
    s.publish(delta("d"));
    slow.commit();
    s.publish(delta("e"));
    await s.durable();
    expect(types()).toEqual(["a", "b", "c", "d", "e"]);
  });

  it("drops the waiting events when the storage fails, and refuses the acknowledgement", async () => {
    const { s, slow, types } = state();
    slow.change();
    s.publish(delta("lost"));
    const ack = s.durable();
    slow.fail(new Error("disk failed"));
    await expect(ack).rejects.toThrow(/disk failed/);
    await new Promise((r) => setImmediate(r));
    expect(types()).toEqual([]);
  });
});
