import { describe, expect, it } from "vitest";
import { addUsage, emptyTokenStatistics, normalizeTokenStatistics, usageAgentKey } from "./usage";

const u = (prompt: number, completion: number) => ({ prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion });

describe("addUsage", () => {
  it("starts from the {} of a new conversation and sums per agent and per model", () => {
    let stats = addUsage({}, { agentKey: "leader", modelKey: "qwen3-max", usage: u(100, 20) });
    stats = addUsage(stats, { agentKey: "agent_1", modelKey: "qwen3-max", usage: u(50, 10) });
    stats = addUsage(stats, { agentKey: "agent_1", modelKey: "deepseek", usage: u(5, 5) });
    expect(stats.total).toEqual({ prompt_tokens: 155, completion_tokens: 35, total_tokens: 190, calls: 3 });
    expect(stats.by_agent).toEqual({
      leader: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120, calls: 1 },
      agent_1: { prompt_tokens: 55, completion_tokens: 15, total_tokens: 70, calls: 2 },
    });
    expect(stats.by_model.deepseek).toEqual({ prompt_tokens: 5, completion_tokens: 5, total_tokens: 10, calls: 1 });
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
    expect(stats.total).toEqual({ prompt_tokens: 3, completion_tokens: 4, total_tokens: 7, calls: 2 });
  });

  it("reads broken counts as zero and keeps unknown keys", () => {
    const stats = addUsage(
      { total: { prompt_tokens: "x", completion_tokens: 2, total_tokens: 2, calls: 1 }, by_agent: 7, note: "kept" },
      { agentKey: "leader", modelKey: "m", usage: u(1, 1) },
    );
    expect(stats.total).toEqual({ prompt_tokens: 1, completion_tokens: 3, total_tokens: 4, calls: 2 });
    expect(stats.by_agent).toEqual({ leader: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2, calls: 1 } });
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
