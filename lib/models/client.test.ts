import { describe, expect, it } from "vitest";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { displayUrl, redactSecrets, retryAfterMs, retryDelayMs } from "./client";
import { styleThinkingParams } from "./providers/generic";
import { buildRequestBody, toOpenAIMessages } from "./request";
import { MAX_ANSWER_CHARS, StreamAccumulator } from "./stream";
import type { ChatDelta } from "./types";
import type { ModelEntry } from "./schema";

const headers = (h: Record<string, string>) => new Headers(h);

function chunk(delta: Record<string, unknown>, extra: Partial<ChatCompletionChunk> = {}): ChatCompletionChunk {
  return { id: "c", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, delta, finish_reason: null }], ...extra } as ChatCompletionChunk;
}

describe("the generic profile's thinking switch", () => {
  it("maps each thinking style", () => {
    const style = (thinking_style: ModelEntry["thinking_style"]): ModelEntry => ({ provider: "generic", model: "m", thinking_style, max_concurrency: 1 });
    expect(styleThinkingParams(style("enable_thinking"), "off")).toEqual({ enable_thinking: false });
    expect(styleThinkingParams(style("enable_thinking"), "deep")).toEqual({ enable_thinking: true });
    expect(styleThinkingParams(style("reasoning_effort"), "off")).toEqual({ reasoning_effort: "low" });
    expect(styleThinkingParams(style("reasoning_effort"), "on")).toEqual({ reasoning_effort: "medium" });
    expect(styleThinkingParams(style("reasoning_effort"), "deep")).toEqual({ reasoning_effort: "high" });
    expect(styleThinkingParams(style("none"), "deep")).toEqual({});
  });
});

describe("retry delays", () => {
  it("honours Retry-After in seconds, as an HTTP date, and retry-after-ms", () => {
    expect(retryAfterMs(headers({ "retry-after": "2" }))).toBe(2000);
    expect(retryAfterMs(headers({ "retry-after": "0.5" }))).toBe(500);
    expect(retryAfterMs(headers({ "retry-after-ms": "250", "retry-after": "9" }))).toBe(250);
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterMs(headers({ "retry-after": "Thu, 01 Jan 2026 00:00:03 GMT" }), now)).toBe(3000);
    expect(retryAfterMs(headers({ "retry-after": "soon" }))).toBeUndefined();
    expect(retryAfterMs(undefined)).toBeUndefined();
  });

  it("never waits less than Retry-After and adds at most 10% jitter", () => {
    expect(retryDelayMs(headers({ "retry-after": "1" }), 0, 100, () => 0)).toBe(1000);
    expect(retryDelayMs(headers({ "retry-after": "1" }), 0, 100, () => 0.999)).toBeLessThanOrEqual(1100);
  });

  it("gives up on a Retry-After beyond the cap", () => {
    expect(retryDelayMs(headers({ "retry-after": "3600" }), 0, 100)).toBeNull();
  });

  it("backs off exponentially with jitter when no header is given", () => {
    expect(retryDelayMs(undefined, 0, 100, () => 0.5)).toBe(100);
    expect(retryDelayMs(undefined, 3, 100, () => 0.5)).toBe(800);
    expect(retryDelayMs(undefined, 0, 100, () => 0)).toBe(75);
    expect(retryDelayMs(undefined, 0, 100, () => 0.999)).toBeLessThanOrEqual(125);
    expect(retryDelayMs(undefined, 30, 100, () => 0.5)).toBe(30_000);
  });
});

describe("secrets in messages", () => {
  it("strips credentials, queries and key-like tokens", () => {
    expect(displayUrl("https://user:pw@api.example.com/v1?key=abc")).toBe("https://api.example.com/v1");
    expect(displayUrl("not a url")).toBe("(invalid base_url)");
    const text = redactSecrets("Incorrect API key provided: sk-abc123456789. See http://u:p@h.example/v1?api_key=zzz now; Bearer xyz", ["sk-abc123456789"]);
    expect(text).not.toMatch(/sk-abc|u:p@|zzz|xyz/);
    expect(redactSecrets("my-custom-secret in text", ["my-custom-secret"])).toBe("[redacted] in text");
  });
});

describe("StreamAccumulator", () => {
  it("assembles interleaved tool calls by index and emits each piece once", () => {
    const acc = new StreamAccumulator("m");
    const deltas: ChatDelta[] = [];
    const emit = (d: ChatDelta) => deltas.push(d);
    acc.add(chunk({ role: "assistant", content: "" }), emit);
    expect(acc.emitted).toBe(false);
    acc.add(chunk({ tool_calls: [{ index: 1, id: "b", type: "function", function: { name: "second", arguments: "" } }] }), emit);
    acc.add(chunk({ tool_calls: [{ index: 0, id: "a", type: "function", function: { name: "first", arguments: '{"x"' } }] }), emit);
    // Some providers repeat the id and name (or send empty ones) in later chunks.
    acc.add(chunk({ tool_calls: [{ index: 1, id: "", function: { name: "second", arguments: '{"y":2}' } }] }), emit);
    acc.add(chunk({ tool_calls: [{ index: 0, function: { arguments: ":1}" } }] }), emit);
    acc.add(chunk({}, { choices: [{ index: 0, delta: {}, finish_reason: "tool_calls", logprobs: null }] }), emit);
    acc.add(chunk({}, { choices: [], usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12, completion_tokens_details: { reasoning_tokens: 3 } } }), emit);
    const result = acc.result();
    expect(result.tool_calls).toEqual([
      { id: "a", type: "function", function: { name: "first", arguments: '{"x":1}' } },
      { id: "b", type: "function", function: { name: "second", arguments: '{"y":2}' } },
    ]);
    expect(result.finish_reason).toBe("tool_calls");
    expect(result.usage).toEqual({ prompt_tokens: 5, completion_tokens: 7, total_tokens: 12, reasoning_tokens: 3 });
    expect(deltas.filter((d) => d.type === "tool_call" && d.name).length).toBe(2);
    expect(acc.finished).toBe(true);
  });

  it("captures reasoning_content and reasoning, and gives an id to a call that had none", () => {
    const acc = new StreamAccumulator("m");
    const deltas: ChatDelta[] = [];
    acc.add(chunk({ reasoning_content: "think " }), (d) => deltas.push(d));
    acc.add(chunk({ reasoning: "more" }), (d) => deltas.push(d));
    acc.add(chunk({ tool_calls: [{ index: 0, function: { name: "f", arguments: "{}" } }] }), (d) => deltas.push(d));
    const result = acc.result();
    expect(result.reasoning).toBe("think more");
    expect(result.tool_calls[0]?.id).toMatch(/^call_0_/);
    expect(acc.finished).toBe(false);
    expect(deltas.map((d) => d.type)).toEqual(["reasoning", "reasoning", "tool_call"]);
  });
});

describe("request body", () => {
  const entry: ModelEntry = { provider: "openai-compatible", model: "qwen3-max", thinking_style: "enable_thinking", max_concurrency: 2 };

  it("always streams with usage, adds tools with tool_choice auto and the thinking switch", () => {
    const tools = [{ type: "function" as const, function: { name: "f", description: "d", parameters: { type: "object" } } }];
    const body = buildRequestBody(entry, { messages: [{ role: "user", content: "hi" }], tools, thinking: "on" }) as unknown as Record<string, unknown>;
    expect(body).toMatchObject({ model: "qwen3-max", stream: true, stream_options: { include_usage: true }, tools, tool_choice: "auto", enable_thinking: true });
    const bare = buildRequestBody(entry, { messages: [], tools: [], thinking: "off" }) as unknown as Record<string, unknown>;
    expect(bare).not.toHaveProperty("tools");
    expect(bare).not.toHaveProperty("tool_choice");
  });

  it("keeps tool calls and tool results in the OpenAI shape", () => {
    const call = { id: "c1", type: "function" as const, function: { name: "f", arguments: "{}" } };
    expect(
      toOpenAIMessages([
        { role: "assistant", content: null, tool_calls: [call] },
        { role: "tool", content: "result", tool_call_id: "c1" },
        { role: "assistant", content: null },
        { role: "user", content: "hi", name: "alice" },
      ]),
    ).toEqual([
      { role: "assistant", content: null, tool_calls: [call] },
      { role: "tool", content: "result", tool_call_id: "c1" },
      { role: "assistant", content: "" },
      { role: "user", content: "hi", name: "alice" },
    ]);
  });
});

describe("bounded work on what an endpoint sends", () => {
  it("redacts a megabyte of URL-like text in one pass and still redacts what it should", () => {
    // Each of these made the old patterns scan to the end from every position.
    for (const hostile of ["a.".repeat(500_000), "a://".repeat(250_000), "sk-aaaaaaa".repeat(100_000), "x://x;".repeat(150_000)]) {
      expect(redactSecrets(hostile).length).toBeGreaterThan(0);
    }
    const text = redactSecrets(`${"a.".repeat(100_000)} see https://user:pw@host.example/v1?key=s3cret and sk-abcdef123456`);
    expect(text).not.toMatch(/user:pw|s3cret|sk-abcdef/);
    expect(text).toContain("https://host.example/v1");
  });

  it("cuts an answer that grows past MAX_ANSWER_CHARS", () => {
    const acc = new StreamAccumulator("m");
    const piece = "x".repeat(1_000_000);
    for (let i = 0; i < 8; i++) acc.add(chunk({ tool_calls: [{ index: 0, id: "a", function: { name: "write_file", arguments: piece } }] }), () => undefined);
    expect(() => acc.add(chunk({ content: "one more" }), () => undefined)).toThrow();
    expect(MAX_ANSWER_CHARS).toBe(8_000_000);
  });
});
