/**
 * What a model call cost: its tokens at the prices of the registry entry that answered it (US
 * dollars per million input, cached-input and output tokens), and the cached input tokens each
 * provider reports in its own field. Pure: importable from client code.
 */
import type { ModelPrices } from "./schema";
import type { Usage } from "./types";

/** Dollars rounded to 1e-10, so sums of many calls stay readable in the JSON files. */
export function roundUsd(usd: number): number {
  return Math.round(usd * 1e10) / 1e10;
}

/**
 * The dollars of one call: uncached input tokens at `input`, cached ones at `cached_input` (at
 * `input` when the entry gives none) and output tokens (thinking included) at `output`. Null — not
 * 0 — when the call cannot be priced: no usage came back, or the entry lacks an `input` or `output`
 * price. A cost is never made up from a missing price.
 */
export function callCostUsd(usage: Usage | null, prices: ModelPrices | null | undefined): number | null {
  if (!usage || !prices || prices.input === undefined || prices.output === undefined) return null;
  const cached = Math.min(Math.max(usage.cached_tokens ?? 0, 0), usage.prompt_tokens);
  const uncached = usage.prompt_tokens - cached;
  const perMillion = uncached * prices.input + cached * (prices.cached_input ?? prices.input) + usage.completion_tokens * prices.output;
  return roundUsd(perMillion / 1_000_000);
}

/** The usage object of a chat-completions answer, as far as cached input goes. */
interface CachedUsageFields {
  prompt_tokens_details?: { cached_tokens?: unknown } | null;
  prompt_cache_hit_tokens?: unknown;
}

/**
 * Input tokens served from the provider's cache: `prompt_tokens_details.cached_tokens` (OpenAI,
 * DashScope, vLLM) or DeepSeek's `prompt_cache_hit_tokens`; undefined when the answer names neither.
 */
export function cachedInputTokens(usage: CachedUsageFields | null | undefined): number | undefined {
  const detail = usage?.prompt_tokens_details?.cached_tokens;
  const value = typeof detail === "number" ? detail : usage?.prompt_cache_hit_tokens;
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? Math.floor(value) : undefined;
}

/**
 * US dollars as people read them, in the locale's way of writing dollars ($0.0042 in English,
 * US$0.0042 in Chinese): two significant digits under a cent, up to four decimals under a dollar,
 * cents above.
 */
export function formatUsd(usd: number, locale: string): string {
  const size = Math.abs(usd);
  const options: Intl.NumberFormatOptions = { style: "currency", currency: "USD" };
  if (size > 0 && size < 0.01) options.maximumSignificantDigits = 2;
  else if (size > 0 && size < 1) Object.assign(options, { minimumFractionDigits: 2, maximumFractionDigits: 4 });
  return new Intl.NumberFormat(locale, options).format(usd);
}
