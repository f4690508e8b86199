import { describe, expect, it } from "vitest";
import { eventLoopReport, startEventLoopMonitor } from "./event-loop";

describe("the event-loop monitor", () => {
  it("records the largest delay of each second: a 300 ms block shows", async () => {
    startEventLoopMonitor();
    await new Promise((r) => setTimeout(r, 1100));
    const end = Date.now() + 300;
    while (Date.now() < end) {
      // block the event loop on purpose
    }
    await new Promise((r) => setTimeout(r, 2100));
    const report = eventLoopReport();
    expect(report.window_s).toBe(60);
    expect(report.max_ms_per_second.length).toBeGreaterThanOrEqual(3);
    expect(report.max_ms).toBeGreaterThanOrEqual(250);
    expect(report.max_ms).toBe(Math.max(...report.max_ms_per_second.map((s) => s.max_ms)));
    // quiet seconds record the sampling timer's own small lateness, not the block
    expect(report.max_ms_per_second.filter((s) => s.max_ms < 250).length).toBeGreaterThanOrEqual(1);
  });
});
