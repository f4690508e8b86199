/**
 * The takeover scan's own rules, over a lifecycle that lists given leases (the query itself is
 * tested on a real cluster: test/backends/pg-takeover-scan.test.ts): the runs a dead instance
 * left are resumed several at once, longest expired first; one another instance took first is
 * not counted, and a failure is told once however many scans retry it.
 */
import { describe, expect, it } from "vitest";
import { startTakeover } from "./takeover";

const lease = (id: string, n: number) => ({ id, owner: "dead", expiredAt: new Date(Date.UTC(2026, 0, 1, 0, 0, n)) });

function quietLog() {
  const errors: string[] = [];
  const infos: string[] = [];
  return { errors, infos, log: { info: (m: string) => void infos.push(m), error: (m: string) => void errors.push(m) } };
}

describe("the takeover scan", () => {
  it("resumes the runs a dead instance left several at once, starting with the longest expired", async () => {
    const leases = Array.from({ length: 12 }, (_, i) => lease(`conv_20260101_000000_${String(i + 1).padStart(3, "0")}`, i));
    const started: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { log } = quietLog();
    const scan = startTakeover({
      lifecycle: { orphaned: async () => [...leases] },
      // Every resume waits until several are under way at once: one at a time, none would end.
      resume: async (id) => {
        started.push(id);
        if (started.length === 4) release();
        await gate;
      },
      everyMs: 60_000,
      log,
    });
    const taken = await scan.scan();
    await scan.stop();
    expect(taken).toBe(12);
    expect(started.slice(0, 4)).toEqual(leases.slice(0, 4).map((l) => l.id));
    expect(new Set(started).size).toBe(12);
  });

  it("does not count a run another instance took first, and tells a failure once across scans", async () => {
    const { log, errors, infos } = quietLog();
    const held = Object.assign(new Error("held"), { name: "LeaseHeldError" });
    const scan = startTakeover({
      lifecycle: { orphaned: async () => [lease("conv_20260101_000000_001", 1), lease("conv_20260101_000000_002", 2), lease("conv_20260101_000000_003", 3)] },
      resume: async (id) => {
        if (id.endsWith("001")) throw held;
        if (id.endsWith("002")) throw new Error("the project folder is gone");
      },
      everyMs: 60_000,
      log,
    });
    expect(await scan.scan()).toBe(1);
    expect(await scan.scan()).toBe(1);
    await scan.stop();
    expect(errors).toEqual(["[astrion] could not take over conv_20260101_000000_002 from instance dead: the project folder is gone"]);
    // Two scans: the one started at once (the first call joins it) and the second.
    expect(infos.filter((m) => m.includes("conv_20260101_000000_003"))).toHaveLength(2);
  });
});
