import { describe, expect, it } from "vitest";
import { eventLoopReport, startEventLoopMonitor } from "./event-loop";

describe("the event-loop monitor", () => {
  it("records the largest delay of each second, with the CPU time and GC pauses of that second: a 300 ms block shows", async () => {
    startEventLoopMonitor();
    await new Promise((r) => setTimeout(r, 1100));
    const end = Date.now() + 300;
    let garbage: number[][] = [];
    while (Date.now() < end) {
      // block the event loop on purpose, making garbage as it goes
      garbage.push(Array.from({ length: 1000 }, (_, i) => i));
      if (garbage.length > 1000) garbage = [];
    }
    await new Promise((r) => setTimeout(r, 2100));
    const report = eventLoopReport();
    expect(report.window_s).toBe(60);
    expect(report.max_ms_per_second.length).toBeGreaterThanOrEqual(3);
    expect(report.max_ms).toBeGreaterThanOrEqual(250);
    expect(report.max_ms).toBe(Math.max(...report.max_ms_per_second.map((s) => s.max_ms)));
    // quiet seconds record the sampling timer's own small lateness, not the block
    expect(report.max_ms_per_second.filter((s) => s.max_ms < 250).length).toBeGreaterThanOrEqual(1);
    // the blocked second was spent on the CPU, and the garbage it made was collected in it
    const blocked = report.max_ms_per_second.find((s) => s.max_ms >= 250)!;
    expect(blocked.cpu_ms).toBeGreaterThanOrEqual(250);
    expect(blocked.gc_ms).toBeGreaterThan(0);
    expect(blocked.gc_max_ms).toBeLessThanOrEqual(blocked.gc_ms!);
    const quiet = report.max_ms_per_second.at(-1)!;
    expect(quiet.cpu_ms).toBeLessThan(250);
  });
});
