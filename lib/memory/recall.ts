/**
 * Ranking with access filtering, the core of recall and of the Memory page's search. Pure: the
 * service supplies the index, the entries and (when an embedding model is set) the query's vector.
 */
import type { MemoryIndex } from "./search-index";
import type { MemoryEntry } from "./schema";

/** One recalled entry and its relevance. */
export interface RecallHit {
  entry: MemoryEntry;
  score: number;
}

/**
 * The best entries for `text` that pass `keep`, best first, at least `want` of them when there are
 * that many. The filter runs before the cut, so entries a reader may not see never take a place:
 * the index is asked for a few times `want`, and for every hit when filtering left too few.
 */
export function rankEntries(
  index: MemoryIndex,
  entries: ReadonlyMap<string, MemoryEntry>,
  text: string,
  vector: number[] | null,
  keep: (entry: MemoryEntry) => boolean,
  want: number,
): RecallHit[] {
  if (text.trim() === "" || entries.size === 0) return [];
  let fetch = Math.min(want * 4 + 16, entries.size);
  for (;;) {
    const { hits, total } = index.query(text, { vector, limit: fetch });
    const out: RecallHit[] = [];
    for (const h of hits) {
      const entry = entries.get(h.id);
      if (entry && keep(entry)) out.push({ entry, score: h.score });
    }
    if (out.length >= want || hits.length >= total) return out;
    fetch = total;
  }
}
