/**
 * Token accounting: the `token_statistics` object of the leader's messages.json, summed over
 * every model call of a conversation, per agent and per model, with the cost of each call at the
 * prices in force when it was made (lib/models/cost.ts). Pure.
 */
import { z } from "zod";
import type { TokenCounts } from "@/lib/contracts/events";
import type { TokenTotals } from "@/lib/contracts/on-disk";
import { callCostUsd, roundUsd } from "./cost";
import type { ModelPrices } from "./schema";
import type { Usage } from "./types";
import { ownValue } from "@/lib/own";

const count = z.number().int().nonnegative().catch(0).default(0);

/**
 * Token totals of a set of calls. `cached_tokens` is the part of `prompt_tokens` served from the
 * provider's cache; `cost_usd` sums the calls that could be priced (`priced_calls` of `calls`)
 * and is absent while none could.
 */
const UsageBucketSchema = z.looseObject({
  prompt_tokens: count,
  cached_tokens: count,
  completion_tokens: count,
  total_tokens: count,
  calls: count,
  priced_calls: count,
  cost_usd: z.number().nonnegative().optional().catch(undefined),
});
/** Token totals of a set of calls. */
export type UsageBucket = z.infer<typeof UsageBucketSchema>;

/** `token_statistics` in the leader's messages.json. */
const TokenStatisticsSchema = z.looseObject({
  total: UsageBucketSchema.catch(() => emptyBucket()).default(() => emptyBucket()),
  /** Keyed `leader` or `agent_<id>` (never a bare number, so JSON key order stays stable). */
  by_agent: z.record(z.string(), UsageBucketSchema).catch({}).default({}),
  /** Keyed by registry model key. */
  by_model: z.record(z.string(), UsageBucketSchema).catch({}).default({}),
});
/** `token_statistics` in the leader's messages.json. */
export type TokenStatistics = z.infer<typeof TokenStatisticsSchema>;

/** Who made a call: the leader or sub-agent `agent_<id>`. */
export type UsageAgentKey = "leader" | `agent_${number}`;

/** A bucket with every count at zero. */
function emptyBucket(): UsageBucket {
  return { prompt_tokens: 0, cached_tokens: 0, completion_tokens: 0, total_tokens: 0, calls: 0, priced_calls: 0 };
}

/** Empty statistics, as a new conversation holds. */
export function emptyTokenStatistics(): TokenStatistics {
  return { total: emptyBucket(), by_agent: {}, by_model: {} };
}

/** The `by_agent` key of an agent: `leader` for null/undefined, otherwise `agent_<id>`. */
export function usageAgentKey(agentId: number | null | undefined): UsageAgentKey {
  return agentId === null || agentId === undefined ? "leader" : `agent_${agentId}`;
}

/**
 * Reads whatever `token_statistics` holds (the `{}` of a new conversation, an older or partly
 * broken object) as full statistics; unknown keys are kept, broken counts read as zero.
 */
export function normalizeTokenStatistics(stats: unknown): TokenStatistics {
  const key = typeof stats === "object" && stats !== null ? stats : null;
  const known = key && normalized.get(key);
  if (known) return known;
  const parsed = TokenStatisticsSchema.safeParse(stats ?? {});
  const out = parsed.success ? parsed.data : emptyTokenStatistics();
  if (key) normalized.set(key, out);
  normalized.set(out, out);
  return out;
}

/**
 * What {@link normalizeTokenStatistics} made of an object, by that object: a conversation's
 * statistics are read at every step (each agent's view shows its share), and replaced, never
 * changed in place, when a call is added, so one object is parsed once however often it is read.
 * The results are shared: read them, never change them.
 */
const normalized = new WeakMap<object, TokenStatistics>();

function sum(bucket: UsageBucket | undefined, usage: Usage | null, cost: number | null): UsageBucket {
  const base = bucket ?? emptyBucket();
  const prompt = usage?.prompt_tokens ?? 0;
  const completion = usage?.completion_tokens ?? 0;
  const out: UsageBucket = {
    ...base,
    prompt_tokens: base.prompt_tokens + prompt,
    cached_tokens: base.cached_tokens + Math.min(usage?.cached_tokens ?? 0, prompt),
    completion_tokens: base.completion_tokens + completion,
    total_tokens: base.total_tokens + (usage ? usage.total_tokens || prompt + completion : 0),
    calls: base.calls + 1,
  };
  if (cost !== null) {
    out.priced_calls = base.priced_calls + 1;
    out.cost_usd = roundUsd((base.cost_usd ?? 0) + cost);
  }
  return out;
}

/**
 * Adds one call to the statistics and returns the new object (the input is not changed). A call
 * whose endpoint sent no usage (`usage: null`) still counts as a call. `prices` are those of the
 * entry that answered, at the time of the call: its cost is kept with its tokens, so a later change
 * of prices never rewrites what a conversation cost; a call without prices adds tokens only.
 */
export function addUsage(
  stats: unknown,
  call: { agentKey: UsageAgentKey; modelKey: string; usage: Usage | null; prices?: ModelPrices | null },
): TokenStatistics {
  const current = normalizeTokenStatistics(stats);
  const cost = callCostUsd(call.usage, call.prices);
  const next: TokenStatistics = {
    ...current,
    total: sum(current.total, call.usage, cost),
    by_agent: { ...current.by_agent, [call.agentKey]: sum(ownValue(current.by_agent, call.agentKey), call.usage, cost) },
    by_model: { ...current.by_model, [call.modelKey]: sum(ownValue(current.by_model, call.modelKey), call.usage, cost) },
  };
  // Made of normalized parts: it reads as itself.
  normalized.set(next, next);
  return next;
}

/**
 * A bucket as the API shows it: every count, and the cost of its priced calls — null, never 0,
 * when none of its calls had prices.
 */
export function tokenCountsOf(bucket: UsageBucket | undefined): TokenCounts {
  const b = bucket ?? emptyBucket();
  return {
    prompt_tokens: b.prompt_tokens,
    cached_tokens: b.cached_tokens,
    completion_tokens: b.completion_tokens,
    total_tokens: b.total_tokens,
    calls: b.calls,
    priced_calls: b.priced_calls,
    cost_usd: b.priced_calls > 0 ? (b.cost_usd ?? 0) : null,
  };
}

/** The conversation's totals as metadata.json keeps them for the conversation list (`token_totals`). */
export function tokenTotalsOf(stats: TokenStatistics): TokenTotals {
  const { total } = stats;
  const out: TokenTotals = {
    prompt_tokens: total.prompt_tokens,
    cached_tokens: total.cached_tokens,
    completion_tokens: total.completion_tokens,
    total_tokens: total.total_tokens,
    calls: total.calls,
    priced_calls: total.priced_calls,
  };
  if (total.priced_calls > 0) out.cost_usd = total.cost_usd ?? 0;
  return out;
}
