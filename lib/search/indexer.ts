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
import { AstrionError, NotFoundError } from "@/lib/errors";
import type { ConversationStore, StoreChange } from "@/lib/store";
import type { AgentMetadata, ConversationMetadata, Message } from "@/lib/store/schemas";
import { compactTimestamp } from "@/lib/store/time";
import { LEADER_DISPLAY_NAME } from "@/lib/runtime/team/types";
import { SearchDb, SearchDbError, type ConvRow, type SourceRow } from "./db";
import { matchExpression, parseQuery } from "./query";
import { indexedMessages } from "./rows";
import { lowerBound, RANK_WINDOW, upperBound, type SearchQuery, type SearchReport, type SearchResult } from "./schema";
import { snippetOf } from "./snippet";
import { filterTagGroups } from "./tags";

/** How long after a change its index write waits, gathering the changes of that time into one transaction. */
export const FLUSH_DELAY_MS = 100;
/** Queued files past which a flush starts at once. */
export const MAX_QUEUED = 2000;
/** Conversations read per transaction while reconciling or rebuilding. */
const BATCH = 25;
/** Rebuild reports kept. */
const MAX_REBUILDS = 20;

/** What the indexer reads of the store. */
export type SearchSource = Pick<ConversationStore, "get" | "list" | "readLeaderMessages" | "readAgentMessages" | "readAgentMetadata" | "listAgents">;

type Rebuild = SearchReport["rebuilds"][number];
type RebuildReason = Rebuild["reason"] | "interrupted";

interface MessagesFile {
  messages: Message[];
  created_at: string;
  updated_at: string;
}

/** A conversation as read at one moment: its metadata and every messages.json. */
interface ConversationView {
  meta: ConversationMetadata;
  leader: MessagesFile;
  agents: Array<{ meta: AgentMetadata; messages: MessagesFile }>;
}

interface Queue {
  metas: Map<string, ConversationMetadata>;
  agents: Map<string, { convId: string; meta: AgentMetadata }>;
  /** Per file (`conv:agent`, agent 0 the leader): the first message that changed. */
  sources: Map<string, { convId: string; agentId: number; from: number }>;
  /** Conversations to compare with their watermarks: as captured when loaded, or null to read them at the flush. */
  checks: Map<string, ConversationView | null>;
  removed: Set<string>;
}

const emptyQueue = (): Queue => ({ metas: new Map(), agents: new Map(), sources: new Map(), checks: new Map(), removed: new Set() });
const key = (convId: string, agentId: number) => `${convId}:${agentId}`;

function convRow(meta: ConversationMetadata): ConvRow {
  return { conv_id: meta.id, title: meta.title, status: meta.status, model_key: meta.model_key, updated_at: meta.updated_at };
}

/** The messages to index again of a file: none when its watermark matches, else from where it differs. */
export function changedFrom(row: Pick<SourceRow, "count" | "last_id" | "updated_at"> | undefined, file: MessagesFile): number | null {
  if (!row) return 0;
  const n = file.messages.length;
  const lastId = file.messages[n - 1]?.message_id ?? null;
  if (row.count === n && row.last_id === lastId && row.updated_at === file.updated_at) return null;
  // Messages were only added after the indexed ones: index the new ones.
  if (row.count < n && (row.count === 0 || (file.messages[row.count - 1]?.message_id ?? null) === row.last_id)) return row.count;
  return 0;
}

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

  async #readView(convId: string): Promise<ConversationView | null> {
    try {
      const meta = await this.#source.get(convId);
      const leader = await this.#source.readLeaderMessages(convId);
      const { agents: metas } = await this.#source.listAgents(convId);
      const agents: ConversationView["agents"] = [];
      for (const m of metas) agents.push({ meta: m, messages: await this.#source.readAgentMessages(convId, m.agent_id) });
      return { meta, leader, agents };
    } catch (error) {
      if (error instanceof NotFoundError) return null;
      throw error;
    }
  }

  async #write(q: Queue): Promise<void> {
    const db = this.#db;
    if (!db) return;
    const started = performance.now();
    try {
      for (const id of q.removed) {
        q.metas.delete(id);
        q.checks.delete(id);
      }
      const convs = new Map<string, ConvRow>();
      const authors = new Map<string, Pick<SourceRow, "display_name" | "role_id" | "model_key">>();
      const files = new Map<string, { convId: string; agentId: number; from: number; file: MessagesFile }>();
      const conv = async (convId: string): Promise<ConvRow | null> => {
        const known = convs.get(convId) ?? db.conversation(convId);
        if (known) return known;
        const meta = await this.#source.get(convId).catch((error: unknown) => (error instanceof NotFoundError ? null : Promise.reject(error)));
        if (meta) convs.set(convId, convRow(meta));
        return meta ? convRow(meta) : null;
      };
      for (const [id, meta] of q.metas) convs.set(id, convRow(meta));
      for (const { convId, meta } of q.agents.values()) authors.set(key(convId, meta.agent_id), { display_name: meta.display_name, role_id: meta.role_id, model_key: meta.model_key ?? "" });

      // Conversations to compare with their watermarks.
      for (const [convId, captured] of q.checks) {
        const view = captured ?? (await this.#readView(convId));
        if (!view) {
          if (db.conversation(convId)) q.removed.add(convId);
          continue;
        }
        // A captured view is older than the changes queued after it; a view read now is the newest.
        if (!captured || !q.metas.has(convId)) convs.set(convId, convRow(view.meta));
        const indexed = db.conversation(convId);
        let behind = !indexed || indexed.updated_at !== view.meta.updated_at || indexed.status !== view.meta.status;
        const compare = (agentId: number, file: MessagesFile) => {
          const from = changedFrom(db.source(convId, agentId), file);
          if (from === null) return;
          behind = true;
          const k = key(convId, agentId);
          const queued = q.sources.get(k);
          // A change queued after the view: the file is read again below, from the earlier position.
          if (queued) queued.from = Math.min(queued.from, from);
          else files.set(k, { convId, agentId, from, file });
        };
        compare(0, view.leader);
        for (const a of view.agents) {
          if (!authors.has(key(convId, a.meta.agent_id)) || !captured) authors.set(key(convId, a.meta.agent_id), { display_name: a.meta.display_name, role_id: a.meta.role_id, model_key: a.meta.model_key ?? "" });
          compare(a.meta.agent_id, a.messages);
        }
        if (behind) this.#reconciled++;
      }

      // Files changed since: read now (from memory while the conversation is open).
      for (const [k, s] of q.sources) {
        if (q.removed.has(s.convId)) continue;
        try {
          const file = s.agentId === 0 ? await this.#source.readLeaderMessages(s.convId) : await this.#source.readAgentMessages(s.convId, s.agentId);
          files.set(k, { ...s, file });
        } catch (error) {
          if (!(error instanceof NotFoundError)) throw error;
        }
      }

      // Authors of files the index does not know yet.
      const rows: Array<{ conv: ConvRow; source: SourceRow; from: number; file: MessagesFile }> = [];
      for (const [k, f] of files) {
        const c = await conv(f.convId);
        if (!c) continue;
        let author = authors.get(k) ?? db.source(f.convId, f.agentId);
        if (f.agentId === 0) author = { display_name: LEADER_DISPLAY_NAME, role_id: null, model_key: c.model_key };
        if (!author) {
          const meta = await this.#source.readAgentMetadata(f.convId, f.agentId).catch((error: unknown) => (error instanceof NotFoundError ? null : Promise.reject(error)));
          if (!meta) continue;
          author = { display_name: meta.display_name, role_id: meta.role_id, model_key: meta.model_key ?? "" };
        }
        const n = f.file.messages.length;
        rows.push({
          conv: c,
          from: f.from,
          file: f.file,
          source: {
            conv_id: f.convId,
            agent_id: f.agentId,
            display_name: author.display_name,
            role_id: author.role_id,
            model_key: author.model_key,
            count: n,
            last_id: f.file.messages[n - 1]?.message_id ?? null,
            updated_at: f.file.updated_at,
          },
        });
      }

      db.transaction(() => {
        for (const row of convs.values()) if (!q.removed.has(row.conv_id)) db.putConversation(row);
        for (const [k, author] of authors) {
          const [convId, agentId] = [k.slice(0, k.lastIndexOf(":")), Number(k.slice(k.lastIndexOf(":") + 1))];
          const c = convs.get(convId) ?? db.conversation(convId);
          if (c && !files.has(k) && !q.removed.has(convId)) db.putAuthor(c, { conv_id: convId, agent_id: agentId, ...author });
        }
        for (const r of rows) {
          if (q.removed.has(r.conv.conv_id)) continue;
          const conversation = convs.get(r.conv.conv_id) ?? r.conv;
          db.putMessages(conversation, r.source, r.from, indexedMessages(r.file.messages, r.from, r.file.created_at));
        }
        for (const id of q.removed) db.removeConversation(id);
      });
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
    this.#db?.close();
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

  /** One page of hits for a query (see lib/search/schema.ts). */
  search(query: SearchQuery): SearchResult {
    const indexing = this.#state !== "ready";
    const db = this.#db;
    if (!db) throw new AstrionError("storage_error", `The search index is not available${this.#error ? `: ${this.#error}` : ""}.`);
    const parsed = parseQuery(query.q);
    const match = matchExpression(parsed, filterTagGroups(query));
    const offset = query.cursor ? Number(query.cursor) : 0;
    if (!match || offset >= RANK_WINDOW) return { hits: [], has_more: false, next_cursor: null, indexing };
    const limit = Math.min(query.limit, RANK_WINDOW - offset);
    let rows;
    try {
      rows = db.search({
        match,
        from: query.from ? lowerBound(query.from) : undefined,
        to: query.to ? upperBound(query.to) : undefined,
        window: RANK_WINDOW,
        limit: limit + 1,
        offset,
      });
    } catch (error) {
      console.error("[astrion] search index: a query failed:", (error as Error).message);
      throw new AstrionError("storage_error", "The search index could not be read; see the server's log.");
    }
    const hits = rows.slice(0, limit).map((r) => ({
      conversation_id: r.conv_id,
      conversation_title: r.title ?? r.conv_id,
      conversation_status: r.status === "archived" ? ("archived" as const) : ("active" as const),
      agent_id: r.agent_id === 0 ? null : r.agent_id,
      agent_display_name: r.display_name ?? (r.agent_id === 0 ? LEADER_DISPLAY_NAME : `#${r.agent_id}`),
      role_id: r.agent_id === 0 ? null : r.role_id,
      model_key: r.model_key ?? "",
      message_role: r.role as SearchResult["hits"][number]["message_role"],
      message_id: r.message_id,
      message_index: r.idx,
      created_at: r.created_at,
      snippet: snippetOf(r.text, parsed),
      score: Math.round(-r.rank * 1000) / 1000,
    }));
    const hasMore = rows.length > limit;
    return { hits, has_more: hasMore, next_cursor: hasMore ? String(offset + limit) : null, indexing };
  }

  /** Writes what is queued and closes the database (a clean stop). */
  async close(): Promise<void> {
    await this.flush().catch(() => undefined);
    this.#db?.close();
    this.#db = null;
  }
}

function isCorruption(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === "SQLITE_CORRUPT" || code === "SQLITE_NOTADB" || code === "SQLITE_CORRUPT_VTAB";
}
