import { describe, expect, it } from "vitest";
import { capToolOutput } from "./cap";

describe("capToolOutput", () => {
  it("leaves short text alone", () => {
    expect(capToolOutput("", 0)).toBe("");
    expect(capToolOutput("hello", 5)).toBe("hello");
    expect(capToolOutput("hello", 100)).toBe("hello");
  });

  it("cuts long text and says how much is missing", () => {
    expect(capToolOutput("hello world", 5)).toBe("hello\n…[truncated: 6 more characters]");
    expect(capToolOutput("abc", 0)).toBe("\n…[truncated: 3 more characters]");
    const big = "x".repeat(100_000);
    const capped = capToolOutput(big, 4000);
    expect(capped.startsWith("x".repeat(4000))).toBe(true);
    expect(capped.endsWith("\n…[truncated: 96000 more characters]")).toBe(true);
  });

  it("never splits a surrogate pair", () => {
    const text = "ab🎨cd"; // 🎨 is two UTF-16 units at indexes 2 and 3
    expect(capToolOutput(text, 3)).toBe("ab\n…[truncated: 4 more characters]");
    expect(capToolOutput(text, 4)).toBe("ab🎨\n…[truncated: 2 more characters]");
  });

  it("refuses a nonsensical limit", () => {
    expect(() => capToolOutput("x", -1)).toThrow(RangeError);
    expect(() => capToolOutput("x", 1.5)).toThrow(RangeError);
  });
});
