/**
 * How text is cut into words, one way for every search and ranking of the app: the history
 * search (SQLite FTS5), memory search and dedup, role routing and knowledge ranking.
 * Pure; every function is one left-to-right pass of fixed patterns (none is built from input), so
 * the work is linear in the text. Callers bound the text they read.
 *
 * The cut is SQLite FTS5's `unicode61` tokenizer's (`remove_diacritics 2`), which the history
 * search's index uses: a word is a run of letters, digits and marks (and private-use characters),
 * folded to lower case with the diacritics of Latin letters removed ("Café" is "cafe"; "ё", "が"
 * and Hangul syllables stay as they are, as FTS5 keeps them). CJK scripts are written without
 * spaces, so each Han, Hiragana, Katakana and Hangul character is a word of its own
 * ({@link hasCjk}; what Lucene's StandardAnalyzer does with ideographs): "原子写入" is four
 * words, found side by side. Korean is spaced, but its particles are written onto the word
 * ("테스트를"), so its syllables too are words of their own, and "테스트" finds "테스트를".
 */

/** CJK characters: Han (with 々 and 〆), Hiragana, Katakana, Hangul, and the prolonged-sound mark ー of katakana words. */
const CJK = "\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}\\u30fc";
/** A character FTS5's unicode61 keeps inside a token: a letter, digit, mark or private-use character. */
const WORD_CHAR = "\\p{L}\\p{N}\\p{M}\\p{Co}";
const CJK_CHAR = new RegExp(`[${CJK}]`, "u");
const CJK_CHARS = new RegExp(`[${CJK}]`, "gu");
const CJK_RUN = new RegExp(`[${CJK}]+`, "gu");
/** A run of word characters none of which is CJK. */
const WORD_RUN = new RegExp(`(?:(?![${CJK}])[${WORD_CHAR}])+`, "gu");
/** A token: one CJK character, or a run of other word characters. */
const TOKEN = new RegExp(`[${CJK}]|${WORD_RUN.source}`, "gu");
/** The marks of a Latin letter, once decomposed (NFD): what unicode61 `remove_diacritics 2` removes. */
const LATIN_MARKS = /(\p{Script=Latin})\p{M}+/gu;
/** Marks at the start of a word, on no letter: FTS5 drops them. */
const LEADING_MARKS = /^\p{M}+/u;
/** `+` and `#` right after a word: the end of a name such as `c++`, `c#` or `f#`, kept by {@link splitWords}. */
const SYMBOL_TAIL = /[+#]+/y;
const PLUS = 0x2b;
const HASH = 0x23;
/** Text of ASCII only: folded by lower-casing alone. */
const ASCII = /^[\x00-\x7f]*$/;

/** True when `text` holds a CJK character: one character is a word of its own; a term is matched as a substring, not as words. */
export function hasCjk(text: string): boolean {
  return CJK_CHAR.test(text);
}

/** `text` with a space on each side of every CJK character: the form FTS5 indexes, so each is a token. */
export function segmentCjk(text: string): string {
  // A replacement pattern, not a function: no call back into JavaScript per character (32,768
  // CJK characters, what one message indexes at most, took about 20 ms with one).
  return text.replace(CJK_CHARS, " $& ");
}

/**
 * A word as it is compared: lower case, Latin letters without their diacritics (as unicode61
 * `remove_diacritics 2`: "Résumé" is "resume"), other scripts' letters as they are ("ёлка" and
 * "ガイド" are what FTS5 indexes for them; a phrase of such a word is cut by FTS5 as it cut the
 * text). Marks on no letter are dropped.
 */
export function fold(word: string): string {
  if (ASCII.test(word)) return word.toLowerCase();
  return word.normalize("NFD").replace(LATIN_MARKS, "$1").replace(LEADING_MARKS, "").normalize("NFC").toLowerCase();
}

/**
 * Text as matching and ranking compare it: compatibility forms folded (full-width "ＡＰＩ" is
 * "api", half-width katakana are full-width) and lower case. Not for the history search, whose
 * offsets are in the text as written (FTS5 does not fold width either).
 */
export function normalizeText(text: string): string {
  return text.normalize("NFKC").toLowerCase();
}

/** One word of a text, with where it stands in it. */
export interface Token {
  /** The folded word ({@link fold}). */
  word: string;
  start: number;
  end: number;
}

/**
 * The words of `text` as FTS5 sees them after {@link segmentCjk}, with their offsets in `text`:
 * other words folded ({@link fold}), CJK characters as they are (FTS5 folds none of them).
 */
export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  for (const m of text.matchAll(TOKEN)) {
    const start = m.index;
    const end = start + m[0].length;
    if (CJK_CHAR.test(m[0])) {
      out.push({ word: m[0], start, end });
      continue;
    }
    const word = fold(m[0]);
    // A word that was only marks folds to nothing; FTS5 drops it too.
    if (word !== "") out.push({ word, start, end });
  }
  return out;
}

/** The words of a text for matching and ranking, in order, with its CJK characters grouped as they stand. */
export interface SplitText {
  /** The words that are not CJK, normalized ({@link normalizeText}, {@link fold}); `c++`, `c#` keep their symbols. */
  words: string[];
  /** The runs of adjacent CJK characters (each at least one character). */
  cjkRuns: string[];
}

/** The words of the normalized text ({@link normalizeText}), cut as {@link tokenize} cuts them, words and CJK runs apart (see {@link SplitText}). */
export function splitWords(text: string): SplitText {
  const norm = normalizeText(text);
  const words: string[] = [];
  for (const m of norm.matchAll(WORD_RUN)) {
    const word = fold(m[0]);
    if (word === "") continue;
    const end = m.index + m[0].length;
    const next = norm.charCodeAt(end);
    if (next !== PLUS && next !== HASH) {
      words.push(word);
      continue;
    }
    SYMBOL_TAIL.lastIndex = end;
    words.push(word + SYMBOL_TAIL.exec(norm)![0]);
  }
  return { words, cjkRuns: Array.from(norm.matchAll(CJK_RUN), (m) => m[0]) };
}

/** The pairs of adjacent characters of a CJK run: "代码审查" → 代码, 码审, 审查. */
export function cjkBigrams(run: string): string[] {
  const chars = Array.from(run);
  const out: string[] = [];
  for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i]! + chars[i + 1]!);
  return out;
}
