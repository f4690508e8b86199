/**
 * The terms passages and queries are ranked by, the same function for both: English words stemmed
 * and filler words dropped, Chinese (and other CJK) text as bigrams — the routing's BM25 terms
 * (lib/governance/terms.ts) — plus the parts of code identifiers: `createEmbedder` also yields
 * `create` and `embedder`, `max_file_bytes` yields its three words. Pure.
 */
import { rankTerms } from "@/lib/governance/terms";

const CAMEL = /[A-Za-z][a-z0-9]*[A-Z][A-Za-z0-9]*/g;

/** Terms of `text` for BM25. */
export function knowledgeTerms(text: string): string[] {
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
