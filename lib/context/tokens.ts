/**
 * Token counting with a real tokenizer (`gpt-tokenizer`, pure JS, encodings bundled — no network,
 * no native code). Counts use `o200k_base` (GPT-4o family); other providers' tokenizers differ by
 * a few percent, which the budgets absorb. Pure: importable anywhere.
 */
import { countTokens as countRaw, decode, encode } from "gpt-tokenizer";
import type { ChatMessage } from "@/lib/models/types";

/** The encoding the counts come from (reported with every {@link SliceReport}). */
export const TOKENIZER_NAME = "o200k_base";

/**
 * Fixed cost of one chat message (role, separators), after OpenAI's published counting recipe.
 * An estimate: what matters is that it is counted everywhere the same way.
 */
export const MESSAGE_OVERHEAD = 4;
/** Fixed cost of one tool call on an assistant message (id, type, JSON punctuation). */
export const TOOL_CALL_OVERHEAD = 8;

// Tool results can contain text like `<|endoftext|>` (a file the agent read); the library throws
// on special tokens by default, but for us it is plain text sent as plain text.
const PLAIN = { disallowedSpecial: new Set<string>() };

// Histories are re-counted on every model call; most texts are the same as last time.
const CACHE_LIMIT = 5000;
const cache = new Map<string, number>();

/** Number of tokens in `text` (cached per string). */
export function countTokens(text: string | null | undefined): number {
  if (!text) return 0;
  const hit = cache.get(text);
  if (hit !== undefined) return hit;
  const n = countRaw(text, PLAIN);
  if (cache.size >= CACHE_LIMIT) {
    // Map keeps insertion order: drop the oldest tenth rather than everything at once
    let drop = Math.ceil(CACHE_LIMIT / 10);
    for (const key of cache.keys()) {
      cache.delete(key);
      if (--drop <= 0) break;
    }
  }
  cache.set(text, n);
  return n;
}

/** Estimated tokens of one chat message as sent (content, tool calls, overhead). */
export function messageTokens(m: ChatMessage): number {
  let n = MESSAGE_OVERHEAD + countTokens(m.content);
  if (m.tool_call_id) n += countTokens(m.tool_call_id);
  for (const call of m.tool_calls ?? []) n += TOOL_CALL_OVERHEAD + countTokens(call.id) + countTokens(call.function.name) + countTokens(call.function.arguments);
  return n;
}

/**
 * The start of `text` cut so that it plus `suffix(kept, total)` is at most `maxTokens` tokens.
 * Returns the text unchanged when it already fits, and null when not even the suffix fits.
 */
export function truncateToTokens(text: string, maxTokens: number, suffix: (kept: number, total: number) => string): string | null {
  const total = countTokens(text);
  if (total <= maxTokens) return text;
  const room = maxTokens - countTokens(suffix(total, total));
  if (room <= 0) return null;
  const tokens = encode(text, PLAIN);
  let keep = room;
  // Re-encoding the cut text can merge tokens differently at the seam; shrink until it fits.
  for (let attempt = 0; attempt < 8 && keep > 0; attempt++) {
    // a cut inside a multi-byte character decodes to U+FFFD: drop it
    const head = decode(tokens.slice(0, keep)).replace(/\uFFFD+$/u, "");
    const out = head + suffix(keep, total);
    if (countTokens(out) <= maxTokens) return out;
    keep -= Math.max(1, Math.ceil((countTokens(out) - maxTokens) * 1.5));
  }
  return null;
}
