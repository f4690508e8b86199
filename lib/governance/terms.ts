/**
 * Text to terms for routing: the word tokenizer the tag matcher uses (words with their light
 * stems, CJK characters and bigrams) and the one-term-per-word form the BM25 index uses. Every
 * function here is one pass of bounded regexes over the text: no pattern is built from input. Pure.
 */

/** A CJK character (Han, kana, Hangul); CJK text has no spaces, so it is matched by substring or bigram. */
export const CJK = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]/;
const CJK_RUN = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]+/g;
const WORD = /[a-z0-9][a-z0-9+#]*/g;

/** Words too common to count as a partial match of a multi-word tag ("code" alone is not "code-review"). */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  "a an and or the of to for in on at by with from is are be it this that these those my our your me we you i please can could would should will do does did make get code file files data".split(" "),
);

/**
 * Words that carry no meaning for ranking roles by relevance: the stop words above plus the filler
 * of role descriptions ("Use PROACTIVELY for …", "Expert in …") and of requests ("help me …").
 */
const RANK_STOP_WORDS: ReadonlySet<string> = new Set([
  ...STOP_WORDS,
  ..."as if then than so not no its was were been being there here how what which who whom whose why when where also using use used per each every all any both either up out over under again only very too let lets help want need like some one two s t ll re ve d m etc via within without into onto about just role roles agent agents expert specializing specialize specializes masters master handles handle proactively include includes including work working".split(
    " ",
  ),
]);

/** A word and its light stems ("tests" → "test", "reviewing" → "review", "libraries" → "library"). */
export function stems(word: string): string[] {
  const out = [word];
  if (word.length > 4 && word.endsWith("ies")) out.push(`${word.slice(0, -3)}y`);
  if (word.length > 3 && word.endsWith("s") && !word.endsWith("ss")) out.push(word.slice(0, -1));
  if (word.length > 5 && word.endsWith("ing")) out.push(word.slice(0, -3), `${word.slice(0, -3)}e`);
  if (word.length > 4 && word.endsWith("ed")) out.push(word.slice(0, -2), word.slice(0, -1));
  return out;
}

/**
 * One canonical stem per word, for the BM25 index, where a word must count once ("queries" and
 * "query" both become "query"; "testing", "tests" and "test" all become "test").
 */
export function canonicalStem(word: string): string {
  if (word.length > 4 && word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.length > 5 && word.endsWith("ing")) return word.slice(0, -3);
  if (word.length > 4 && word.endsWith("ed") && !word.endsWith("eed")) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith("s") && !word.endsWith("ss") && !word.endsWith("us")) return word.slice(0, -1);
  return word;
}

/** Lowercased, width-normalized text (full-width letters become ASCII ones). */
export function normalizeText(text: string): string {
  return text.normalize("NFKC").toLowerCase();
}

/**
 * Tokens of a message: lowercase English words (and their stems), plus every CJK character and
 * every pair of adjacent CJK characters, since Chinese has no spaces between words.
 */
export function tokenize(text: string): string[] {
  const lower = normalizeText(text);
  const tokens: string[] = [];
  for (const m of lower.matchAll(WORD)) tokens.push(...stems(m[0]));
  for (const m of lower.matchAll(CJK_RUN)) {
    const chars = Array.from(m[0]);
    chars.forEach((c, i) => {
      tokens.push(c);
      const next = chars[i + 1];
      if (next) tokens.push(c + next);
    });
  }
  return tokens;
}

/** The English words of a text, lowercased, in order (for adjacent-word matching). */
export function words(text: string): string[] {
  return Array.from(normalizeText(text).matchAll(WORD), (m) => m[0]);
}

/**
 * Terms for BM25: one canonical stem per meaningful English word (`k8s`, `c++` and `c#` stay
 * whole), and CJK bigrams (a lone CJK character is its own term). Filler words are dropped, so a
 * request such as "please help me with this" ranks nothing.
 */
export function rankTerms(text: string): string[] {
  const lower = normalizeText(text);
  const terms: string[] = [];
  for (const m of lower.matchAll(WORD)) {
    const w = m[0];
    if (RANK_STOP_WORDS.has(w)) continue;
    const s = canonicalStem(w);
    if (!RANK_STOP_WORDS.has(s)) terms.push(s);
  }
  for (const m of lower.matchAll(CJK_RUN)) {
    const chars = Array.from(m[0]);
    if (chars.length === 1) terms.push(chars[0]!);
    for (let i = 0; i + 1 < chars.length; i++) terms.push(chars[i]! + chars[i + 1]!);
  }
  return terms;
}
