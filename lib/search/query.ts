/**
 * A person's search text turned into an FTS5 MATCH expression that cannot fail or be abused. Pure.
 *
 * The text is never handed to FTS5 as query syntax. It is cut into terms: a double-quoted part is
 * a phrase, anything else is split into words at every character that is not a letter or digit
 * (so `NEAR`, `AND`, `*`, `-`, `:`, `(`, `^` and quotes are separators or plain words). Each term
 * is written as an FTS5 string literal of its tokens, which holds nothing but letters, digits and
 * spaces, so no input can close the literal or reach the query grammar. Every term must match
 * (AND). The last bare word of three letters or more also matches as a prefix
 * (search-as-you-type). The filters add AND-ed constraints on the `tags` column, built from
 * code-made tokens only (./tags.ts).
 */
import { hasCjk, tokenize } from "@/lib/text/words";

/** At most this many terms of a query are used; the rest is ignored. */
const MAX_TERMS = 16;
/** At most this many tokens per term. */
const MAX_TERM_TOKENS = 32;
/** The shortest last word matched as a prefix too (shorter prefixes match too much to be useful). */
const MIN_PREFIX_LENGTH = 3;

/** One term: its folded tokens, matched side by side, the last one possibly as a prefix. */
interface SearchTerm {
  tokens: string[];
  prefix: boolean;
}

/** A parsed query: the terms, all of which must match. No terms: nothing can match. */
export interface ParsedQuery {
  terms: SearchTerm[];
}

function termOf(text: string): SearchTerm | null {
  const tokens = tokenize(text).map((t) => t.word).slice(0, MAX_TERM_TOKENS);
  return tokens.length ? { tokens, prefix: false } : null;
}

/** Cuts a search text into terms (see the file comment). Never throws. */
export function parseQuery(input: string): ParsedQuery {
  const terms: SearchTerm[] = [];
  // Quoted parts (odd indexes) are phrases; an unclosed quote runs to the end of the text.
  const parts = input.split('"');
  let lastBare: SearchTerm | null = null;
  parts.forEach((part, i) => {
    lastBare = null;
    if (i % 2 === 1) {
      const term = termOf(part);
      if (term) terms.push(term);
      return;
    }
    for (const word of part.split(/\s+/u).filter(Boolean)) {
      const term = termOf(word);
      if (term) {
        terms.push(term);
        lastBare = term;
      }
    }
  });
  // The last word is still being typed when the text ends in it (no space, no closing quote).
  const typing = lastBare as SearchTerm | null;
  const tail = parts[parts.length - 1] ?? "";
  if (typing && parts.length % 2 === 1 && /[\p{L}\p{N}\p{M}]$/u.test(tail)) {
    const chars = [...(typing.tokens[typing.tokens.length - 1] ?? "")];
    // A CJK character is a whole token already: a prefix of it means nothing more.
    if (chars.length >= MIN_PREFIX_LENGTH && !hasCjk(chars[0] ?? "")) typing.prefix = true;
  }
  return { terms: dedupe(terms).slice(0, MAX_TERMS) };
}

function dedupe(terms: SearchTerm[]): SearchTerm[] {
  const seen = new Set<string>();
  return terms.filter((t) => {
    const key = `${t.prefix ? "*" : ""}${t.tokens.join(" ")}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** An FTS5 string literal: only letters, digits and spaces reach here, quotes are doubled all the same. */
function literal(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}

/**
 * The MATCH expression of a parsed query: the terms against the `body` column, AND each group of
 * `tagGroups` (a group matches when any of its tags does) against the `tags` column. Null when the
 * query has no terms (nothing to search for).
 */
export function matchExpression(query: ParsedQuery, tagGroups: readonly (readonly string[])[] = []): string | null {
  if (query.terms.length === 0) return null;
  const body = query.terms.map((t) => `${literal(t.tokens.join(" "))}${t.prefix ? " *" : ""}`).join(" ");
  const parts = [`body : (${body})`];
  for (const group of tagGroups) {
    if (group.length === 0) continue;
    parts.push(`tags : (${group.map(literal).join(" OR ")})`);
  }
  return parts.join(" AND ");
}
