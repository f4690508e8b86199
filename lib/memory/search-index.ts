/**
 * The memory search index: an Orama database over each entry's statement and subject (BM25),
 * with the entry's vector when an embedding model is configured (hybrid search). Derived from
 * `memory/entries.json`: it can always be rebuilt from the entries (vectors of unchanged texts
 * are kept from the old index so a rebuild does not embed everything again). Pure: persistence is
 * the service's; this module turns the index into a JSON value and back.
 *
 * Text is cut into words the way the history search does (lib/text/words): CJK characters are
 * words of their own, other scripts keep whole words, folded (case, Latin diacritics, width).
 */
import { createHash } from "node:crypto";
import { count, create, insert, load, remove, save, search, type AnyOrama, type RawData } from "@orama/orama";
import { z } from "zod";
import { isStopWord } from "@/lib/text/stop-words";
import { normalizeText, tokenize } from "@/lib/text/words";
import type { MemoryEntry } from "./schema";

/** Version of the persisted index's layout; another version is rebuilt. */
export const INDEX_VERSION = 2;
/** Smallest cosine similarity for a vector match to count in hybrid search. */
export const VECTOR_SIMILARITY = 0.5;
/** Weights of the lexical and vector scores (each normalized to its best hit) in hybrid search. */
export const HYBRID_WEIGHTS = { text: 0.6, vector: 0.4 } as const;

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
export const IndexEmbeddingSchema = z.object({ key: z.string().min(1), dims: z.number().int().min(1).max(65536) }).nullable();
export type IndexEmbedding = z.infer<typeof IndexEmbeddingSchema>;

/** `memory/index.json`: what the index was built from, and Orama's own saved form. */
export const IndexFileSchema = z.object({
  version: z.literal(INDEX_VERSION),
  /** sha256 of the entries.json bytes the index matches. */
  entries_sha256: z.string(),
  embedding: IndexEmbeddingSchema,
  orama: z.looseObject({ docs: z.looseObject({ docs: z.record(z.string(), z.unknown()) }) }),
});
export type IndexFile = z.infer<typeof IndexFileSchema>;

interface IndexDoc {
  id: string;
  text: string;
  hash: string;
  embedding?: number[];
}

/** One hit: the entry id and its score (BM25, or the hybrid mix). */
export interface IndexHit {
  id: string;
  score: number;
}

function tokenizer() {
  return { language: "english", normalizationCache: new Map<string, string>(), tokenize: (raw: string) => searchTokens(raw) };
}

function emptyDb(embedding: IndexEmbedding): AnyOrama {
  const schema: Record<string, string> = { id: "string", text: "string", hash: "string" };
  if (embedding) schema.embedding = `vector[${embedding.dims}]`;
  return create({ schema: schema as never, components: { tokenizer: tokenizer() } }) as AnyOrama;
}

/** The index of memory entries. */
export class MemoryIndex {
  readonly embedding: IndexEmbedding;
  #db: AnyOrama;
  /** Ids whose vector is missing (the embedding call failed when they were written). */
  readonly missingVectors = new Set<string>();

  private constructor(embedding: IndexEmbedding, db: AnyOrama) {
    this.embedding = embedding;
    this.#db = db;
  }

  /**
   * Builds an index of `entries`. `vectors` gives each entry's vector (by id) when `embedding` is
   * set; an entry without one is indexed for BM25 only and listed in {@link missingVectors}.
   */
  static build(entries: readonly MemoryEntry[], embedding: IndexEmbedding, vectors: ReadonlyMap<string, number[]> = new Map()): MemoryIndex {
    const index = new MemoryIndex(embedding, emptyDb(embedding));
    for (const entry of entries) index.put(entry, vectors.get(entry.id));
    return index;
  }

  /** Restores a saved index; throws when the saved form does not load. */
  static restore(file: IndexFile): MemoryIndex {
    const db = emptyDb(file.embedding);
    load(db, file.orama as unknown as RawData);
    const index = new MemoryIndex(file.embedding, db);
    if (file.embedding) {
      for (const doc of Object.values(file.orama.docs.docs) as IndexDoc[]) if (!doc.embedding) index.missingVectors.add(doc.id);
    }
    return index;
  }

  /** Vectors of a saved index by entry id, with the hash of the text they were made from. */
  static savedVectors(file: unknown): Map<string, { hash: string; vector: number[] }> {
    const out = new Map<string, { hash: string; vector: number[] }>();
    const parsed = IndexFileSchema.safeParse(file);
    if (!parsed.success || !parsed.data.embedding) return out;
    for (const doc of Object.values(parsed.data.orama.docs.docs) as IndexDoc[]) {
      if (typeof doc?.id === "string" && Array.isArray(doc.embedding) && doc.embedding.length === parsed.data.embedding.dims) {
        out.set(doc.id, { hash: doc.hash, vector: doc.embedding });
      }
    }
    return out;
  }

  /** Number of indexed entries. */
  get size(): number {
    return count(this.#db);
  }

  /** Adds or replaces one entry (with its vector when the index has an embedding part). */
  put(entry: MemoryEntry, vector?: number[]): void {
    this.delete(entry.id);
    const text = indexedText(entry);
    const doc: IndexDoc = { id: entry.id, text, hash: textHash(text) };
    if (this.embedding && vector && vector.length === this.embedding.dims) doc.embedding = vector;
    else if (this.embedding) this.missingVectors.add(entry.id);
    if (doc.embedding) this.missingVectors.delete(entry.id);
    insert(this.#db, doc as never);
  }

  /** Removes one entry (no-op when absent). */
  delete(id: string): void {
    remove(this.#db, id);
    this.missingVectors.delete(id);
  }

  /**
   * Ranked hits for a query, best first: BM25 over statement and subject (any query word may
   * match), mixed with vector similarity when `vector` is given and the index has vectors.
   * `offset`/`limit` page through the ranked list; `total` counts every hit.
   */
  query(text: string, opts: { vector?: number[] | null; offset?: number; limit: number }): { hits: IndexHit[]; total: number } {
    const useVector = Boolean(this.embedding && opts.vector && opts.vector.length === this.embedding.dims);
    // includeVectors: without it Orama deletes the vector from each hit, and a hit is the stored
    // document itself, so every search would strip vectors from what the index saves.
    const base = { term: text, properties: ["text"], threshold: 1, offset: opts.offset ?? 0, limit: opts.limit, includeVectors: true };
    const result = useVector
      ? search(this.#db, {
          ...base,
          mode: "hybrid",
          vector: { value: opts.vector!, property: "embedding" },
          similarity: VECTOR_SIMILARITY,
          hybridWeights: HYBRID_WEIGHTS,
        } as never)
      : search(this.#db, base as never);
    const answer = result as { hits: Array<{ id: string; score: number }>; count: number };
    return { hits: answer.hits.map((h) => ({ id: h.id, score: h.score })), total: answer.count };
  }

  /** The saved form, as a value for JSON. */
  toFile(entriesSha256: string): IndexFile {
    return { version: INDEX_VERSION, entries_sha256: entriesSha256, embedding: this.embedding, orama: save(this.#db) as unknown as IndexFile["orama"] };
  }
}
