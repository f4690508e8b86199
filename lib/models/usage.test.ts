import { describe, expect, it } from "vitest";
import { addUsage, emptyTokenStatistics, normalizeTokenStatistics, tokenCountsOf, tokenTotalsOf, usageAgentKey } from "./usage";

const u = (prompt: number, completion: number) => ({ prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion });

describe("addUsage", () => {
  it("starts from the {} of a new conversation and sums per agent and per model", () => {
    let stats = addUsage({}, { agentKey: "leader", modelKey: "qwen3-max", usage: u(100, 20) });
    stats = addUsage(stats, { agentKey: "agent_1", modelKey: "qwen3-max", usage: u(50, 10) });
    stats = addUsage(stats, { agentKey: "agent_1", modelKey: "deepseek", usage: u(5, 5) });
    expect(stats.total).toEqual({ prompt_tokens: 155, cached_tokens: 0, completion_tokens: 35, total_tokens: 190, calls: 3, priced_calls: 0 });
    expect(stats.by_agent).toEqual({
      leader: { prompt_tokens: 100, cached_tokens: 0, completion_tokens: 20, total_tokens: 120, calls: 1, priced_calls: 0 },
      agent_1: { prompt_tokens: 55, cached_tokens: 0, completion_tokens: 15, total_tokens: 70, calls: 2, priced_calls: 0 },
    });
    expect(stats.by_model.deepseek).toEqual({ prompt_tokens: 5, cached_tokens: 0, completion_tokens: 5, total_tokens: 10, calls: 1, priced_calls: 0 });
    expect(stats.by_model["qwen3-max"]?.calls).toBe(2);
  });

  it("does not change its input and survives a JSON round trip with string agent keys", () => {
    const before = emptyTokenStatistics();
    const after = addUsage(before, { agentKey: usageAgentKey(3), modelKey: "m", usage: u(1, 1) });
    expect(before.total.calls).toBe(0);
    const round = JSON.parse(JSON.stringify(after));
    expect(Object.keys(round.by_agent)).toEqual(["agent_3"]);
    expect(normalizeTokenStatistics(round)).toEqual(after);
  });

  it("counts a call without usage and falls back to prompt + completion for a missing total", () => {
    let stats = addUsage(undefined, { agentKey: "leader", modelKey: "m", usage: null });
    stats = addUsage(stats, { agentKey: "leader", modelKey: "m", usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 0 } });
    expect(stats.total).toEqual({ prompt_tokens: 3, cached_tokens: 0, completion_tokens: 4, total_tokens: 7, calls: 2, priced_calls: 0 });
  });

  it("reads broken counts as zero and keeps unknown keys", () => {
    const stats = addUsage(
      { total: { prompt_tokens: "x", completion_tokens: 2, total_tokens: 2, calls: 1 }, by_agent: 7, note: "kept" },
      { agentKey: "leader", modelKey: "m", usage: u(1, 1) },
    );
    expect(stats.total).toEqual({ prompt_tokens: 1, cached_tokens: 0, completion_tokens: 3, total_tokens: 4, calls: 2, priced_calls: 0 });
    expect(stats.by_agent).toEqual({ leader: { prompt_tokens: 1, cached_tokens: 0, completion_tokens: 1, total_tokens: 2, calls: 1, priced_calls: 0 } });
    expect((stats as Record<string, unknown>).note).toBe("kept");
  });

  it("reads one statistics object once: the same object reads as the same result, and what addUsage made reads as itself", () => {
    const loaded = JSON.parse(JSON.stringify(addUsage({}, { agentKey: "leader", modelKey: "m", usage: u(1, 1) })));
    const first = normalizeTokenStatistics(loaded);
    expect(normalizeTokenStatistics(loaded)).toBe(first);
    expect(normalizeTokenStatistics(first)).toBe(first);
    const next = addUsage(first, { agentKey: "agent_1", modelKey: "m", usage: u(2, 2) });
    expect(normalizeTokenStatistics(next)).toBe(next);
    expect(first.total.calls).toBe(1);
  });

  it("names agents leader or agent_<id>", () => {
    expect(usageAgentKey(null)).toBe("leader");
    expect(usageAgentKey(undefined)).toBe("leader");
    expect(usageAgentKey(12)).toBe("agent_12");
  });
});

describe("cost in the token statistics", () => {
  const prices = { input: 2, cached_input: 0.5, output: 8 };
  const cached = (prompt: number, completion: number, cachedTokens: number) => ({ ...u(prompt, completion), cached_tokens: cachedTokens });

  it("keeps each call's cost, at its own prices, per agent, per model and in total, with cached tokens beside input", () => {
    let stats = addUsage({}, { agentKey: "leader", modelKey: "gpt", usage: cached(1_000, 200, 400), prices });
    // The prices changed before the next call: the first call keeps what it cost.
    stats = addUsage(stats, { agentKey: "agent_1", modelKey: "gpt", usage: u(1_000, 200), prices: { input: 1, output: 4 } });
    expect(stats.by_agent.leader).toMatchObject({ cached_tokens: 400, priced_calls: 1, cost_usd: 0.003 });
    expect(stats.by_agent.agent_1).toMatchObject({ cached_tokens: 0, priced_calls: 1, cost_usd: 0.0018 });
    expect(stats.by_model.gpt).toMatchObject({ prompt_tokens: 2_000, cached_tokens: 400, calls: 2, priced_calls: 2, cost_usd: 0.0048 });
    expect(stats.total).toMatchObject({ cached_tokens: 400, calls: 2, priced_calls: 2, cost_usd: 0.0048 });
  });

  it("adds tokens only for a call without prices: no cost at all, never a cost of 0", () => {
    const stats = addUsage({}, { agentKey: "leader", modelKey: "offline", usage: cached(500, 50, 100), prices: null });
    expect(stats.total.cost_usd).toBeUndefined();
    expect(stats.total).toMatchObject({ prompt_tokens: 500, cached_tokens: 100, calls: 1, priced_calls: 0 });
    expect(tokenCountsOf(stats.by_agent.leader).cost_usd).toBeNull();
    expect(tokenTotalsOf(stats)).not.toHaveProperty("cost_usd");
    expect(tokenCountsOf(undefined)).toEqual({ prompt_tokens: 0, cached_tokens: 0, completion_tokens: 0, total_tokens: 0, calls: 0, priced_calls: 0, cost_usd: null });
  });

  it("counts priced and unpriced calls apart when a conversation mixes them (a fallback without prices)", () => {
    let stats = addUsage({}, { agentKey: "leader", modelKey: "gpt", usage: u(1_000, 0), prices });
    stats = addUsage(stats, { agentKey: "leader", modelKey: "offline", usage: u(1_000, 0), prices: null });
    expect(tokenCountsOf(stats.by_agent.leader)).toMatchObject({ calls: 2, priced_calls: 1, cost_usd: 0.002 });
    expect(tokenCountsOf(stats.by_model.offline).cost_usd).toBeNull();
    expect(tokenTotalsOf(stats)).toEqual({ prompt_tokens: 2_000, cached_tokens: 0, completion_tokens: 0, total_tokens: 2_000, calls: 2, priced_calls: 1, cost_usd: 0.002 });
  });

  it("reads statistics written before costs existed, and a free model's 0 as a cost", () => {
    const old = { total: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11, calls: 1 }, by_agent: {}, by_model: {} };
    const stats = addUsage(old, { agentKey: "leader", modelKey: "free", usage: u(10, 1), prices: { input: 0, output: 0 } });
    expect(stats.total).toMatchObject({ prompt_tokens: 20, cached_tokens: 0, calls: 2, priced_calls: 1, cost_usd: 0 });
    expect(tokenCountsOf(stats.total).cost_usd).toBe(0);
  });
});
