import "server-only";
/**
 * One project folder's knowledge index: built in the background, refreshed incrementally, saved
 * under `<data root>/knowledge/<hash of the project's real path>/`:
 * - `manifest.json`: per file its size, modification time, shard and passage count; what was
 *   skipped; the embedding model the vectors come from;
 * - `chunks/<nn>.json`: the passages (lines, heading, text, vector) of the files hashing to
 *   shard nn — a change to one file rewrites one shard, not every passage of the project;
 * The BM25 index (MiniSearch) lives in memory and is built from the shards when the index is
 * loaded, {@link BATCH_PASSAGES} passages at a time with a yield between: it is not stored,
 * because MiniSearch serializes in one synchronous call that held the event loop for hundreds of
 * milliseconds on a 3,000-file project (bench/knowledge.mjs), while adding passages in batches
 * never holds it long. Every file is written atomically in the seed's JSON style (lib/store).
 *
 * The event loop stays free: files are read asynchronously, at most `maxFileBytes` of each (a
 * 1,000,000-character file has only its beginning indexed and is marked truncated), and the work
 * yields (setImmediate) after every batch of {@link BATCH_FILES} files or {@link BATCH_PASSAGES}
 * passages added.
 */
import { createHash } from "node:crypto";
import { constants as fsConstants, promises as fs } from "node:fs";
import path from "node:path";
import type MiniSearch from "minisearch";
import type { Embedder } from "@/lib/models/embeddings";
import { readJsonFile, toPythonJsonBytes, writeFileAtomic, writeJsonAtomic, type FileQueues } from "@/lib/store";
import type { Workspace } from "@/lib/workspace";
import { chunkFile } from "./chunk";
import type { KnowledgeLimits } from "./config";
import { decodeVector, docId, docOf, encodeVector, newMini, type IndexedDoc } from "./rank";
import { KNOWLEDGE_FORMAT, ManifestSchema, ShardSchema, type IndexState, type Manifest, type Passage, type ProjectIndexStatus } from "./schema";
import { walkProject, type WalkedFile } from "./walk";

/** Shards of the chunk store. */
const SHARDS = 64;
/** Files read between two yields to the event loop. */
const BATCH_FILES = 16;
/** Passages added to MiniSearch between two yields when loading. */
const BATCH_PASSAGES = 500;
/** Bytes that decide whether a file is binary (a NUL among them, as git decides). */
const SNIFF_BYTES = 8000;

const yieldLoop = () => new Promise<void>((r) => setImmediate(r));

/** The folder of a project's index. */
export function indexDir(dataRoot: string, projectReal: string): string {
  return path.join(dataRoot, "knowledge", createHash("sha256").update(projectReal).digest("hex").slice(0, 16));
}

/** The shard of a file. */
function shardOf(rel: string): number {
  return createHash("md5").update(rel).digest().readUInt16BE(0) % SHARDS;
}

const shardName = (n: number) => `${String(n).padStart(2, "0")}.json`;

/** What one refresh did: the files read again and the files dropped. */
/**
 * What the indexes of one server share, made by the composition root: the process's per-file
 * write queues (the index files are written through them) and its workspace (whose protected
 * folders a walk never enters, and which resolves a project folder).
 */
export interface KnowledgeParts {
  readonly queues: FileQueues;
  readonly workspace: Workspace;
}

export interface RefreshResult {
  reindexed: string[];
  removed: string[];
}

/** Options of a refresh. */
export interface RefreshOptions {
  /** Throw away what is stored and read every file again. */
  rebuild?: boolean;
  embedder?: Embedder | null;
}

/** A file's first `max` bytes, or null for a binary or unreadable file. */
async function readHead(abs: string, max: number): Promise<{ text: string; truncated: boolean } | "binary" | null> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(abs, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return null;
    const length = Math.min(stat.size, max);
    const buf = Buffer.alloc(length);
    let read = 0;
    while (read < length) {
      // The first read is the sniff: a binary file costs no more than its first bytes.
      const want = read === 0 ? Math.min(length, SNIFF_BYTES) : length - read;
      const { bytesRead } = await handle.read(buf, read, want, read);
      if (bytesRead === 0) break;
      read += bytesRead;
      if (read <= SNIFF_BYTES && buf.subarray(0, read).includes(0)) return "binary";
    }
    const bytes = buf.subarray(0, read);
    return { text: new TextDecoder("utf-8").decode(bytes, { stream: true }), truncated: stat.size > read };
  } catch {
    return null;
  } finally {
    await handle.close().catch(() => undefined);
  }
}

function emptyManifest(project: string): Manifest {
  const now = new Date().toISOString();
  return { format: KNOWLEDGE_FORMAT, project_path: project, created_at: now, updated_at: now, embedding_key: null, embedding: null, embedding_error: null, files: {}, skipped: { gitignored: 0, binary: 0, over_file_limit: 0, unreadable: 0 } };
}

/** See the file comment. */
export class ProjectIndex {
  readonly project: string;
  readonly dir: string;
  readonly #limits: KnowledgeLimits;
  readonly #parts: KnowledgeParts;
  #manifest: Manifest | null = null;
  #shards = new Map<number, Map<string, Passage[]>>();
  #mini: MiniSearch<IndexedDoc> = newMini();
  #vectors = new Map<string, Float32Array>();
  #state: IndexState = "none";
  #error: string | null = null;
  #progress = { indexed: 0, total: 0 };
  #running: Promise<RefreshResult> | null = null;
  #again: RefreshOptions | null = null;
  #queued: Promise<RefreshResult> | null = null;
  #lastRefresh = 0;
  #loaded = false;

  constructor(dataRoot: string, projectReal: string, limits: KnowledgeLimits, parts: KnowledgeParts) {
    this.project = projectReal;
    this.dir = indexDir(dataRoot, projectReal);
    this.#limits = limits;
    this.#parts = parts;
  }

  get state(): IndexState {
    return this.#state;
  }

  /** The MiniSearch index (read-only use). */
  get mini(): MiniSearch<IndexedDoc> {
    return this.#mini;
  }

  /** Vectors by doc id (empty without an embedding model). */
  get vectors(): ReadonlyMap<string, Float32Array> {
    return this.#vectors;
  }

  /** The embedding key the index was built for (its vectors, when the model answered, come from it). */
  get embeddingKey(): string | null {
    return this.#manifest?.embedding_key ?? null;
  }

  /** When the last refresh finished (epoch ms; 0 before any). */
  get lastRefresh(): number {
    return this.#lastRefresh;
  }

  /** Whether a build or refresh is running. */
  get busy(): boolean {
    return this.#running !== null;
  }

  /** The running refresh, if any. */
  get running(): Promise<RefreshResult> | null {
    return this.#running;
  }

  /** A passage by doc id. */
  passage(file: string, n: number): Passage | undefined {
    return this.#shards.get(shardOf(file))?.get(file)?.[n];
  }

  /** Whether a file was indexed only in part. */
  truncated(file: string): boolean {
    return this.#manifest?.files[file]?.truncated ?? false;
  }

  /** The index's state for the API and the tool. */
  status(): ProjectIndexStatus {
    const m = this.#manifest;
    const files = m ? Object.values(m.files).filter((f) => !f.binary) : [];
    const building = this.#state === "building";
    return {
      project_path: this.project,
      state: this.#state,
      files_indexed: building ? this.#progress.indexed : files.length,
      files_total: building ? Math.max(this.#progress.total, this.#progress.indexed) : files.length,
      passages: files.reduce((n, f) => n + f.passages, 0),
      truncated_files: files.filter((f) => f.truncated).length,
      skipped: m?.skipped ?? { gitignored: 0, binary: 0, over_file_limit: 0, unreadable: 0 },
      last_update: this.#lastRefresh && m ? m.updated_at : null,
      error: this.#error ?? m?.embedding_error ?? null,
      embedding: m?.embedding?.key ?? null,
    };
  }

  /**
   * Starts a refresh (the first one loads what is stored, then brings it up to date) unless one
   * runs; a request during a run makes it run once more afterwards. Resolves when the refresh it
   * joined or started ends.
   */
  refresh(options: RefreshOptions = {}): Promise<RefreshResult> {
    if (this.#running) {
      this.#again = { rebuild: (this.#again?.rebuild ?? false) || options.rebuild, embedder: options.embedder };
      this.#queued ??= this.#running.then(() => {
        const again = this.#again ?? {};
        this.#again = null;
        this.#queued = null;
        return this.refresh(again);
      });
      return this.#queued;
    }
    const run = this.#refresh(options)
      .catch((error: unknown) => {
        this.#state = "error";
        this.#error = error instanceof Error ? error.message : String(error);
        console.error(`[astrion] knowledge index of ${this.project}: ${this.#error}`);
        return { reindexed: [], removed: [] };
      })
      .finally(() => {
        this.#running = null;
      });
    this.#running = run;
    return run;
  }

  /**
   * Reads only the manifest of a stored index, so its state can be shown (Settings) without
   * loading its passages; the first refresh loads the rest.
   */
  async peek(): Promise<void> {
    if (this.#loaded || this.#manifest || this.#running) return;
    const manifest = await readJsonFile(path.join(this.dir, "manifest.json"), ManifestSchema).catch(() => null);
    if (!manifest || manifest.project_path !== this.project || this.#loaded || this.#running) return;
    this.#manifest = manifest;
    this.#lastRefresh = Date.parse(manifest.updated_at) || 0;
    this.#state = "ready";
  }

  async #load(): Promise<void> {
    this.#loaded = true;
    this.#manifest = null;
    let manifest: Manifest;
    try {
      manifest = await readJsonFile(path.join(this.dir, "manifest.json"), ManifestSchema);
    } catch {
      return; // nothing stored, another format, or broken: built afresh
    }
    if (manifest.project_path !== this.project) return;
    const shards = new Map<number, Map<string, Passage[]>>();
    for (let n = 0; n < SHARDS; n++) {
      const file = path.join(this.dir, "chunks", shardName(n));
      const shard = await readJsonFile(file, ShardSchema).catch(() => null);
      const map = new Map(Object.entries(shard?.files ?? {}));
      for (const rel of map.keys()) if (!manifest.files[rel]) map.delete(rel);
      shards.set(n, map);
    }
    // A file whose passages are missing from its shard is read again by the refresh.
    for (const [rel, f] of Object.entries(manifest.files)) if (!f.binary && !shards.get(f.shard)?.has(rel)) delete manifest.files[rel];
    // The BM25 index is built again from the passages, in batches that yield (see the file comment).
    const mini = newMini();
    let added = 0;
    for (const map of shards.values()) {
      for (const [rel, list] of map) {
        mini.addAll(list.map((p, i) => docOf(rel, i, p.heading, p.text)));
        added += list.length;
        if (added >= BATCH_PASSAGES) {
          added = 0;
          await yieldLoop();
        }
      }
    }
    for (const map of shards.values()) for (const [rel, list] of map) list.forEach((p, i) => p.vector && this.#vectors.set(docId(rel, i), decodeVector(p.vector)));
    this.#manifest = manifest;
    this.#shards = shards;
    this.#mini = mini;
    this.#lastRefresh = Date.parse(manifest.updated_at) || 0;
    this.#state = "ready";
  }

  #drop(rel: string): void {
    const f = this.#manifest!.files[rel];
    if (!f) return;
    const list = this.#shards.get(f.shard)?.get(rel) ?? [];
    for (let i = 0; i < list.length; i++) {
      const id = docId(rel, i);
      if (this.#mini.has(id)) this.#mini.discard(id);
      this.#vectors.delete(id);
    }
    this.#shards.get(f.shard)?.delete(rel);
    delete this.#manifest!.files[rel];
  }

  async #refresh(options: RefreshOptions): Promise<RefreshResult> {
    if (this.#state === "none" || this.#state === "error") this.#state = "building";
    if (!this.#loaded) {
      if (options.rebuild) this.#loaded = true;
      else await this.#load();
    }
    const embedder = options.embedder ?? null;
    const wantKey = embedder?.key ?? null;
    // Another embedding model (or none any more): the stored vectors are of no use.
    const rebuild = options.rebuild || !this.#manifest || this.#manifest.embedding_key !== wantKey;
    if (rebuild) {
      const previous = this.#manifest;
      this.#manifest = emptyManifest(this.project);
      if (previous && !options.rebuild) this.#manifest.created_at = previous.created_at;
      this.#shards = new Map();
      this.#mini = newMini();
      this.#vectors = new Map();
      this.#state = "building";
    }
    const manifest = this.#manifest!;
    manifest.embedding_key = wantKey;
    // A failure of the embedding model stays reported until a rebuild (the files indexed meanwhile have no vectors).
    if (rebuild) manifest.embedding_error = null;
    this.#error = null;
    const walk = await walkProject(this.project, this.#limits.maxFiles, this.#parts.workspace.protectedFolders.list());
    const seen = new Set(walk.files.map((f) => f.rel));
    const removed = Object.keys(manifest.files).filter((rel) => !seen.has(rel));
    for (const rel of removed) this.#drop(rel);
    const changed: WalkedFile[] = walk.files.filter((f) => {
      const m = manifest.files[f.rel];
      return !m || m.size !== f.size || m.mtime_ms !== f.mtimeMs;
    });
    this.#progress = { indexed: walk.files.length - changed.length, total: walk.files.length };
    manifest.skipped = { gitignored: walk.gitignored, binary: 0, over_file_limit: walk.overLimit, unreadable: 0 };
    const dirty = new Set<number>(removed.map((rel) => shardOf(rel)));
    const reindexed: string[] = [];
    for (let at = 0; at < changed.length; at += BATCH_FILES) {
      const batch = changed.slice(at, at + BATCH_FILES);
      const read = await Promise.all(batch.map((f) => readHead(path.join(this.project, f.rel), this.#limits.maxFileBytes)));
      const fresh: Array<{ f: WalkedFile; passages: Passage[]; truncated: boolean }> = [];
      batch.forEach((f, i) => {
        this.#drop(f.rel);
        const got = read[i];
        // A binary file is remembered (no passages), so it is not read again until it changes.
        if (got === "binary") manifest.files[f.rel] = { size: f.size, mtime_ms: f.mtimeMs, shard: shardOf(f.rel), passages: 0, truncated: false, binary: true };
        else if (!got) manifest.skipped.unreadable++;
        else fresh.push({ f, passages: chunkFile(f.rel, got.text), truncated: got.truncated });
      });
      if (embedder && !manifest.embedding_error) await this.#embed(embedder, fresh.flatMap((x) => x.passages), manifest);
      for (const { f, passages, truncated } of fresh) {
        const shard = shardOf(f.rel);
        if (!this.#shards.has(shard)) this.#shards.set(shard, new Map());
        this.#shards.get(shard)!.set(f.rel, passages);
        manifest.files[f.rel] = { size: f.size, mtime_ms: f.mtimeMs, shard, passages: passages.length, truncated };
        this.#mini.addAll(passages.map((p, i) => docOf(f.rel, i, p.heading, p.text)));
        passages.forEach((p, i) => p.vector && this.#vectors.set(docId(f.rel, i), decodeVector(p.vector)));
        dirty.add(shard);
        reindexed.push(f.rel);
      }
      this.#progress.indexed += batch.length;
      await yieldLoop();
    }
    manifest.skipped.binary = Object.values(manifest.files).filter((f) => f.binary).length;
    // Nothing changed: nothing is written (a refresh runs at most every refreshMs on searches).
    if (dirty.size || rebuild || reindexed.length || removed.length) {
      manifest.updated_at = new Date().toISOString();
      await this.#save(dirty, rebuild);
    }
    this.#lastRefresh = Date.now();
    this.#state = "ready";
    return { reindexed, removed };
  }

  async #embed(embedder: Embedder, passages: Passage[], manifest: Manifest): Promise<void> {
    if (!passages.length) return;
    try {
      const vectors = await embedder.embed(passages.map((p) => (p.heading ? `${p.heading}\n${p.text}` : p.text)));
      vectors.forEach((v, i) => (passages[i]!.vector = encodeVector(v)));
      manifest.embedding = { key: embedder.key, dims: vectors[0]!.length };
    } catch (error) {
      // Ranked by BM25 alone until a rebuild; the reason is shown in Settings.
      manifest.embedding_error = `embedding model "${embedder.key}" failed: ${error instanceof Error ? error.message : String(error)}`;
    }
  }

  async #save(dirty: ReadonlySet<number>, all: boolean): Promise<void> {
    await fs.mkdir(path.join(this.dir, "chunks"), { recursive: true });
    for (let n = 0; n < SHARDS; n++) {
      if (!all && !dirty.has(n)) continue;
      const files = Object.fromEntries(this.#shards.get(n) ?? new Map());
      await writeJsonAtomic(this.#parts.queues, path.join(this.dir, "chunks", shardName(n)), { format: KNOWLEDGE_FORMAT, files }, ShardSchema);
      await yieldLoop();
    }
    // Shards first, then the manifest: a crash between leaves a manifest older than its shards, and
    // a file it lists without passages in its shard is read again at the next refresh.
    // The manifest is built here from typed values and checked with its schema when read; checking
    // a 3,000-file manifest again on every save held the event loop for tens of milliseconds.
    await writeFileAtomic(this.#parts.queues, path.join(this.dir, "manifest.json"), toPythonJsonBytes(this.#manifest!));
  }
}
