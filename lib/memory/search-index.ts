/**
 * The memory search index: BM25 (MiniSearch's BM25+) over each entry's statement and subject,
 * mixed with the cosine similarity of the entry's vector when an embedding model is configured
 * (hybrid search). Derived from `memory/entries.json`: the BM25 part is built from the entries
 * whenever the index is opened (10,000 entries in about 0.1 s; serializing it would cost as much
 * at every save), and `memory/index.json` keeps what is costly to make again, the vectors, each
 * with the hash of the text it was made from, so a rebuild does not embed unchanged texts again.
 * Pure: persistence is the service's; this module turns the index into a JSON value and back.
 *
 * Text is cut into words the way the history search does (lib/text/words): CJK characters are
 * words of their own, other scripts keep whole words, folded (case, Latin diacritics, width).
 */
import { createHash } from "node:crypto";
import MiniSearch from "minisearch";
import { z } from "zod";
import { isStopWord } from "@/lib/text/stop-words";
import { normalizeText, tokenize } from "@/lib/text/words";
import type { MemoryEntry } from "./schema";

/** Version of the persisted index's layout; another version is rebuilt. */
const INDEX_VERSION = 3;
/** Smallest cosine similarity for a vector match to count in hybrid search. */
const VECTOR_SIMILARITY = 0.5;
/** Weights of the lexical and vector scores (each normalized to its best hit) in hybrid search. */
const HYBRID_WEIGHTS = { text: 0.6, vector: 0.4 } as const;

/** The text of an entry that is searched and embedded. */
export function indexedText(entry: Pick<MemoryEntry, "statement" | "subject">): string {
  return entry.subject ? `${entry.subject}\n${entry.statement}` : entry.statement;
}

/** A short, stable fingerprint of a text (whether a stored vector still fits it). */
export function textHash(text: string): string {
  return createHash("sha256").update(text).digest("base64url").slice(0, 22);
}

/**
 * The words of a text as indexed and queried, stop words left out: they carry no meaning for
 * ranking, and each would otherwise make a query score most of the entries.
 */
export function searchTokens(text: string): string[] {
  const out: string[] = [];
  for (const t of tokenize(normalizeText(text))) if (!isStopWord(t.word)) out.push(t.word);
  return out;
}

/** What the embedding part of the index was built with. */
const IndexEmbeddingSchema = z.object({ key: z.string().min(1), dims: z.number().int().min(1).max(65536) }).nullable();
export type IndexEmbedding = z.infer<typeof IndexEmbeddingSchema>;

/** One saved vector: the hash of the text it was made from ({@link textHash}) and its numbers. */
const SavedVectorSchema = z.object({ hash: z.string(), vector: z.array(z.number()) });

/** `memory/index.json`: what the index was built from, and the entries' vectors by id. */
export const IndexFileSchema = z.object({
  version: z.literal(INDEX_VERSION),
  /** sha256 of the entries.json bytes the index matches. */
  entries_sha256: z.string(),
  embedding: IndexEmbeddingSchema,
  vectors: z.record(z.string(), SavedVectorSchema),
});
export type IndexFile = z.infer<typeof IndexFileSchema>;

/**
 * The vectors of an index saved before MiniSearch (layout versions 1 and 2, Orama's saved form):
 * read so that the change of engine does not embed every entry again.
 */
const OramaFileSchema = z.object({
  embedding: IndexEmbeddingSchema,
  orama: z.object({ docs: z.object({ docs: z.record(z.string(), z.object({ id: z.string(), hash: z.string(), embedding: z.array(z.number()).optional() })) }) }),
});

/** One hit: the entry id and its score (BM25, or the hybrid mix). */
export interface IndexHit {
  id: string;
  score: number;
}

/** What the index keeps of an entry beside its words: its text's hash, and its vector with the vector's length. */
interface Doc {
  hash: string;
  vector?: number[];
  norm?: number;
}

function newMini(): MiniSearch<{ id: string; text: string }> {
  return new MiniSearch({
    fields: ["text"],
    tokenize: searchTokens,
    processTerm: (term) => term,
    // Any query word may match; words match whole (no prefix, no typo tolerance).
    searchOptions: { combineWith: "OR", prefix: false, fuzzy: false },
  });
}

function norm(v: readonly number[]): number {
  let sum = 0;
  for (const x of v) sum += x * x;
  return Math.sqrt(sum);
}

/** The index of memory entries. */
export class MemoryIndex {
  readonly embedding: IndexEmbedding;
  readonly #mini = newMini();
  readonly #docs = new Map<string, Doc>();
  /** Ids whose vector is missing (the embedding call failed when they were written). */
  readonly missingVectors = new Set<string>();

  private constructor(embedding: IndexEmbedding) {
    this.embedding = embedding;
  }

  /**
   * Builds an index of `entries`. `vectors` gives each entry's vector (by id) when `embedding` is
   * set; an entry without one is indexed for BM25 only and listed in {@link missingVectors}.
   */
  static build(entries: readonly MemoryEntry[], embedding: IndexEmbedding, vectors: ReadonlyMap<string, number[]> = new Map()): MemoryIndex {
    const index = new MemoryIndex(embedding);
    for (const entry of entries) index.put(entry, vectors.get(entry.id));
    return index;
  }

  /** The index of `entries` with the vectors of a saved index (those made from the entries' current texts). */
  static restore(file: IndexFile, entries: readonly MemoryEntry[]): MemoryIndex {
    const vectors = new Map<string, number[]>();
    for (const entry of entries) {
      const saved = Object.hasOwn(file.vectors, entry.id) ? file.vectors[entry.id] : undefined;
      if (saved && saved.hash === textHash(indexedText(entry))) vectors.set(entry.id, saved.vector);
    }
    return MemoryIndex.build(entries, file.embedding, vectors);
  }

  /** Vectors of a saved index by entry id, with the hash of the text they were made from. */
  static savedVectors(file: unknown): Map<string, { hash: string; vector: number[] }> {
    const out = new Map<string, { hash: string; vector: number[] }>();
    const parsed = IndexFileSchema.safeParse(file);
    const saved = parsed.success
      ? { embedding: parsed.data.embedding, vectors: Object.entries(parsed.data.vectors) }
      : MemoryIndex.#oramaVectors(file);
    if (!saved?.embedding) return out;
    for (const [id, v] of saved.vectors) if (v.vector.length === saved.embedding.dims) out.set(id, v);
    return out;
  }

  static #oramaVectors(file: unknown): { embedding: IndexEmbedding; vectors: Array<[string, { hash: string; vector: number[] }]> } | null {
    const parsed = OramaFileSchema.safeParse(file);
    if (!parsed.success) return null;
    const vectors: Array<[string, { hash: string; vector: number[] }]> = [];
    for (const doc of Object.values(parsed.data.orama.docs.docs)) if (doc.embedding) vectors.push([doc.id, { hash: doc.hash, vector: doc.embedding }]);
    return { embedding: parsed.data.embedding, vectors };
  }

  /** Number of indexed entries. */
  get size(): number {
    return this.#docs.size;
  }

  /** Adds or replaces one entry (with its vector when the index has an embedding part). */
  put(entry: MemoryEntry, vector?: number[]): void {
    this.delete(entry.id);
    const text = indexedText(entry);
    const doc: Doc = { hash: textHash(text) };
    if (this.embedding && vector && vector.length === this.embedding.dims) {
      doc.vector = vector;
      doc.norm = norm(vector);
    } else if (this.embedding) this.missingVectors.add(entry.id);
    this.#docs.set(entry.id, doc);
    this.#mini.add({ id: entry.id, text });
  }

  /** Removes one entry (no-op when absent). */
  delete(id: string): void {
    if (this.#docs.delete(id)) this.#mini.discard(id);
    this.missingVectors.delete(id);
  }

  /**
   * Ranked hits for a query, best first: BM25 over statement and subject (any query word may
   * match), mixed with vector similarity when `vector` is given and the index has vectors.
   * `offset`/`limit` page through the ranked list; `total` counts every hit.
   */
  query(text: string, opts: { vector?: number[] | null; offset?: number; limit: number }): { hits: IndexHit[]; total: number } {
    const lexical = this.#mini.search(text).map((r): IndexHit => ({ id: String(r.id), score: r.score }));
    const vector = this.embedding && opts.vector && opts.vector.length === this.embedding.dims ? opts.vector : null;
    const ranked = vector ? this.#hybrid(lexical, vector) : lexical;
    const offset = opts.offset ?? 0;
    return { hits: ranked.slice(offset, offset + opts.limit), total: ranked.length };
  }

  /**
   * The lexical hits and the entries whose vector's cosine similarity to `vector` is at least
   * {@link VECTOR_SIMILARITY}, each list's scores divided by its best score, summed with
   * {@link HYBRID_WEIGHTS} per entry, best first (lexical order for equal scores).
   */
  #hybrid(lexical: readonly IndexHit[], vector: readonly number[]): IndexHit[] {
    const mixed = new Map<string, number>();
    const topText = lexical[0]?.score ?? 0;
    for (const h of lexical) mixed.set(h.id, (HYBRID_WEIGHTS.text * h.score) / topText);
    const queryNorm = norm(vector);
    const similar: IndexHit[] = [];
    let topVector = 0;
    if (queryNorm > 0) {
      for (const [id, doc] of this.#docs) {
        if (!doc.vector || !doc.norm) continue;
        let dot = 0;
        for (let i = 0; i < vector.length; i++) dot += vector[i]! * doc.vector[i]!;
        const score = dot / (queryNorm * doc.norm);
        if (score < VECTOR_SIMILARITY) continue;
        similar.push({ id, score });
        topVector = Math.max(topVector, score);
      }
    }
    for (const h of similar) mixed.set(h.id, (mixed.get(h.id) ?? 0) + (HYBRID_WEIGHTS.vector * h.score) / topVector);
    return [...mixed].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score);
  }

  /** The saved form, as a value for JSON. */
  toFile(entriesSha256: string): IndexFile {
    const vectors: IndexFile["vectors"] = {};
    for (const [id, doc] of this.#docs) if (doc.vector) vectors[id] = { hash: doc.hash, vector: doc.vector };
    return { version: INDEX_VERSION, entries_sha256: entriesSha256, embedding: this.embedding, vectors };
  }
}
