import { describe, expect, it } from "vitest";
import type { SliceReport } from "@/lib/context/report";
import { contextReportOf, formatRanges, sliceUsage } from "./context-view";

const report: SliceReport = {
  kind: "leader",
  tokenizer: "o200k_base",
  system_tokens: 120,
  total_tokens: 900,
  global: { budget: 500, used: 40, over_budget: false, lines: [{ label: "goal", preview: "Improve it", tokens: 4, included: true }] },
  private: { budget: 300, used: 0, over_budget: false, lines: [] },
  scene: {
    budget: 3000,
    used: 700,
    over_budget: false,
    items: [{ index: 12, role: "user", weight: "instruction", tokens: 8, preview: "Do it" }],
    dropped_ranges: [[0, 9]],
    dropped_count: 10,
    placeholders: 1,
    instruction_index: 12,
  },
};

describe("contextReportOf", () => {
  it("reads the report saved on a message", () => {
    expect(contextReportOf({ message_source: "leader", context: report })).toEqual(report);
  });

  it("is null for a message without one, or with one it cannot read", () => {
    expect(contextReportOf(undefined)).toBeNull();
    expect(contextReportOf({ message_source: "leader" })).toBeNull();
    expect(contextReportOf({ context: { ...report, scene: { budget: -1 } } })).toBeNull();
  });
});

describe("sliceUsage", () => {
  it("is the used share of the budget", () => {
    expect(sliceUsage(250, 1000)).toEqual({ percent: 25, over: false });
    expect(sliceUsage(1000, 1000)).toEqual({ percent: 100, over: false });
  });

  it("caps the bar and marks a slice over its budget", () => {
    expect(sliceUsage(1500, 1000)).toEqual({ percent: 100, over: true });
    expect(sliceUsage(10, 1000, true)).toEqual({ percent: 1, over: true });
  });

  it("handles a zero budget", () => {
    expect(sliceUsage(0, 0)).toEqual({ percent: 0, over: false });
    expect(sliceUsage(5, 0)).toEqual({ percent: 100, over: true });
  });
});

describe("formatRanges", () => {
  it("writes single messages and ranges", () => {
    expect(formatRanges([[0, 9], [12, 12], [15, 20]])).toBe("#0–#9, #12, #15–#20");
    expect(formatRanges([])).toBe("");
  });
});
