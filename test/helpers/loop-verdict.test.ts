import { describe, expect, it } from "vitest";
import { startLoopProbe } from "./loop-probe";
import { loopVerdict, type ProbeWindow, type ServerSecond } from "./loop-verdict";

const T = Date.parse("2026-12-03T06:00:10.000Z");
const at = (ms: number) => new Date(T + ms).toISOString();
const second = (ms: number, max: number, extra: Partial<ServerSecond> = {}): ServerSecond => ({ at: at(ms), max_ms: max, cpu_ms: 400, gc_ms: 5, gc_max_ms: 3, ...extra });
const probe = (stalls: Array<[number, number]>, from = -60_000, to = 60_000): ProbeWindow => ({ startedAt: T + from, now: T + to, stalls: stalls.map(([ms, late]) => ({ at: T + ms, late_ms: late })) });

describe("whose fault a late second was", () => {
  it("no second over the budget is ok, whatever the probe saw", () => {
    const v = loopVerdict([second(0, 40), second(1000, 200)], probe([[500, 900]]), 200);
    expect(v.kind).toBe("ok");
    expect(v.late).toEqual([]);
  });

  it("a late server beside a probe on time is the app's, and the message puts the figures side by side", () => {
    const v = loopVerdict([second(0, 30), second(1000, 226, { cpu_ms: 980, gc_ms: 12, gc_max_ms: 8 })], probe([[700, 22]]), 200);
    expect(v.kind).toBe("app");
    expect(v.late).toHaveLength(1);
    expect(v.late[0]).toMatchObject({ max_ms: 226, probe_ms: 22, cause: "app" });
    expect(v.message).toContain("server 226 ms late (cpu 980 ms, gc 12 ms, longest gc 8 ms, longest gap ? ms with ? ms of the main thread's cpu), idle probe 22 ms late → the app held its own loop");
  });

  it("a probe held as long in the same second is the machine's", () => {
    const v = loopVerdict([second(1000, 234)], probe([[900, 220]]), 200);
    expect(v.kind).toBe("machine");
    expect(v.late[0]!.cause).toBe("machine");
    expect(v.message).toContain("idle probe 220 ms late → the machine held both");
  });

  it("a stall that began in the second before and ended in this one counts (the delay spans seconds)", () => {
    expect(loopVerdict([second(1000, 300)], probe([[50, 280]]), 200).kind).toBe("machine");
  });

  it("a probe stall too short to explain the server's is not an excuse", () => {
    // at least half the server's delay, and its excess over the budget (226 here)
    expect(loopVerdict([second(1000, 426)], probe([[800, 200]]), 200).kind).toBe("app");
    expect(loopVerdict([second(1000, 426)], probe([[800, 225]]), 200).kind).toBe("app");
    expect(loopVerdict([second(1000, 426)], probe([[800, 226]]), 200).kind).toBe("machine");
    expect(loopVerdict([second(1000, 300)], probe([[800, 150]]), 200).kind).toBe("machine");
    // and at least the server's excess over the budget
    expect(loopVerdict([second(1000, 500)], probe([[800, 290]]), 200).kind).toBe("app");
    expect(loopVerdict([second(1000, 500)], probe([[800, 300]]), 200).kind).toBe("machine");
  });

  it("a probe stall at another time is not an excuse", () => {
    expect(loopVerdict([second(5000, 250)], probe([[1000, 400], [8000, 400]]), 200).kind).toBe("app");
  });

  it("with no probe record for that time, the second is the app's", () => {
    const late = [second(1000, 250)];
    expect(loopVerdict(late, null, 200).late[0]!.probe_ms).toBeNull();
    expect(loopVerdict(late, null, 200).kind).toBe("app");
    // the probe started after that second's delay could have begun, or answered before it ended
    expect(loopVerdict(late, probe([[900, 300]], 500), 200).kind).toBe("app");
    expect(loopVerdict(late, probe([[900, 300]], -60_000, 900), 200).message).toContain("idle probe no record");
  });

  it("one second of the app's among the machine's fails the attack", () => {
    const v = loopVerdict([second(1000, 250), second(4000, 260)], probe([[900, 240]]), 200);
    expect(v.kind).toBe("app");
    expect(v.late.map((s) => s.cause)).toEqual(["machine", "app"]);
    expect(v.message.split("\n")).toHaveLength(2);
  });
});

describe("a late second the server spent waiting", () => {
  it("is the machine's when the main thread's own CPU in its longest gap fitted the budget", () => {
    const waited = loopVerdict([second(1000, 212, { longest_gap_ms: 220, longest_gap_cpu_ms: 120 })], probe([[900, 20]]), 200);
    expect(waited.kind).toBe("machine");
    expect(waited.late[0]!.why).toBe("waited");
    expect(waited.message).toContain("longest gap 220 ms with 120 ms of the main thread's cpu), idle probe 20 ms late → the server waited: its own work in that gap fitted the budget");
  });

  it("is the app's when the thread computed longer than the budget in that gap", () => {
    const v = loopVerdict([second(1000, 212, { longest_gap_ms: 220, longest_gap_cpu_ms: 205 })], probe([[900, 20]]), 200);
    expect(v.kind).toBe("app");
  });

  it("does not excuse a late second by a shorter gap (the late one is not the gap measured)", () => {
    expect(loopVerdict([second(1000, 250, { longest_gap_ms: 120, longest_gap_cpu_ms: 10 })], probe([[900, 20]]), 200).kind).toBe("app");
  });
});

describe("the idle probe process", () => {
  it("records a stall when the machine holds it (stopped with SIGSTOP for 300 ms), with when it ended", async () => {
    const p = await startLoopProbe();
    try {
      // the record must cover the second before the stall too
      await new Promise((r) => setTimeout(r, 1500));
      const before = Date.now();
      process.kill(p.pid, "SIGSTOP");
      await new Promise((r) => setTimeout(r, 300));
      process.kill(p.pid, "SIGCONT");
      await new Promise((r) => setTimeout(r, 100));
      const record = await p.record();
      const stall = record.stalls.find((s) => s.at >= before && s.late_ms >= 250);
      expect(stall, JSON.stringify(record.stalls)).toBeDefined();
      expect(record.startedAt).toBeLessThan(before);
      // judged beside a server second that was held the same 300 ms, it is the machine's
      const v = loopVerdict([{ at: new Date(stall!.at).toISOString(), max_ms: 310 }], record, 200);
      expect(v.kind).toBe("machine");
    } finally {
      await p.stop();
    }
    await expect(p.record()).rejects.toThrow(/not running/);
  });
});
