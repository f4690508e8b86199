import "server-only";
/**
 * Keeps the search index (./db.ts) in step with the conversation files, off the engine's hot path:
 *
 * - Incremental: the store announces every durable change ({@link StoreChange}); the indexer only
 *   notes it (which file, from which message on) and writes everything noted in one transaction
 *   {@link FLUSH_DELAY_MS} later, reading the messages then (from memory while the conversation is
 *   open). The queue holds one entry per changed file, so it is bounded by the files touched;
 *   past {@link MAX_QUEUED} entries a flush starts at once.
 * - Restart: per conversation the index keeps `updated_at`, per messages.json its message count,
 *   last message id and `updated_at` (watermarks). At start the conversations' `updated_at` from
 *   the in-memory conversation index are compared with the index's, and only conversations that
 *   differ are re-read; each conversation the engine loads (every active one at boot, its step
 *   log replayed) is compared from memory. So a message saved just before a crash, whose index
 *   write never happened, is found after the restart without reading every file.
 * - Rebuild: a missing, broken, outdated or half-built database is moved aside (when broken) and
 *   rebuilt from the conversation files in the background, in small batches; it is reported in
 *   the server's log, in `/api/health` (`search.rebuilds`) and among its problems.
 */
import { existsSync, promises as fs } from "node:fs";
import path from "node:path";
import { AstrionError } from "@/lib/contracts/errors";
import type { StoreChange } from "@/lib/store";
import { compactTimestamp } from "@/lib/store/time";
import { emptyQueue, key, writeBatch, type Queue, type SearchSource } from "./batch";
import { SearchDb, SearchDbError } from "./db";
import type { SearchQuery, SearchReport, SearchResult } from "@/lib/contracts/search";
import { searchIndex } from "./search";

/** How long after a change its index write waits, gathering the changes of that time into one transaction. */
export const FLUSH_DELAY_MS = 500;
/** Queued files past which a flush starts at once. */
const MAX_QUEUED = 2000;
/** Conversations read per transaction while reconciling or rebuilding. */
const BATCH = 25;
/** Rebuild reports kept. */
const MAX_REBUILDS = 20;

type Rebuild = SearchReport["rebuilds"][number];
type RebuildReason = Rebuild["reason"] | "interrupted";

/** See the file comment. One per data folder. */
export class SearchIndexer {
  readonly file: string;
  readonly #source: SearchSource;
  #db: SearchDb | null = null;
  #state: SearchReport["state"] = "starting";
  #error: string | null = null;
  #queue = emptyQueue();
  #queued = 0;
  #timer: NodeJS.Timeout | null = null;
  #flushing: Promise<void> | null = null;
  #flushes = 0;
  #flushMs = 0;
  #reconciled = 0;
  readonly #rebuilds: Rebuild[] = [];
  #background: Promise<void> = Promise.resolve();
  #counts: { conversations: number; messages: number } | null = null;

  readonly #flushDelayMs: number;

  constructor(file: string, source: SearchSource, options: { flushDelayMs?: number } = {}) {
    this.file = file;
    this.#source = source;
    this.#flushDelayMs = options.flushDelayMs ?? FLUSH_DELAY_MS;
  }

  /**
   * Opens the database (or starts its rebuild) and starts the reconcile in the background;
   * resolves once searches can be answered ({@link settled} says when the index has caught up).
   */
  async start(): Promise<void> {
    await fs.mkdir(path.dirname(this.file), { recursive: true });
    let reason: RebuildReason | null = null;
    let detail = "";
    let movedTo: string | null = null;
    if (!existsSync(this.file)) {
      reason = "missing";
      this.#db = SearchDb.open(this.file, true);
    } else {
      try {
        this.#db = SearchDb.open(this.file, false);
        if (!this.#db.complete) reason = "interrupted";
      } catch (error) {
        if (!(error instanceof SearchDbError)) throw error;
        reason = error.reason;
        detail = error.message;
        movedTo = await this.#moveAside();
        this.#db = SearchDb.open(this.file, true);
      }
    }
    if (reason) {
      this.#state = "rebuilding";
      this.#background = this.#rebuild(reason, detail, movedTo);
    } else {
      this.#state = "ready";
      this.#background = this.#reconcile();
    }
    this.#background.catch((error: unknown) => this.#fail(error));
  }

  /** Resolves once the start-up rebuild or reconcile is done and everything queued is written. */
  async settled(): Promise<void> {
    await this.#background.catch(() => undefined);
    await this.flush();
  }

  /** The index now, for `GET /api/health`. */
  report(): SearchReport {
    // Counting half a million rows takes a moment: counted again only after a write.
    let counts = this.#counts ?? { conversations: 0, messages: 0 };
    try {
      if (this.#db && !this.#counts) counts = this.#counts = this.#db.counts();
    } catch {
      // reported through `error`
    }
    return {
      state: this.#state,
      ...counts,
      queued: this.#queued,
      flushes: this.#flushes,
      flush_ms_total: Math.round(this.#flushMs * 100) / 100,
      rebuilds: this.#rebuilds.map((r) => ({ ...r })),
      reconciled: this.#reconciled,
      error: this.#error,
    };
  }

  /** The rebuilds since start, as problems (`GET /api/health` lists them). */
  notices(): Array<{ file: string; message: string }> {
    return this.#rebuilds.map((r) => ({ file: "search/history.sqlite", message: r.message }));
  }

  // ---------------------------------------------------------------- changes

  /** The store's observer: notes the change and returns (the write happens in the next flush). */
  readonly observe = (change: StoreChange): void => {
    const q = this.#queue;
    switch (change.type) {
      case "conversation":
        q.metas.set(change.meta.id, change.meta);
        break;
      case "agent":
        q.agents.set(key(change.convId, change.meta.agent_id), { convId: change.convId, meta: change.meta });
        break;
      case "messages": {
        const agentId = change.agentId ?? 0;
        const k = key(change.convId, agentId);
        const before = q.sources.get(k);
        q.sources.set(k, { convId: change.convId, agentId, from: before ? Math.min(before.from, change.at) : change.at });
        break;
      }
      case "removed":
        q.removed.add(change.convId);
        break;
      case "installed":
        q.removed.delete(change.convId);
        q.resets.add(change.convId);
        q.checks.set(change.convId, null);
        break;
      case "opened": {
        // What the conversation holds now (its step log replayed), by reference: compared with the
        // watermarks at the flush, so a change the index missed (a crash) is caught up.
        const live = change.live;
        q.checks.set(live.id, {
          meta: live.metadata,
          leader: live.leader,
          agents: live.agentIds().map((id) => ({ meta: live.agentMetadata(id), messages: live.agentMessages(id) })),
        });
        break;
      }
    }
    this.#queued++;
    this.#schedule();
  };

  #schedule(): void {
    if (this.#queued >= MAX_QUEUED) {
      if (this.#timer) clearTimeout(this.#timer);
      this.#timer = null;
      void this.flush().catch(() => undefined);
      return;
    }
    if (this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.flush().catch(() => undefined);
    }, this.#flushDelayMs);
    this.#timer.unref();
  }

  /** Writes everything queued so far; resolves once it is in the database. */
  async flush(): Promise<void> {
    while (this.#flushing) await this.#flushing;
    if (this.#queued === 0) return;
    const queue = this.#queue;
    this.#queue = emptyQueue();
    this.#queued = 0;
    this.#flushing = this.#write(queue).finally(() => {
      this.#flushing = null;
    });
    return this.#flushing;
  }

  async #write(q: Queue): Promise<void> {
    const db = this.#db;
    if (!db) return;
    const started = performance.now();
    try {
      this.#reconciled += (await writeBatch(db, this.#source, q)).behind;
      this.#error = null;
    } catch (error) {
      this.#error = (error as Error).message;
      console.error("[astrion] search index: could not write changes (the conversations will be re-read):", (error as Error).message);
      this.#requeue(q);
      if (isCorruption(error) && this.#state !== "rebuilding") {
        this.#state = "rebuilding";
        const detail = (error as Error).message;
        this.#background = this.#background
          .then(async () => this.#rebuild("corrupt", detail, await this.#closeAndMoveAside()))
          .catch((e: unknown) => this.#fail(e));
      }
      throw error;
    } finally {
      this.#counts = null;
      this.#flushes++;
      this.#flushMs += performance.now() - started;
    }
  }

  /** After a failed write: every conversation it touched is compared again at the next flush (a second later). */
  #requeue(q: Queue): void {
    const ids = new Set<string>([...q.metas.keys(), ...q.checks.keys(), ...[...q.sources.values()].map((s) => s.convId), ...[...q.agents.values()].map((a) => a.convId)]);
    for (const id of ids) if (!q.removed.has(id)) this.#queue.checks.set(id, null);
    for (const id of q.resets) if (!q.removed.has(id)) this.#queue.resets.add(id);
    for (const id of q.removed) this.#queue.removed.add(id);
    this.#queued += ids.size + q.removed.size;
    if (this.#queued && !this.#timer) {
      this.#timer = setTimeout(() => {
        this.#timer = null;
        void this.flush().catch(() => undefined);
      }, 1000);
      this.#timer.unref();
    }
  }

  // ---------------------------------------------------------------- start-up

  /** Every conversation of the store, from its in-memory index (no file is read). */
  async #conversations(): Promise<Array<{ id: string; updated_at: string; title: string; status: string; model_key: string }>> {
    const out = [];
    for (let offset = 0; ; offset += 100) {
      const page = await this.#source.list({ status: "all", offset, limit: 100 });
      out.push(...page.items);
      if (offset + page.items.length >= page.total || page.items.length === 0) break;
    }
    return out;
  }

  /** Queues `ids` as checks read at the flush, a batch per transaction. */
  async #checkAll(ids: readonly string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += BATCH) {
      for (const id of ids.slice(i, i + BATCH)) this.#queue.checks.set(id, null);
      this.#queued += Math.min(BATCH, ids.length - i);
      await this.flush();
    }
  }

  /** Start-up with a usable database: conversations whose `updated_at` differs from the index's are re-read. */
  async #reconcile(): Promise<void> {
    const db = this.#db!;
    const indexed = new Map(db.conversations().map((c) => [c.conv_id, c]));
    const stale: string[] = [];
    const present = new Set<string>();
    for (const c of await this.#conversations()) {
      present.add(c.id);
      const row = indexed.get(c.id);
      if (!row || row.updated_at !== c.updated_at || row.status !== c.status || row.title !== c.title || row.model_key !== c.model_key) stale.push(c.id);
    }
    for (const id of indexed.keys()) {
      if (!present.has(id)) {
        this.#queue.removed.add(id);
        this.#queued++;
      }
    }
    if (stale.length) console.log(`[astrion] search index: re-reading ${stale.length} conversation(s) changed since it was last written`);
    await this.#checkAll(stale);
    await this.flush();
  }

  /** Builds the index from every conversation's files. */
  async #rebuild(reason: RebuildReason, detail: string, movedTo: string | null): Promise<void> {
    this.#state = "rebuilding";
    const started = performance.now();
    const db = this.#db!;
    db.complete = false;
    const ids = (await this.#conversations()).map((c) => c.id);
    // Oldest first, so the newest messages get the highest row ids (the ranking window is the newest matches).
    ids.sort();
    await this.#checkAll(ids);
    await this.flush();
    db.complete = true;
    this.#state = "ready";
    const counts = db.counts();
    const ms = Math.round(performance.now() - started);
    const why = {
      missing: "search/history.sqlite was missing",
      interrupted: "the previous build of search/history.sqlite did not finish",
      corrupt: `search/history.sqlite was unusable (${detail})${movedTo ? `; it was moved to ${movedTo}` : ""}`,
      outdated: `search/history.sqlite was outdated (${detail})`,
    }[reason];
    // A missing index in a data folder without conversations is a first start, not a rebuild.
    if (reason === "missing" && ids.length === 0) return;
    const message = `${why}; it was rebuilt from ${ids.length} conversation(s) (${counts.messages} messages) in ${ms} ms.`;
    console.log(`[astrion] ${message}`);
    this.#rebuilds.push({ at: new Date().toISOString(), reason: reason === "interrupted" ? "missing" : reason, message, conversations: ids.length, messages: counts.messages, ms });
    if (this.#rebuilds.length > MAX_REBUILDS) this.#rebuilds.splice(0, this.#rebuilds.length - MAX_REBUILDS);
  }

  /** Renames a broken database (and its WAL files) to `history.sqlite.corrupt-<time>`; returns the new name, relative to the data folder. */
  async #moveAside(): Promise<string> {
    const target = `${this.file}.corrupt-${compactTimestamp()}`;
    await fs.rename(this.file, target);
    for (const suffix of ["-wal", "-shm"]) await fs.rm(`${this.file}${suffix}`, { force: true });
    return `search/${path.basename(target)}`;
  }

  async #closeAndMoveAside(): Promise<string | null> {
    await this.#db?.close();
    this.#db = null;
    const moved = await this.#moveAside().catch(() => null);
    this.#db = SearchDb.open(this.file, true);
    return moved;
  }

  #fail(error: unknown): void {
    this.#state = "failed";
    this.#error = (error as Error).message;
    console.error("[astrion] search index: could not be built:", (error as Error).message);
  }

  // ---------------------------------------------------------------- search

  /** One page of hits for a query (see lib/contracts/search.ts). */
  search(query: SearchQuery): SearchResult {
    if (!this.#db) throw new AstrionError("storage_error", `The search index is not available${this.#error ? `: ${this.#error}` : ""}.`);
    return searchIndex(this.#db, query, this.#state !== "ready");
  }


  /** Writes what is queued and closes the database (a clean stop). */
  async close(): Promise<void> {
    await this.flush().catch(() => undefined);
    await this.#db?.close();
    this.#db = null;
  }
}

function isCorruption(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === "SQLITE_CORRUPT" || code === "SQLITE_NOTADB" || code === "SQLITE_CORRUPT_VTAB";
}
