/**
 * Terms for matching and ranking, built on the words of ./words.ts: the tokens the routing's tag
 * matcher looks up (words with their light stems, CJK characters and pairs), and the one term per
 * word that BM25 indexes and queries (stemmed, stop words dropped, CJK as pairs), plain or with
 * the parts of code identifiers. Pure; linear in the text, which callers bound.
 */
import { canonicalStem, stems } from "./stems";
import { RANK_STOP_WORDS } from "./stop-words";
import { cjkBigrams, splitWords } from "./words";

const CAMEL = /[A-Za-z][a-z0-9]*[A-Z][A-Za-z0-9]*/g;

/**
 * Tokens of a message for looking words up: its words and their stems, every CJK character and
 * every pair of adjacent CJK characters (CJK has no spaces between words).
 */
export function matchTokens(text: string): string[] {
  const { words, cjkRuns } = splitWords(text);
  const tokens: string[] = [];
  for (const w of words) tokens.push(...stems(w));
  for (const run of cjkRuns) tokens.push(...Array.from(run), ...cjkBigrams(run));
  return tokens;
}

/**
 * Terms for BM25: one canonical stem per word that is not in `stop` (`k8s`, `c++` and `c#` stay
 * whole), and the pairs of adjacent CJK characters (a lone CJK character is its own term).
 */
export function rankTerms(text: string, stop: ReadonlySet<string> = RANK_STOP_WORDS): string[] {
  const { words, cjkRuns } = splitWords(text);
  const terms: string[] = [];
  for (const w of words) {
    if (stop.has(w)) continue;
    const s = canonicalStem(w);
    if (!stop.has(s)) terms.push(s);
  }
  for (const run of cjkRuns) {
    const pairs = cjkBigrams(run);
    terms.push(...(pairs.length ? pairs : [run]));
  }
  return terms;
}

/**
 * {@link rankTerms} plus the parts of code identifiers: `createEmbedder` also yields `create` and
 * `embedder`; `max_file_bytes` is three words already.
 */
export function codeTerms(text: string): string[] {
  const terms = rankTerms(text);
  for (const m of text.matchAll(CAMEL)) {
    const parts = m[0].replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2");
    terms.push(...rankTerms(parts));
  }
  return terms;
}

/** A path as words: `lib/knowledge/chunk-markdown.ts` → `lib knowledge chunk markdown ts`. */
export function pathWords(rel: string): string {
  return rel.replace(/[/._\-]+/g, " ");
}
