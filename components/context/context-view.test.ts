import { describe, expect, it } from "vitest";
import { summarizeReport, type SliceReport } from "@/lib/context/report";
import { contextSummaryOf, formatRanges, sliceUsage } from "./context-view";

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

describe("contextSummaryOf", () => {
  it("reads the totals saved on a message", () => {
    const summary = summarizeReport(report);
    expect(summary).toEqual({
      tokenizer: "o200k_base",
      total_tokens: 900,
      global: { used: 40, budget: 500, over_budget: false },
      private: { used: 0, budget: 300, over_budget: false },
      scene: { used: 700, budget: 3000, over_budget: false, sent: 1, dropped_count: 10 },
    });
    expect(contextSummaryOf({ message_source: "leader", context: summary })).toEqual(summary);
  });

  it("keeps a message small: no lines, items or previews", () => {
    expect(JSON.stringify(summarizeReport(report))).not.toMatch(/preview|items|lines/);
  });

  it("is null for a message without one, or with one it cannot read", () => {
    expect(contextSummaryOf(undefined)).toBeNull();
    expect(contextSummaryOf({ message_source: "leader" })).toBeNull();
    expect(contextSummaryOf({ context: { tokenizer: "x" } })).toBeNull();
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
