/**
 * Token counting with a real tokenizer (`gpt-tokenizer`, pure JS, encodings bundled — no network,
 * no native code). Counts use `o200k_base` (GPT-4o family); other providers' tokenizers differ by
 * a few percent, which the budgets absorb. Pure: importable anywhere.
 *
 * Bounded work: the tokenizer's byte-pair merge takes time quadratic in the length of one
 * pre-token piece, and a run of one repeated character (or a long CJK run, a long base64 string)
 * is one piece. A 1,000,000-character run kept the server busy for minutes. So text never reaches
 * the tokenizer whole: it is cut into chunks of at most about {@link MAX_CHUNK_CHARS} characters,
 * before whitespace (where the tokenizer splits anyway, so counts stay exact for prose and code),
 * and any run longer than {@link MAX_RUN_CHARS} characters is cut into parts. And no call
 * tokenizes much more than {@link ESTIMATE_TOKEN_BUDGET} tokens (a few milliseconds even for text
 * that misses every cache, like random CJK): texts longer than {@link EXACT_COUNT_LIMIT}
 * characters, or of more than {@link COUNT_TOKEN_BUDGET} tokens, are estimated from evenly spaced
 * samples, scaled to the whole length (within about 2% on prose, markdown, code, JSON and Chinese).
 * Ordinary text up to {@link EXACT_COUNT_LIMIT} characters is counted exactly.
 */
import { countTokens as countRaw, decode, encode, setMergeCacheSize } from "gpt-tokenizer";
import type { ChatMessage } from "@/lib/models/types";

/** The encoding the counts come from (reported with every {@link SliceReport}). */
export const TOKENIZER_NAME = "o200k_base";

/**
 * Fixed cost of one chat message (role, separators), after OpenAI's published counting recipe.
 * An estimate: what matters is that it is counted everywhere the same way.
 */
export const MESSAGE_OVERHEAD = 4;
/** Fixed cost of one tool call on an assistant message (id, type, JSON punctuation). */
const TOOL_CALL_OVERHEAD = 8;

/** Longest run of non-whitespace (or of whitespace) given to the tokenizer in one piece. */
export const MAX_RUN_CHARS = 64;
/** Chunks given to the tokenizer end before whitespace once they are this long. */
export const MAX_CHUNK_CHARS = 2048;
/** Texts up to this many characters are counted whole (unless they exceed the token budget); longer ones are estimated from samples. */
export const EXACT_COUNT_LIMIT = 8_000;
/** Tokens one count may produce before it extrapolates from what it has counted. */
const COUNT_TOKEN_BUDGET = 2_500;
const SAMPLE_BITS = 7;
/** Windows a long text is estimated from, of {@link SAMPLE_WIDTH} characters each (about 16,000 in all). */
const SAMPLE_COUNT = 2 ** SAMPLE_BITS;
const SAMPLE_WIDTH = 125;
/** Tokens an estimate may count before it scales what it has counted. */
const ESTIMATE_TOKEN_BUDGET = 2 * COUNT_TOKEN_BUDGET;
/** The windows in an order that spreads any prefix of it evenly over the text (bit-reversed 0…127). */
const SAMPLE_ORDER = Array.from({ length: SAMPLE_COUNT }, (_, i) => parseInt(i.toString(2).padStart(SAMPLE_BITS, "0").split("").reverse().join(""), 2));
/** How far a sample window's ends move to reach whitespace (a word cut in two counts as more tokens than it is). */
const SAMPLE_SNAP_CHARS = 32;

// Tool results can contain text like `<|endoftext|>` (a file the agent read); the library throws
// on special tokens by default, but for us it is plain text sent as plain text.
const PLAIN = { disallowedSpecial: new Set<string>() };

// The same text is often counted again (a system prompt, a conclusion, a line of a slice); the
// history's own messages are counted once each and kept by ContextWindow. Least recently used
// texts go first, and the cache is bounded by entries and by characters held: it holds what the
// conversations at work use again (a few system prompts and slices each), and a server that has
// run many conversations holds no more than one that has run a few dozen (each leaves texts of
// its own: its agents' system prompts, its slices). A pure memo (a text's count never changes),
// so it is module state on purpose: each Next route bundle's copy only counts a text once more,
// nothing is shared or reset. A text longer than the whole cache may hold evicts every entry and
// is not kept (tests use that to start from an empty cache).
export const TOKEN_CACHE_LIMIT = 2000;
export const TOKEN_CACHE_CHARS_LIMIT = 1_000_000;
/** Each entry keeps the key it was stored under (its own copy), so a hit can move it without the caller's string. */
const cache = new Map<string, { key: string; tokens: number }>();
let cachedChars = 0;

/** `\s` of JavaScript regular expressions, by code unit. */
function isSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/** Letters and digits as the tokenizer groups them (non-ASCII counts as a letter: close enough for a cut). */
function isWordChar(c: number): boolean {
  return c >= 0x80 || (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

/** `at`, moved back by one when it would split a surrogate pair. */
function codePointBoundary(text: string, at: number): number {
  const c = text.charCodeAt(at);
  return at > 0 && at < text.length && c >= 0xdc00 && c <= 0xdfff && (text.charCodeAt(at - 1) & 0xfc00) === 0xd800 ? at - 1 : at;
}

/**
 * Where to cut a long run that starts at `start`: before a punctuation character that follows a
 * letter or digit (the tokenizer splits there too), else after {@link MAX_RUN_CHARS} characters.
 */
function runCut(text: string, start: number, ws: boolean): number {
  const limit = start + MAX_RUN_CHARS;
  if (!ws) {
    for (let p = limit; p > start + MAX_RUN_CHARS / 2; p--) {
      if (isWordChar(text.charCodeAt(p - 1)) && !isWordChar(text.charCodeAt(p))) return p;
    }
  }
  return codePointBoundary(text, limit);
}

/**
 * The pieces `text` is handed to the tokenizer in, in order; joined they are `text`. Each is at
 * most about {@link MAX_CHUNK_CHARS} + 2 × {@link MAX_RUN_CHARS} characters and holds no run
 * longer than {@link MAX_RUN_CHARS}. Exported for tests.
 */
export function* tokenizerChunks(text: string): Generator<string> {
  const n = text.length;
  let chunkStart = 0;
  let i = 0;
  while (i < n) {
    const ws = isSpace(text.charCodeAt(i));
    let j = i + 1;
    while (j < n && isSpace(text.charCodeAt(j)) === ws) j++;
    // A chunk may end before whitespace: the tokenizer starts a new piece there anyway.
    if (ws && i - chunkStart >= MAX_CHUNK_CHARS) {
      yield text.slice(chunkStart, i);
      chunkStart = i;
    }
    // A long run is cut into parts, each ending its chunk, so no piece grows past the limit.
    while (j - i > MAX_RUN_CHARS) {
      const cut = runCut(text, i, ws);
      yield text.slice(chunkStart, cut);
      chunkStart = cut;
      i = cut;
    }
    i = j;
  }
  if (chunkStart < n) yield text.slice(chunkStart);
}

/**
 * Tokens of the chunked text and how many characters were counted: all of them, or fewer when
 * the count reached `budget` tokens first (it stops after that chunk).
 */
function countChunked(text: string, budget = Number.POSITIVE_INFINITY): { tokens: number; chars: number } {
  let tokens = 0;
  let chars = 0;
  for (const chunk of tokenizerChunks(text)) {
    tokens += countRaw(ownCopy(chunk), PLAIN);
    chars += chunk.length;
    tokenizerStats.chars += chunk.length;
    if (tokens >= budget) break;
  }
  return { tokens, chars };
}

/** `tokens` counted on `chars` characters, scaled to `length`. */
function scaled(tokens: number, chars: number, length: number): number {
  return chars >= length ? tokens : Math.max(1, Math.round((tokens * length) / Math.max(1, chars)));
}

/**
 * A sample window's start moved back to just after whitespace, and its end forward to just before
 * it, each by at most {@link SAMPLE_SNAP_CHARS} (else left where it was). The tokenizer joins a
 * space to the word after it, so a window cut this way counts its words as the whole text does.
 */
function windowStart(text: string, at: number): number {
  for (let p = at; p > 0 && p >= at - SAMPLE_SNAP_CHARS; p--) if (isSpace(text.charCodeAt(p - 1))) return p;
  return at <= SAMPLE_SNAP_CHARS ? 0 : at;
}

function windowEnd(text: string, at: number): number {
  for (let p = at; p < text.length && p <= at + SAMPLE_SNAP_CHARS; p++) if (isSpace(text.charCodeAt(p))) return p;
  return at + SAMPLE_SNAP_CHARS >= text.length ? text.length : at;
}

/**
 * Estimate for a long text: windows spread evenly over it (their ends moved to whitespace, so no
 * word is counted cut in two), counted until the token budget, scaled to the whole length.
 */
function estimate(text: string): number {
  const n = text.length;
  const width = SAMPLE_WIDTH;
  const step = (n - width) / (SAMPLE_COUNT - 1);
  let tokens = 0;
  let chars = 0;
  for (const k of SAMPLE_ORDER) {
    const from = codePointBoundary(text, windowStart(text, Math.round(k * step)));
    const to = codePointBoundary(text, windowEnd(text, Math.min(n, from + width)));
    const counted = countChunked(text.slice(from, to), ESTIMATE_TOKEN_BUDGET - tokens);
    tokens += counted.tokens;
    chars += counted.chars;
    if (tokens >= ESTIMATE_TOKEN_BUDGET) break;
  }
  // Always scaled: on a text shorter than the windows together they overlap, and what they
  // counted is more than the text holds.
  return Math.max(1, Math.round((tokens * n) / Math.max(1, chars)));
}

/** Count of `text` within the token budget: exact when it fits, else scaled from its counted start (short texts) or from samples (long ones). */
function boundedCount(text: string): number {
  if (text.length > EXACT_COUNT_LIMIT) return estimate(text);
  const counted = countChunked(text, COUNT_TOKEN_BUDGET);
  return scaled(counted.tokens, counted.chars, text.length);
}

/**
 * Pieces the tokenizer keeps the merges of (gpt-tokenizer's own cache, 100,000 by default). A
 * piece it keeps is a slice of the text it was given; the texts given it are copies of one chunk
 * each (see {@link countChunked}), so what the cache can keep alive is bounded by this many
 * chunks, not by the texts counted (a file read, a long result). 5,000 counts repeated text as
 * fast as the default on this repository's own files.
 */
export const MERGE_CACHE_ENTRIES = 5_000;
setMergeCacheSize(MERGE_CACHE_ENTRIES);

/**
 * `text` as a string of its own. A slice of a longer string (a paragraph of a system prompt, a
 * line of a slice) can be kept by V8 as a view of its parent: a cached slice would keep the whole
 * parent alive, a new agent's full prompt per cached paragraph, up to the cache's 2,000 entries;
 * and a piece the tokenizer caches would keep the whole text it was cut from (a file read, say).
 * (A string parsed from JSON is at most a view of that JSON text, two characters longer.)
 */
function ownCopy(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}

function remember(text: string, n: number): void {
  while (cache.size > 0 && (cache.size >= TOKEN_CACHE_LIMIT || cachedChars + text.length > TOKEN_CACHE_CHARS_LIMIT)) {
    // Map keeps insertion order: drop the oldest first
    const oldest = cache.keys().next().value as string;
    cache.delete(oldest);
    cachedChars -= oldest.length;
  }
  if (text.length > TOKEN_CACHE_CHARS_LIMIT) return;
  const key = ownCopy(text);
  cache.set(key, { key, tokens: n });
  cachedChars += text.length;
}

/**
 * Number of tokens in `text` (cached per string): exact for texts of up to
 * {@link EXACT_COUNT_LIMIT} characters and {@link COUNT_TOKEN_BUDGET} tokens (up to the few
 * tokens a cut inside a very long word can add), estimated beyond.
 */
export function countTokens(text: string | null | undefined): number {
  if (!text) return 0;
  const hit = cache.get(text);
  if (hit !== undefined) {
    // Used again: it moves to the back of the eviction order, under its own key (`text` may be a
    // slice of a longer string; see ownCopy).
    cache.delete(text);
    cache.set(hit.key, hit);
    return hit.tokens;
  }
  const n = boundedCount(text);
  remember(text, n);
  return n;
}

/**
 * Whether the tokenizer (o200k's pre-tokenizer) always starts a new piece at `at`, whatever the
 * text around: just after a blank line ("\n\n"), before a character that no piece ending in a
 * line break takes in (not whitespace, not "/", which a piece of punctuation and line breaks
 * continues with).
 */
function paragraphStart(text: string, at: number): boolean {
  const c = text.charCodeAt(at);
  return text.charCodeAt(at - 1) === 0x0a && text.charCodeAt(at - 2) === 0x0a && !isSpace(c) && c !== 0x2f && at < text.length;
}

/**
 * {@link countTokens} of a text whose paragraphs recur in other texts (an agent's system message:
 * its own first lines, then its role's prompt, the same for every agent of the role): the sum of
 * its paragraphs' counts, each cached, so only the paragraphs not seen before are tokenized. It
 * cuts only where the tokenizer starts a new piece anyway, so the sum is the text's count: exact
 * where {@link countTokens} is exact (a text of up to {@link COUNT_TOKEN_BUDGET} tokens), exact
 * too where it would have scaled (each paragraph is counted whole). A text over
 * {@link EXACT_COUNT_LIMIT} characters is left to {@link countTokens}.
 */
export function countParagraphTokens(text: string): number {
  if (text.length > EXACT_COUNT_LIMIT) return countTokens(text);
  let tokens = 0;
  let from = 0;
  for (let at = text.indexOf("\n\n"); at >= 0; at = text.indexOf("\n\n", at + 1)) {
    let cut = at + 2;
    while (cut < text.length && text.charCodeAt(cut) === 0x0a) cut++;
    if (!paragraphStart(text, cut)) continue;
    tokens += countTokens(text.slice(from, cut));
    from = cut;
    at = cut - 1;
  }
  return tokens + countTokens(text.slice(from));
}

/** Estimated tokens of one chat message as sent (content, tool calls, overhead). */
export function messageTokens(m: ChatMessage): number {
  let n = MESSAGE_OVERHEAD + countTokens(m.content);
  if (m.tool_call_id) n += countTokens(m.tool_call_id);
  for (const call of m.tool_calls ?? []) n += callTokens(call);
  return n;
}

/** Estimated tokens one tool call adds to its assistant message (see {@link messageTokens}). */
export function callTokens(call: { id: string; function: { name: string; arguments: string } }): number {
  return TOOL_CALL_OVERHEAD + countTokens(call.id) + countTokens(call.function.name) + countTokens(call.function.arguments);
}

/** Characters handed to the tokenizer by this process (cache hits cost none), for tests and benchmarks. */
export const tokenizerStats = { chars: 0 };

/** Texts and characters the per-text count cache holds, for tests. */
export function tokenCacheSize(): { texts: number; chars: number } {
  return { texts: cache.size, chars: cachedChars };
}

/** The first `max` tokens of `text` (fewer when it is shorter), encoding only as much of its start as needed. */
function leadingTokens(text: string, max: number): number[] {
  const tokens: number[] = [];
  for (const chunk of tokenizerChunks(text)) {
    for (const t of encode(ownCopy(chunk), PLAIN)) tokens.push(t);
    if (tokens.length >= max) break;
  }
  return tokens.slice(0, max);
}

/** `text` without the replacement characters a cut inside a multi-byte character leaves at its end. */
function dropTrailingReplacement(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0xfffd) end--;
  return text.slice(0, end);
}

/**
 * The start of `text` cut so that it plus `suffix(kept, total)` is at most `maxTokens` tokens.
 * Returns the text unchanged when it already fits, and null when not even the suffix fits.
 * Work is linear in the kept start plus the bounded cost of {@link countTokens}, never in the whole
 * text. The result fits by {@link countTokens}, the measure every budget uses.
 */
export function truncateToTokens(text: string, maxTokens: number, suffix: (kept: number, total: number) => string): string | null {
  const total = countTokens(text);
  if (total <= maxTokens) return text;
  const room = maxTokens - countChunked(suffix(total, total)).tokens;
  if (room <= 0) return null;
  const tokens = leadingTokens(text, room);
  let keep = tokens.length;
  // Re-counting the cut text can merge tokens differently at the seam; shrink until it fits.
  for (let attempt = 0; attempt < 8 && keep > 0; attempt++) {
    // a cut inside a multi-byte character decodes to U+FFFD: drop it
    const head = dropTrailingReplacement(decode(tokens.slice(0, keep)));
    const out = head + suffix(keep, total);
    const used = countTokens(out);
    if (used <= maxTokens) return out;
    keep -= Math.max(1, Math.ceil((used - maxTokens) * 1.5));
  }
  return null;
}
