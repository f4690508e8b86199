import { describe, expect, it } from "vitest";
import { countTokens, MESSAGE_OVERHEAD, messageTokens, truncateToTokens } from "./tokens";

describe("countTokens", () => {
  it("counts with the real o200k tokenizer", () => {
    expect(countTokens("hello world")).toBe(2);
    expect(countTokens("")).toBe(0);
    expect(countTokens(null)).toBe(0);
    // CJK text costs more than one token per few characters; a rough character count would be wrong
    expect(countTokens("请为项目设计前端配色方案")).toBeGreaterThan(3);
  });

  it("treats special-token text in a file as plain text instead of throwing", () => {
    expect(() => countTokens("before <|endoftext|> after")).not.toThrow();
    expect(countTokens("before <|endoftext|> after")).toBeGreaterThan(3);
  });

  it("gives the same answer from the cache", () => {
    const text = "x ".repeat(1000);
    expect(countTokens(text)).toBe(countTokens(text));
  });
});

describe("messageTokens", () => {
  it("adds the per-message overhead and the tool calls", () => {
    const plain = messageTokens({ role: "user", content: "hello world" });
    expect(plain).toBe(2 + MESSAGE_OVERHEAD);
    const call = messageTokens({ role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "read_file", arguments: '{"path":"a.ts"}' } }] });
    expect(call).toBeGreaterThan(MESSAGE_OVERHEAD + 5);
  });
});

describe("truncateToTokens", () => {
  const note = (kept: number, total: number) => ` [${kept}/${total}]`;

  it("returns a fitting text unchanged", () => {
    expect(truncateToTokens("short text", 100, note)).toBe("short text");
  });

  it("cuts to the limit, note included, keeping the start", () => {
    const text = Array.from({ length: 2000 }, (_, i) => `word${i}`).join(" ");
    const cut = truncateToTokens(text, 100, note)!;
    expect(countTokens(cut)).toBeLessThanOrEqual(100);
    expect(cut.startsWith("word0 word1")).toBe(true);
    expect(cut).toMatch(/\[\d+\/\d+\]$/);
  });

  it("never leaves a broken character when cutting CJK text", () => {
    const cut = truncateToTokens("配色方案设计🎨".repeat(300), 50, note)!;
    expect(cut).not.toContain("\uFFFD");
    expect(countTokens(cut)).toBeLessThanOrEqual(50);
  });

  it("returns null when not even the note fits", () => {
    expect(truncateToTokens("a ".repeat(100), 1, note)).toBeNull();
  });
});
