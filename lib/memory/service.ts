import "server-only";
/**
 * The memory service: long-term memory's one writer and reader in the process, built by the
 * composition root (lib/server/app.ts). The entries are loaded once and held in memory; every change is
 * redacted first (lib/memory/redact), merged (./merge), saved atomically to the entries' store
 * (./entries-store.ts: `memory/entries.json`, or PostgreSQL, shared by every instance), then
 * applied to the in-memory entries and search index (./search-index); the index file is saved
 * shortly after (it is derived, and rebuilt when missing, broken or outdated). Writes are
 * serialized, each over the entries as the store holds them (another instance's change loaded
 * first); a save refused because another instance changed the entries meanwhile loads them again
 * and merges anew. Reads never wait for the store, except that at most once a second a read
 * asks the store's stamp, and loads the entries again when another instance moved it on.
 */
import { randomBytes } from "node:crypto";
import { CorruptFileError, NotFoundError } from "@/lib/contracts/errors";
import type { Embedder } from "@/lib/models";
import type { StoreProblem } from "@/lib/contracts/http";
import type { FileQueues } from "@/lib/store";
import { canRead } from "./access";
import { checkLevel, editedSpans } from "./edit";
import { historyItem, withHistory, type StatementShape } from "./merge";
import { mergeBatch, type MergedCandidate } from "./merge-batch";
import { readIndexFile, writeIndexFile } from "./memory-files";
import { EntriesChangedError, fileEntriesStore, type MemoryEntriesStore } from "./entries-store";
import { rankEntries, type RecallHit } from "./recall";
import { redactStatement } from "@/lib/redaction/redact-fields";
import { accountPatternsFor } from "./redaction-config";
import { indexedText, MemoryIndex, textHash, type IndexEmbedding } from "./search-index";
import {
  MemoryCandidateSchema,
  MemoryEntrySchema,
  type CreateMemoryBody,
  type MemoryCandidate,
  type MemoryEntry,
  type MemoryListAnswer,
  type MemoryListQuery,
  type MemoryReader,
  type PatchMemoryBody,
} from "./schema";

/** How long after a change the index file is saved (ms). */
const INDEX_SAVE_DELAY_MS = 1000;
/** How long after a failed embedding call vectors are tried again (ms). */
const EMBED_RETRY_MS = 60_000;
/** How often a read asks the store whether another instance changed the entries (ms). */
const STAMP_CHECK_MS = 1000;
/** How many times a write is merged anew after another instance's change refused its save. */
const MAX_SAVE_RETRIES = 5;
/** Default number of entries a recall returns. */
const DEFAULT_RECALL_LIMIT = 8;

/** What a hand-made entry became: added, or merged into an older one. */
export type CreateResult = MergedCandidate;

export type { RecallHit } from "./recall";

/** Options of the service (tests give their own embedder source). */
export interface MemoryServiceOptions {
  /** The embedder to use now, or null (the composition root gives the `embedding` key of models.json). */
  embedder: () => Promise<Embedder | null>;
  /** The process's per-file write queues (lib/store/atomic.ts), shared with every other writer of the data folder. */
  queues: FileQueues;
  /** Where the entries are kept (the composition root gives the backend's); default the data folder's `memory/entries.json`. */
  entries?: MemoryEntriesStore;
}

function newId(): string {
  return `mem_${randomBytes(9).toString("base64url")}`;
}

/** Long-term memory of one data folder. */
export class MemoryService {
  readonly root: string;
  #entries = new Map<string, MemoryEntry>();
  #shapes = new Map<string, StatementShape>();
  #index: MemoryIndex = MemoryIndex.build([], null);
  #sha = "";
  /** The store's stamp the entries held here are of. */
  #stamp = "";
  #stampCheckedAt = 0;
  #ready: Promise<void>;
  #loaded: Promise<void>;
  #chain: Promise<unknown> = Promise.resolve();
  #problems: StoreProblem[] = [];
  #embedNotice: string | null = null;
  #embedRetryAt = 0;
  #saveTimer: NodeJS.Timeout | null = null;
  #blocked: string | null = null;
  readonly #embedder: () => Promise<Embedder | null>;
  readonly #queues: FileQueues;
  readonly #store: MemoryEntriesStore;

  constructor(root: string, options: MemoryServiceOptions) {
    this.root = root;
    this.#embedder = options.embedder;
    this.#queues = options.queues;
    this.#store = options.entries ?? fileEntriesStore(root, options.queues);
    // Never rejects: what goes wrong is recorded for /api/health and memory starts empty.
    let entriesRead: () => void = () => undefined;
    this.#loaded = new Promise<void>((resolve) => (entriesRead = resolve));
    this.#ready = this.#load(entriesRead)
      .catch((error: unknown) => {
        this.#problems.push({ file: this.#store.where, message: `memory could not be loaded: ${(error as Error).message}` });
      })
      .finally(entriesRead);
  }

  /** Resolves once the entries and the index are loaded. */
  ready(): Promise<void> {
    return this.#ready;
  }

  /** Resolves once entries.json has been read (its problems known), without waiting for the index. */
  loaded(): Promise<void> {
    return this.#loaded;
  }

  /** Problems for /api/health: a broken entries.json kept aside, embedding failures. */
  notices(): StoreProblem[] {
    const out = [...this.#problems];
    if (this.#embedNotice) out.push({ file: "memory/index.json", message: this.#embedNotice });
    return out;
  }

  async #load(entriesRead: () => void): Promise<void> {
    const loaded = await this.#store.load();
    const what = this.#store.where;
    if (!loaded.ok) {
      const where = loaded.keptAs ? `kept as memory/${loaded.keptAs.split(/[\\/]/).pop()}` : "left in place";
      this.#problems.push({ file: what, message: `${loaded.reason}; the broken ${what} is ${where} and memory starts empty (merge it back by hand)` });
      // Left in place, it must not be written over: writes are refused until it is repaired.
      if (!loaded.keptAs) this.#blocked = `${what} is broken and could not be moved aside; repair it and restart`;
    } else {
      for (const e of loaded.entries) this.#entries.set(e.id, e);
      this.#sha = loaded.sha256;
      this.#stamp = loaded.stamp;
    }
    for (const name of await this.#store.brokenCopies()) {
      if (!this.#problems.some((p) => p.message.includes(name))) {
        this.#problems.push({ file: `memory/${name}`, message: "a broken copy of entries.json kept aside by an earlier start; merge it back by hand, then delete it" });
      }
    }
    entriesRead();
    await this.#openIndex();
  }

  /**
   * Opens the index with the saved vectors when the saved index matches entries.json and the
   * embedding model; else rebuilds it (embedding what has no saved vector of its current text).
   */
  async #openIndex(): Promise<void> {
    const embedder = await this.#currentEmbedder();
    const saved = await readIndexFile(this.root);
    if (saved.file && saved.file.entries_sha256 === this.#sha && (saved.file.embedding?.key ?? null) === (embedder?.key ?? null)) {
      this.#index = MemoryIndex.restore(saved.file, [...this.#entries.values()]);
      return;
    }
    await this.#rebuild(embedder, saved.raw);
  }

  async #currentEmbedder(): Promise<Embedder | null> {
    try {
      const embedder = await this.#embedder();
      // None configured (any more): nothing is wrong with embedding.
      if (!embedder) this.#embedNotice = null;
      return embedder;
    } catch (error) {
      // A broken models.json is reported on its own (lib/models registryProblem); search is lexical meanwhile.
      if (error instanceof CorruptFileError) {
        this.#embedNotice = null;
        return null;
      }
      this.#embedNotice = `the embedding model cannot be used (${(error as Error).message}); memory search is lexical only`;
      return null;
    }
  }

  /** Builds the index from the entries, reusing saved vectors of unchanged texts, embedding the rest. */
  async #rebuild(embedder: Embedder | null, savedRaw: unknown): Promise<void> {
    const entries = [...this.#entries.values()];
    let embedding: IndexEmbedding = null;
    const vectors = new Map<string, number[]>();
    if (embedder) {
      const saved = MemoryIndex.savedVectors(savedRaw);
      const todo: MemoryEntry[] = [];
      for (const e of entries) {
        const old = saved.get(e.id);
        if (old && old.hash === textHash(indexedText(e))) vectors.set(e.id, old.vector);
        else todo.push(e);
      }
      const fresh = await this.#embed(embedder, todo.map(indexedText));
      if (fresh) todo.forEach((e, i) => vectors.set(e.id, fresh[i]!));
      const dims = vectors.values().next().value?.length;
      if (dims) embedding = { key: embedder.key, dims };
    }
    this.#index = MemoryIndex.build(entries, embedding, vectors);
    this.#scheduleSave();
  }

  /** Vectors of `texts`, or null after recording why (the caller falls back to BM25). */
  async #embed(embedder: Embedder, texts: string[]): Promise<number[][] | null> {
    if (texts.length === 0) return [];
    if (Date.now() < this.#embedRetryAt) return null;
    try {
      const vectors = await embedder.embed(texts);
      this.#embedNotice = null;
      return vectors;
    } catch (error) {
      this.#embedRetryAt = Date.now() + EMBED_RETRY_MS;
      this.#embedNotice = `embedding with model "${embedder.key}" failed (${(error as Error).message}); memory search falls back to BM25 until it works again`;
      return null;
    }
  }

  /** The embedder when the index is built for it; rebuilds the index when the configured model changed. */
  async #indexEmbedder(): Promise<Embedder | null> {
    const embedder = await this.#currentEmbedder();
    const built = this.#index.embedding?.key ?? null;
    if ((embedder?.key ?? null) !== built && (built !== null || Date.now() >= this.#embedRetryAt)) {
      await this.#serial(() => this.#rebuild(embedder, this.#index.embedding ? this.#index.toFile(this.#sha) : null));
    }
    return embedder && this.#index.embedding?.key === embedder.key ? embedder : null;
  }

  #scheduleSave(): void {
    if (this.#saveTimer) return;
    this.#saveTimer = setTimeout(() => {
      this.#saveTimer = null;
      void this.saveIndex().catch((error: unknown) => console.error("[astrion] memory: could not save the search index (it is rebuilt at the next start)", error));
    }, INDEX_SAVE_DELAY_MS);
    this.#saveTimer.unref();
  }

  /** Saves the index file now (tests, shutdown). */
  async saveIndex(): Promise<void> {
    if (this.#saveTimer) clearTimeout(this.#saveTimer);
    this.#saveTimer = null;
    await this.#ready;
    await writeIndexFile(this.#queues, this.root, this.#index.toFile(this.#sha));
  }

  /** Runs `fn` after every earlier write. */
  #serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#chain.then(fn, fn);
    this.#chain = run.catch(() => undefined);
    return run;
  }

  /**
   * Runs a write after every earlier one, over the entries as the store holds them now (another
   * instance's change loaded first); merged anew while another instance's change refuses its save.
   */
  #write<T>(fn: () => Promise<T>): Promise<T> {
    return this.#serial(async () => {
      if ((await this.#store.stamp()) !== this.#stamp) await this.#reload();
      for (let retry = 0; ; retry++) {
        try {
          return await fn();
        } catch (error) {
          if (!(error instanceof EntriesChangedError) || retry >= MAX_SAVE_RETRIES) throw error;
          await this.#reload();
        }
      }
    });
  }

  /** Before a read: at most once a second, whether another instance moved the store's stamp on; then the entries are loaded again. */
  async #fresh(): Promise<void> {
    await this.#ready;
    if (this.#blocked || Date.now() - this.#stampCheckedAt < STAMP_CHECK_MS) return;
    this.#stampCheckedAt = Date.now();
    const stamp = await this.#store.stamp().catch(() => this.#stamp);
    if (stamp !== this.#stamp) await this.#serial(() => this.#reload());
  }

  /** The store's entries now, held here and indexed (vectors of unchanged texts kept). */
  async #reload(): Promise<void> {
    const loaded = await this.#store.load();
    if (!loaded.ok || loaded.stamp === this.#stamp) return;
    const saved = this.#index.embedding ? this.#index.toFile(this.#sha) : null;
    this.#entries = new Map(loaded.entries.map((e) => [e.id, e]));
    this.#sha = loaded.sha256;
    this.#stamp = loaded.stamp;
    this.#shapes.clear();
    await this.#rebuild(await this.#currentEmbedder(), saved);
  }

  /**
   * Writes `changed` entries (and drops `removed` ids): entries.json first, then memory and the
   * index, so a failed write changes nothing. Vectors are computed for changed texts.
   */
  async #commit(changed: MemoryEntry[], removed: string[] = []): Promise<void> {
    if (this.#blocked) throw new CorruptFileError(this.#store.where, this.#blocked);
    for (const e of changed) MemoryEntrySchema.parse(e);
    const next = new Map(this.#entries);
    for (const id of removed) next.delete(id);
    for (const e of changed) next.set(e.id, e);
    const saved = await this.#store.save(this.#stamp, { entries: [...next.values()], changed, removed });
    this.#entries = next;
    this.#sha = saved.sha256;
    this.#stamp = saved.stamp;
    const embedder = await this.#currentEmbedder();
    const built = this.#index.embedding?.key ?? null;
    if ((embedder?.key ?? null) !== built && (embedder === null || Date.now() >= this.#embedRetryAt)) {
      // The first vectors (their width is known only now), or the embedding model changed: all entries again.
      await this.#rebuild(embedder, built ? this.#index.toFile(this.#sha) : null);
      return;
    }
    const vectors = embedder && embedder.key === built ? await this.#embed(embedder, changed.map(indexedText)) : null;
    for (const id of removed) {
      this.#index.delete(id);
      this.#shapes.delete(id);
    }
    changed.forEach((e, i) => {
      this.#shapes.delete(e.id);
      this.#index.put(e, vectors?.[i]);
    });
    this.#scheduleSave();
  }

  /** Redacts, then adds or merges (duplicate → update older, contradiction → update older; history kept). */
  async upsert(candidates: MemoryCandidate[]): Promise<{ added: MemoryEntry[]; updated: MemoryEntry[] }> {
    const parsed = candidates.map((c) => MemoryCandidateSchema.parse(c));
    await this.#ready;
    return this.#write(async () => {
      const merged = await this.#merge(parsed, "distiller");
      return { added: merged.filter((m) => m.action === "added").map((m) => m.entry), updated: dedupe(merged.filter((m) => m.action !== "added").map((m) => m.entry)) };
    });
  }

  /** Redacts the candidates with the configured account patterns, merges them (./merge-batch.ts) and saves what changed. */
  async #merge(candidates: MemoryCandidate[], author: MemoryEntry["author"]): Promise<CreateResult[]> {
    const accountPatterns = await accountPatternsFor(this.root);
    const redacted = candidates.map((c) => ({ ...c, ...redactStatement(c.statement, c.subject, { accountPatterns }) }));
    const { changed, results } = mergeBatch(this.#entries.values(), redacted, { author, now: new Date().toISOString(), newId, shapes: this.#shapes });
    await this.#commit(changed);
    return results;
  }

  /** Hybrid relevance (BM25 over statement+subject, + vectors when an embedding model is configured), access-filtered. */
  async recall(q: { text: string; reader: MemoryReader; limit?: number }): Promise<RecallHit[]> {
    await this.#fresh();
    const limit = Math.max(1, Math.min(q.limit ?? DEFAULT_RECALL_LIMIT, 100));
    const ranked = await this.#ranked(q.text, (e) => canRead(e, q.reader), limit);
    return ranked.slice(0, limit);
  }

  /** Ranked, filtered entries for `text` (see {@link rankEntries}); the query is embedded when the index has vectors. */
  async #ranked(text: string, keep: (e: MemoryEntry) => boolean, want: number): Promise<RecallHit[]> {
    if (text.trim() === "" || this.#entries.size === 0) return [];
    const embedder = await this.#indexEmbedder();
    const vector = embedder ? ((await this.#embed(embedder, [text]))?.[0] ?? null) : null;
    return rankEntries(this.#index, this.#entries, text, vector, keep, want);
  }

  /** Entries for the Memory page: searched (ranked) or newest first, filtered, paged. Not access-filtered: a person sees all. */
  async list(filter: MemoryListQuery): Promise<MemoryListAnswer> {
    await this.#fresh();
    const keep = (e: MemoryEntry) =>
      (!filter.kind || e.kind === filter.kind) &&
      (!filter.level || e.level === filter.level) &&
      (!filter.project || (filter.project === "none" ? e.project_path === null : e.project_path === filter.project));
    const all = filter.q?.trim()
      ? (await this.#ranked(filter.q, keep, Number.MAX_SAFE_INTEGER)).map((h) => h.entry)
      : [...this.#entries.values()].filter(keep).sort((a, b) => (a.updated_at < b.updated_at ? 1 : a.updated_at > b.updated_at ? -1 : 0));
    const projects = [...new Set([...this.#entries.values()].map((e) => e.project_path).filter((p): p is string => p !== null))].sort();
    return { entries: all.slice(filter.offset, filter.offset + filter.limit), total: all.length, offset: filter.offset, limit: filter.limit, projects };
  }

  /** One entry, or a NotFoundError. */
  async get(id: string): Promise<MemoryEntry> {
    await this.#fresh();
    return this.#entry(id);
  }

  #entry(id: string): MemoryEntry {
    const entry = this.#entries.get(id);
    if (!entry) throw new NotFoundError(`No memory entry "${id}"`, { id });
    return entry;
  }

  /** Number of entries. */
  get size(): number {
    return this.#entries.size;
  }

  /** Adds an entry by hand (author "person"); redacted and merged like any candidate. */
  async create(input: CreateMemoryBody): Promise<CreateResult> {
    checkLevel(input.level, input.project_path, input.grant);
    const candidate = MemoryCandidateSchema.parse({ ...input, source: input.source ?? { conversation_id: null, message_ids: [] } });
    await this.#ready;
    return this.#write(async () => (await this.#merge([candidate], "person"))[0]!);
  }

  /** Edits the text or kind (history reason "edit") or the level, grant or project ("relevel"); redacted first. */
  async update(id: string, patch: PatchMemoryBody): Promise<MemoryEntry> {
    await this.#ready;
    return this.#write(async () => {
      const old = this.#entry(id);
      const textChanged = patch.statement !== undefined || patch.subject !== undefined || (patch.kind !== undefined && patch.kind !== old.kind);
      const level = patch.level ?? old.level;
      const project_path = patch.project_path !== undefined ? patch.project_path : old.project_path;
      const grant = level === "restricted" ? [...new Set(patch.grant ?? old.grant)] : [];
      checkLevel(level, project_path, grant);
      const now = new Date().toISOString();
      let next: MemoryEntry = { ...old, kind: patch.kind ?? old.kind, level, project_path, grant, updated_at: now };
      if (patch.statement !== undefined || patch.subject !== undefined) {
        const r = redactStatement(patch.statement ?? old.statement, patch.subject ?? old.subject, { accountPatterns: await accountPatternsFor(this.root) });
        // Text already stored was redacted when written; only the spans of the fields given are new.
        next = { ...next, statement: r.statement, subject: r.subject, redactions: editedSpans(old, r.redactions, patch) };
      }
      next.history = withHistory(old.history, historyItem(old, textChanged ? "edit" : "relevel", now));
      await this.#commit([next]);
      return next;
    });
  }

  /** Deletes an entry; a NotFoundError when there is none. */
  async remove(id: string): Promise<void> {
    await this.#ready;
    await this.#write(async () => {
      this.#entry(id);
      await this.#commit([], [id]);
    });
  }
}

function dedupe(entries: MemoryEntry[]): MemoryEntry[] {
  return [...new Map(entries.map((e) => [e.id, e])).values()];
}
