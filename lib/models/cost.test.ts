import { describe, expect, it } from "vitest";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { cachedInputTokens, callCostUsd, formatUsd } from "./cost";
import { StreamAccumulator } from "./stream";

const usage = (prompt: number, completion: number, cached?: number) => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: prompt + completion,
  ...(cached === undefined ? {} : { cached_tokens: cached }),
});

describe("callCostUsd", () => {
  it("prices uncached input, cached input and output apart, per million tokens", () => {
    // 1,000 input of which 400 cached, 200 output at $2 / $0.5 / $8 per million:
    // 600 × 2 + 400 × 0.5 + 200 × 8 = 1,200 + 200 + 1,600 = 3,000 per million = $0.003.
    expect(callCostUsd(usage(1_000, 200, 400), { input: 2, cached_input: 0.5, output: 8 })).toBe(0.003);
    // Without cached tokens every input token is at the input price.
    expect(callCostUsd(usage(1_000, 200), { input: 2, cached_input: 0.5, output: 8 })).toBe(0.0036);
  });

  it("prices cached input at the input price when the entry gives no cached_input", () => {
    expect(callCostUsd(usage(1_000, 0, 400), { input: 2, output: 8 })).toBe(0.002);
  });

  it("never counts more cached tokens than input tokens", () => {
    expect(callCostUsd(usage(100, 0, 5_000), { input: 10, cached_input: 1, output: 0 })).toBe(0.0001);
  });

  it("is null, not 0, without prices, without an input or output price, or without usage", () => {
    expect(callCostUsd(usage(1_000, 200), undefined)).toBeNull();
    expect(callCostUsd(usage(1_000, 200), null)).toBeNull();
    expect(callCostUsd(usage(1_000, 200), {})).toBeNull();
    expect(callCostUsd(usage(1_000, 200), { input: 2 })).toBeNull();
    expect(callCostUsd(usage(1_000, 200), { output: 8, cached_input: 1 })).toBeNull();
    expect(callCostUsd(null, { input: 2, output: 8 })).toBeNull();
  });

  it("is 0 for a model whose prices are 0 (a free tier is a price, not a missing one)", () => {
    expect(callCostUsd(usage(1_000, 200), { input: 0, output: 0 })).toBe(0);
  });

  it("keeps sums readable: no binary fraction noise", () => {
    expect(callCostUsd(usage(3, 0), { input: 0.1, output: 0 })).toBe(0.0000003);
  });
});

describe("cachedInputTokens", () => {
  it("reads OpenAI's prompt_tokens_details.cached_tokens and DeepSeek's prompt_cache_hit_tokens", () => {
    expect(cachedInputTokens({ prompt_tokens_details: { cached_tokens: 1_024 } })).toBe(1_024);
    expect(cachedInputTokens({ prompt_cache_hit_tokens: 640 })).toBe(640);
    expect(cachedInputTokens({ prompt_tokens_details: { cached_tokens: 0 }, prompt_cache_hit_tokens: 7 })).toBe(0);
  });

  it("is undefined when neither field is there or it is not a count", () => {
    expect(cachedInputTokens({})).toBeUndefined();
    expect(cachedInputTokens(null)).toBeUndefined();
    expect(cachedInputTokens({ prompt_tokens_details: null })).toBeUndefined();
    expect(cachedInputTokens({ prompt_cache_hit_tokens: "12" })).toBeUndefined();
    expect(cachedInputTokens({ prompt_cache_hit_tokens: -3 })).toBeUndefined();
  });
});

describe("the stream's usage chunk", () => {
  const chunk = (u: Record<string, unknown>) => ({ id: "c", object: "chat.completion.chunk", created: 0, model: "m", choices: [], usage: u }) as unknown as ChatCompletionChunk;

  it("carries the cached input tokens of either field into the call's usage", () => {
    const openai = new StreamAccumulator("m");
    openai.add(chunk({ prompt_tokens: 900, completion_tokens: 50, total_tokens: 950, prompt_tokens_details: { cached_tokens: 512 } }), () => {});
    expect(openai.result().usage).toEqual({ prompt_tokens: 900, completion_tokens: 50, total_tokens: 950, cached_tokens: 512 });
    const deepseek = new StreamAccumulator("m");
    deepseek.add(chunk({ prompt_tokens: 900, completion_tokens: 50, total_tokens: 950, prompt_cache_hit_tokens: 300, prompt_cache_miss_tokens: 600 }), () => {});
    expect(deepseek.result().usage).toEqual({ prompt_tokens: 900, completion_tokens: 50, total_tokens: 950, cached_tokens: 300 });
    const plain = new StreamAccumulator("m");
    plain.add(chunk({ prompt_tokens: 9, completion_tokens: 1, total_tokens: 10 }), () => {});
    expect(plain.result().usage).toEqual({ prompt_tokens: 9, completion_tokens: 1, total_tokens: 10 });
  });
});

describe("formatUsd", () => {
  it("writes small amounts with their significant digits, cents above a dollar", () => {
    expect(formatUsd(0.0042, "en")).toBe("$0.0042");
    expect(formatUsd(0.0000031, "en")).toBe("$0.0000031");
    expect(formatUsd(0.4213, "en")).toBe("$0.4213");
    expect(formatUsd(0.5, "en")).toBe("$0.50");
    expect(formatUsd(12.3, "en")).toBe("$12.30");
    expect(formatUsd(1234.5, "en")).toBe("$1,234.50");
    expect(formatUsd(0, "en")).toBe("$0.00");
  });

  it("writes dollars as the Chinese locale does", () => {
    expect(formatUsd(0.0042, "zh-CN")).toBe("US$0.0042");
    expect(formatUsd(1234.5, "zh-CN")).toBe("US$1,234.50");
  });
});
