import { describe, expect, it } from "vitest";
import { capToolOutput } from "./cap";

describe("@/lib/workspace/cap", () => {
  it("is the structure-aware cap: JSON stays JSON, text gets a marker", () => {
    const json = JSON.stringify({ matches: Array.from({ length: 500 }, (_, i) => ({ path: `f${i}.ts`, line: i + 1, text: "atomic" })) });
    const out = capToolOutput(json, 1000);
    expect(out.length).toBeLessThanOrEqual(1000);
    expect((JSON.parse(out) as { matches: unknown[] }).matches.at(-1)).toMatch(/^…\[\d+ more items not shown\]$/);
    expect(capToolOutput("x".repeat(2000), 100)).toMatch(/^x+\n…\[truncated: \d+ more characters\]$/);
  });
});
