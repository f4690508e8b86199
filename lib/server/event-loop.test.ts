import { describe, expect, it } from "vitest";
import { eventLoopReport, startEventLoopMonitor } from "./event-loop";

describe("the event-loop monitor", () => {
  it("records the largest delay of each second, with the CPU time and GC pauses of that second: a 300 ms block shows", async () => {
    startEventLoopMonitor();
    await new Promise((r) => setTimeout(r, 1100));
    // 300 ms of the process's own CPU time (not wall time: a loaded machine may hold the process)
    const start = process.cpuUsage();
    const cpuMs = () => {
      const used = process.cpuUsage(start);
      return (used.user + used.system) / 1000;
    };
    let garbage: number[][] = [];
    while (cpuMs() < 300) {
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
    // the block's CPU time is in the second its delay was recorded in and the ones just before (300
    // ms of CPU straddle two seconds, more when other processes hold the cores and the block takes
    // longer in wall time), and so is the collection of the garbage it made
    const i = report.max_ms_per_second.findIndex((s) => s.max_ms >= 250);
    const around = report.max_ms_per_second.slice(Math.max(0, i - 3), i + 1);
    expect(around.reduce((n, s) => n + s.cpu_ms!, 0)).toBeGreaterThanOrEqual(290);
    expect(around.reduce((n, s) => n + s.gc_ms!, 0)).toBeGreaterThan(0);
    for (const s of around) expect(s.gc_max_ms).toBeLessThanOrEqual(s.gc_ms!);
    // the block is the second's longest gap between ticks, and the main thread computed through it
    // a second's delay is never less than what its longest gap says the sampling timer came late by
    for (const s of report.max_ms_per_second) expect(s.max_ms).toBeGreaterThanOrEqual(Math.round((s.longest_gap_ms! - 10) * 10) / 10 - 0.1);
    const blocked = report.max_ms_per_second[i]!;
    expect(blocked.longest_gap_ms).toBeGreaterThanOrEqual(blocked.max_ms - 10);
    expect(blocked.longest_gap_cpu_ms).toBeGreaterThanOrEqual(250);
    const quiet = report.max_ms_per_second.at(-1)!;
    expect(quiet.cpu_ms).toBeLessThan(250);
  });
});
