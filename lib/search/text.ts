/**
 * How message text is cut into words, the same way for indexing, querying and highlighting. Pure.
 *
 * SQLite FTS5's `unicode61` tokenizer splits text at every character that is not a letter, digit
 * or mark, folds case and removes diacritics. It does not split Chinese or Japanese, which are
 * written without spaces: "原子写入的临时文件" would be one token and a search for "原子写入"
 * would miss it. So before the text reaches FTS5, every Han, Hiragana and Katakana character is
 * set apart by spaces ({@link segmentCjk}) and becomes a token of its own (what Lucene's
 * StandardAnalyzer does with ideographs); a CJK query becomes the phrase of its characters, which
 * FTS5 matches only where they stand side by side. English and other spaced scripts keep whole
 * words, so they rank by BM25 as usual.
 */

/** A CJK character that is indexed as a token of its own. */
const CJK_CHAR = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const CJK_CHARS = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/gu;
/** A run of characters FTS5's unicode61 keeps inside a token (letters, digits, marks, private use). */
const WORD_RUN = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;

/** True when `ch` (one character) is indexed alone. */
export function isCjk(ch: string): boolean {
  return CJK_CHAR.test(ch);
}

/** `text` with a space on each side of every CJK character: the form FTS5 indexes. */
export function segmentCjk(text: string): string {
  // A replacement pattern, not a function: no call back into JavaScript per character (32,768
  // CJK characters, what one message indexes at most, took about 20 ms with one).
  return text.replace(CJK_CHARS, " $& ");
}

/** A word as it is compared: lower case, without diacritics (as unicode61 `remove_diacritics 2`). */
export function fold(word: string): string {
  return word.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
}

/** One token of a text, with where it stands in it. */
export interface Token {
  /** The folded token ({@link fold}). */
  word: string;
  start: number;
  end: number;
}

/** The tokens of `text` as FTS5 sees them after {@link segmentCjk}, with their offsets in `text`. */
export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  for (const run of text.matchAll(WORD_RUN)) {
    const base = run.index;
    let start = -1;
    let offset = 0;
    for (const ch of run[0]) {
      const at = base + offset;
      if (isCjk(ch)) {
        if (start >= 0) out.push({ word: fold(text.slice(start, at)), start, end: at });
        start = -1;
        out.push({ word: fold(ch), start: at, end: at + ch.length });
      } else if (start < 0) {
        start = at;
      }
      offset += ch.length;
    }
    if (start >= 0) out.push({ word: fold(text.slice(start, base + offset)), start, end: base + offset });
  }
  // A token that was only marks folds to nothing; FTS5 drops it too.
  return out.filter((t) => t.word !== "");
}
