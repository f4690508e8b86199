import "server-only";
/**
 * The knowledge service of a data folder: one {@link ProjectIndex} per project folder (by real
 * path), started on demand, and `search()` — the three steps of seed 003 §5.3 (narrow, rank,
 * rerank) over a project's index. The composition root (lib/server/app.ts) makes the server's
 * one instance and hands it to the engine and the routes.
 *
 * Waiting: a search on an index that is being built or refreshed waits for it up to `waitMs`
 * (default 3 s: a small project is ready by then); past that it answers from what is indexed so
 * far and says how far the build is.
 */
import type { ChatModel } from "@/lib/models/types";
import type { Embedder } from "@/lib/models/embeddings";
import { keepWholeItems } from "@/lib/tools/shape";
import type { KnowledgeLimits } from "./config";
import { ProjectIndex, type KnowledgeParts, type RefreshResult } from "./project-index";
import { parseDocId, pathFilter, rankPassages } from "./rank";
import { rerank, RERANK_TOP } from "./rerank";
import type { KnowledgeAnswer, KnowledgeHit, ProjectIndexStatus } from "./schema";

/** Passages returned by default. */
const DEFAULT_RESULTS = 8;
/** Characters of one passage's text in an answer. */
const HIT_TEXT_CHARS = 1500;

/** What a search needs besides the query. */
export interface SearchOptions {
  paths?: readonly string[];
  /** The embedding model, when models.json names one. */
  embedder?: Embedder | null;
  /** The reranker, when models.json names one. */
  reranker?: ChatModel | null;
  limit?: number;
  /** Characters of JSON the answer may take. */
  maxOutputChars?: number;
  signal?: AbortSignal;
  meta?: { conversation_id?: string; trace_id?: string };
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** See the file comment. */
export class KnowledgeService {
  readonly root: string;
  readonly limits: KnowledgeLimits;
  readonly parts: KnowledgeParts;
  readonly #projects = new Map<string, ProjectIndex>();

  constructor(root: string, limits: KnowledgeLimits, parts: KnowledgeParts) {
    this.root = root;
    this.limits = limits;
    this.parts = parts;
  }

  /** The index of a project folder (its real path), created (not yet built) on first use. */
  project(projectReal: string): ProjectIndex {
    let p = this.#projects.get(projectReal);
    if (!p) {
      p = new ProjectIndex(this.root, projectReal, this.limits, this.parts);
      this.#projects.set(projectReal, p);
    }
    return p;
  }

  /** The index if it was ever started in this process. */
  known(projectReal: string): ProjectIndex | undefined {
    return this.#projects.get(projectReal);
  }

  /** Starts a build or refresh in the background when the index is older than `refreshMs` (nothing waits for it). */
  ensure(projectReal: string, embedder: Embedder | null = null): Promise<RefreshResult> | null {
    const p = this.project(projectReal);
    if (p.busy) return p.running;
    if (p.state !== "none" && p.state !== "error" && Date.now() - p.lastRefresh < this.limits.refreshMs && p.embeddingKey === (embedder?.key ?? null)) return null;
    const run = p.refresh({ embedder });
    run.catch(() => undefined);
    return run;
  }

  /** Throws away a project's stored index and builds it again in the background. */
  rebuild(projectReal: string, embedder: Embedder | null = null): Promise<RefreshResult> {
    return this.project(projectReal).refresh({ rebuild: true, embedder });
  }

  /** The state of these projects' indexes (never started ones as `none`). */
  status(projectReals: readonly string[]): ProjectIndexStatus[] {
    return projectReals.map((p) => this.project(p).status());
  }

  /**
   * Searches a project: narrow by `paths`, rank by BM25 (+ vectors), rerank the top
   * {@link RERANK_TOP} when a reranker is given; the answer fits `maxOutputChars` with whole passages.
   * @throws WorkspaceError / ValidationError for a bad `paths` entry.
   */
  async search(projectReal: string, query: string, options: SearchOptions = {}): Promise<KnowledgeAnswer> {
    const filter = pathFilter(options.paths);
    const p = this.project(projectReal);
    const running = this.ensure(projectReal, options.embedder ?? null);
    if (running) await Promise.race([running, sleep(this.limits.waitMs)]);
    const notes: string[] = [];
    const st = p.status();
    if (st.state === "building") notes.push(`the index of this project is still being built (${st.files_indexed} of ${st.files_total} files so far); these passages come from the files indexed so far — search again shortly for the rest`);
    if (st.state === "error") notes.push(`the index could not be built: ${st.error}`);

    let vectors: { query: Float32Array; byId: ReadonlyMap<string, Float32Array> } | undefined;
    if (options.embedder && p.embeddingKey === options.embedder.key && p.vectors.size) {
      try {
        const [v] = await options.embedder.embed([query], options.signal);
        vectors = { query: new Float32Array(v!), byId: p.vectors };
      } catch (error) {
        notes.push(`the embedding model failed (${(error as Error).message.slice(0, 200)}); ranked by BM25 alone`);
      }
    }
    const limit = Math.max(1, Math.min(20, options.limit ?? DEFAULT_RESULTS));
    const ids = rankPassages({ mini: p.mini, query, filter, vectors, limit: Math.max(limit, options.reranker ? RERANK_TOP : 0) });
    let hits: KnowledgeHit[] = [];
    for (const id of ids) {
      const { file, n } = parseDocId(id);
      const passage = p.passage(file, n);
      if (!passage) continue;
      const lines = `${passage.start}-${passage.end}`;
      const cut = passage.text.length > HIT_TEXT_CHARS;
      const text = cut ? `${passage.text.slice(0, HIT_TEXT_CHARS)}…` : passage.text;
      hits.push({ location: `${file}:${lines}`, file, lines, heading: passage.heading, text });
      if (p.truncated(file) && !notes.some((x) => x.includes(file))) notes.push(`${file} is indexed only in part (its first ${this.limits.maxFileBytes} bytes)`);
    }
    let reranked = false;
    if (options.reranker && hits.length > 1) {
      const top = hits.slice(0, RERANK_TOP);
      const outcome = await rerank(options.reranker, query, top, { signal: options.signal, meta: options.meta });
      if (outcome.ok) {
        hits = [...outcome.order.map((i) => top[i]!), ...hits.slice(RERANK_TOP)];
        reranked = true;
      } else notes.push(outcome.reason);
    }
    hits = hits.slice(0, limit);
    if (!hits.length && st.state === "ready") notes.push("no passage matches; try other words, or search_files for an exact string");
    const base = { ranking: vectors ? ("bm25+vectors" as const) : ("bm25" as const), reranked, index: { state: st.state, files_indexed: st.files_indexed, files_total: st.files_total } };
    return keepWholeItems(hits, Math.max(1, options.maxOutputChars ?? 12_000), (kept, omitted): KnowledgeAnswer => {
      const note = [...notes, ...(omitted ? [`${omitted} more passages not shown (the output cap); narrow with paths`] : [])].join("; ");
      return { passages: kept, ...base, truncated: omitted > 0, ...(omitted ? { omitted } : {}), ...(note ? { note } : {}) };
    }).value;
  }
}
