/**
 * The snippet of a hit: a short window of the message's text around what matched, as segments
 * `{text, hit}` that the UI renders as plain text (hits in `<mark>`), so a message's own markup is
 * never interpreted. Pure.
 */
import type { ParsedQuery } from "./query";
import { tokenize, type Token } from "@/lib/text/words";

/** One piece of a snippet: text, and whether it is part of a match. */
export interface SnippetSegment {
  text: string;
  hit: boolean;
}

/** Characters of context a snippet shows (about two lines). */
const SNIPPET_CHARS = 180;
/** Characters of context kept before the first match. */
const LEAD_CHARS = 50;

/** Where the terms of `query` stand in `tokens`: `[start, end)` character ranges, sorted, overlaps merged. */
function matchRanges(tokens: readonly Token[], query: ParsedQuery): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  for (const term of query.terms) {
    const n = term.tokens.length;
    for (let i = 0; i + n <= tokens.length; i++) {
      let ok = true;
      for (let k = 0; k < n && ok; k++) {
        const word = tokens[i + k]!.word;
        const want = term.tokens[k]!;
        ok = term.prefix && k === n - 1 ? word.startsWith(want) : word === want;
      }
      if (ok) ranges.push([tokens[i]!.start, tokens[i + n - 1]!.end]);
    }
  }
  ranges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const merged: Array<[number, number]> = [];
  for (const r of ranges) {
    const last = merged[merged.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push([r[0], r[1]]);
  }
  return merged;
}

/** Whitespace runs (newlines, indentation) shown as one space: a snippet is one flowing line. */
function flat(text: string): string {
  return text.replace(/\s+/g, " ");
}

/** Moves `at` back (or forward) to the nearest space within 15 characters, so words are not cut. */
function snapToSpace(text: string, at: number, direction: -1 | 1): number {
  for (let d = 0; d < 15; d++) {
    const i = at + d * direction;
    if (i <= 0) return 0;
    if (i >= text.length) return text.length;
    if (/\s/.test(text[i]!)) return direction < 0 ? i + 1 : i;
  }
  return at;
}

/**
 * The snippet of `text` for `query`: about {@link SNIPPET_CHARS} characters starting a little
 * before the window that holds the most matches, matches marked, `…` where the text was cut.
 * A text with no visible match (it matched through a word FTS5 folds differently) shows its start.
 */
export function snippetOf(text: string, query: ParsedQuery, size = SNIPPET_CHARS): SnippetSegment[] {
  const ranges = matchRanges(tokenize(text), query);
  let start = 0;
  if (ranges.length) {
    // The window with the most matches: each match in turn as its first one.
    let best = 0;
    let bestCount = 0;
    for (let i = 0; i < ranges.length; i++) {
      let count = 0;
      for (let j = i; j < ranges.length && ranges[j]![1] <= ranges[i]![0] + size - LEAD_CHARS; j++) count++;
      if (count > bestCount) {
        best = i;
        bestCount = count;
      }
    }
    start = Math.max(0, ranges[best]![0] - LEAD_CHARS);
    if (start > 0) start = snapToSpace(text, start, -1);
  }
  let end = Math.min(text.length, start + size);
  if (end < text.length) end = snapToSpace(text, end, 1);
  // A match cut by the window's end is shown whole.
  for (const [a, b] of ranges) if (a < end && b > end) end = b;
  const segments: SnippetSegment[] = [];
  const push = (piece: string, hit: boolean) => {
    if (!piece) return;
    const last = segments[segments.length - 1];
    if (last && last.hit === hit) last.text += piece;
    else segments.push({ text: piece, hit });
  };
  if (start > 0) push("…", false);
  let at = start;
  for (const [a, b] of ranges) {
    if (b <= start || a >= end) continue;
    push(flat(text.slice(at, Math.max(at, a))), false);
    push(flat(text.slice(Math.max(a, at), b)), true);
    at = b;
  }
  push(flat(text.slice(at, end)), false);
  if (end < text.length) push("…", false);
  if (segments.length && !segments[0]!.hit) segments[0]!.text = segments[0]!.text.trimStart();
  return segments;
}
