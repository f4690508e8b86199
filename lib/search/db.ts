import "server-only";
/**
 * The search index on disk: one SQLite database (`<data root>/search/history.sqlite`, WAL) with
 * an FTS5 table. It is derived data: the conversation files are the truth, and a missing, broken
 * or outdated database is rebuilt from them (./indexer.ts). All calls are synchronous
 * (Node's built-in `node:sqlite`); the indexer groups writes into one transaction per flush.
 *
 * Tables:
 * - `convs`: per conversation, what hits show and filter on, and its `updated_at` when indexed
 *   (the watermark compared with the conversation index at start);
 * - `sources`: per messages.json (agent 0 = the leader), the author's name, role and model, and
 *   the watermark of what was indexed: message count, last message id, the file's `updated_at`;
 * - `msgs`: one row per indexed message (position, id, role, time, text);
 * - `fts`: contentless FTS5 over `msgs` (rowid = msgs.id): the CJK-segmented text (`body`) and
 *   the filter tokens (`tags`, ./tags.ts).
 */
import { existsSync } from "node:fs";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { segmentCjk } from "@/lib/text/words";
import { Checkpointer, type CheckpointResult } from "./checkpointer";
import { tagsOf } from "./tags";
import type { IndexedMessage } from "./rows";

/** Bumped when the tables or what is indexed change: an older database is rebuilt. */
const SCHEMA_VERSION = "2";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS info(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS convs(conv_id TEXT PRIMARY KEY, title TEXT NOT NULL, status TEXT NOT NULL, model_key TEXT NOT NULL, updated_at TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sources(conv_id TEXT NOT NULL, agent_id INTEGER NOT NULL, display_name TEXT NOT NULL, role_id TEXT, model_key TEXT NOT NULL,
  count INTEGER NOT NULL, last_id TEXT, updated_at TEXT NOT NULL, PRIMARY KEY(conv_id, agent_id)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS msgs(id INTEGER PRIMARY KEY, conv_id TEXT NOT NULL, agent_id INTEGER NOT NULL, idx INTEGER NOT NULL,
  message_id TEXT, role TEXT NOT NULL, created_at TEXT NOT NULL, text TEXT NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS msgs_source ON msgs(conv_id, agent_id, idx);
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(body, tags, tokenize = 'unicode61 remove_diacritics 2', content = '', contentless_delete = 1);
`;

/** A conversation as the index keeps it (a type, not an interface: a row is bound as named parameters). */
export type ConvRow = {
  conv_id: string;
  title: string;
  status: string;
  model_key: string;
  updated_at: string;
};

/** A messages.json as the index keeps it (agent 0: the leader). */
export type SourceRow = {
  conv_id: string;
  agent_id: number;
  display_name: string;
  role_id: string | null;
  model_key: string;
  count: number;
  last_id: string | null;
  updated_at: string;
};

/** A hit as the database answers it. */
export type HitRow = {
  conv_id: string;
  agent_id: number;
  idx: number;
  message_id: string | null;
  role: string;
  created_at: string;
  text: string;
  rank: number;
  title: string | null;
  status: string | null;
  display_name: string | null;
  role_id: string | null;
  model_key: string | null;
};

/** A search as the database runs it. */
export interface HitQuery {
  match: string;
  from?: string;
  to?: string;
  window: number;
  limit: number;
  offset: number;
}

/** The database could not be opened or read as a search index. */
export class SearchDbError extends Error {
  readonly reason: "corrupt" | "outdated";
  constructor(reason: "corrupt" | "outdated", message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.reason = reason;
  }
}

/** One open search database. */
export class SearchDb {
  readonly #db: DatabaseSync;
  readonly #st;
  /** Checkpoints the log off the event loop (./checkpointer.ts); this connection runs none. */
  #checkpointer: Checkpointer | null = null;

  private constructor(db: DatabaseSync) {
    this.#db = db;
    // A row object may carry more fields than a statement names (better-sqlite3 ignored them too).
    const p = (sql: string): StatementSync => {
      const statement = db.prepare(sql);
      statement.setAllowUnknownNamedParameters(true);
      return statement;
    };
    this.#st = {
      getConv: p("SELECT * FROM convs WHERE conv_id = ?"),
      putConv: p(`INSERT INTO convs(conv_id, title, status, model_key, updated_at) VALUES (@conv_id, @title, @status, @model_key, @updated_at)
        ON CONFLICT(conv_id) DO UPDATE SET title = excluded.title, status = excluded.status, model_key = excluded.model_key, updated_at = excluded.updated_at`),
      allConvs: p("SELECT conv_id, updated_at, status, title, model_key FROM convs"),
      getSource: p("SELECT * FROM sources WHERE conv_id = ? AND agent_id = ?"),
      sourcesOf: p("SELECT * FROM sources WHERE conv_id = ?"),
      putSource: p(`INSERT INTO sources(conv_id, agent_id, display_name, role_id, model_key, count, last_id, updated_at)
        VALUES (@conv_id, @agent_id, @display_name, @role_id, @model_key, @count, @last_id, @updated_at)
        ON CONFLICT(conv_id, agent_id) DO UPDATE SET display_name = excluded.display_name, role_id = excluded.role_id, model_key = excluded.model_key,
        count = excluded.count, last_id = excluded.last_id, updated_at = excluded.updated_at`),
      idsFrom: p("SELECT id FROM msgs WHERE conv_id = ? AND agent_id = ? AND idx >= ?"),
      rowsOfSource: p("SELECT id, role, created_at, text FROM msgs WHERE conv_id = ? AND agent_id = ?"),
      idsOfConv: p("SELECT id FROM msgs WHERE conv_id = ?"),
      deleteFrom: p("DELETE FROM msgs WHERE conv_id = ? AND agent_id = ? AND idx >= ?"),
      insertMsg: p("INSERT INTO msgs(conv_id, agent_id, idx, message_id, role, created_at, text) VALUES (?, ?, ?, ?, ?, ?, ?)"),
      insertFts: p("INSERT INTO fts(rowid, body, tags) VALUES (?, ?, ?)"),
      deleteFts: p("DELETE FROM fts WHERE rowid = ?"),
      deleteMsgsOfConv: p("DELETE FROM msgs WHERE conv_id = ?"),
      deleteSourcesOfConv: p("DELETE FROM sources WHERE conv_id = ?"),
      deleteConv: p("DELETE FROM convs WHERE conv_id = ?"),
      countMsgs: p("SELECT count(*) AS n FROM msgs"),
      countConvs: p("SELECT count(*) AS n FROM convs"),
      getInfo: p("SELECT value FROM info WHERE key = ?"),
      setInfo: p("INSERT INTO info(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value"),
    };
  }

  /**
   * Opens (creating when `create`) the database at `file`.
   * @throws SearchDbError when it is not a search index of this version, or is unreadable.
   */
  static open(file: string, create: boolean, options: { checkpointEveryMs?: number } = {}): SearchDb {
    let db: DatabaseSync | null = null;
    try {
      if (!create && !existsSync(file)) throw new Error(`unable to open database file: ${file} does not exist`);
      // SQLite's busy timeout and page cache as better-sqlite3 set them, which the figures in the
      // README were measured with (node:sqlite's own defaults: no wait, a 2 MB cache).
      db = new DatabaseSync(file, { timeout: 5_000 });
      db.exec("PRAGMA cache_size = -16000");
      db.exec("PRAGMA journal_mode = WAL");
      // WAL + NORMAL: a commit survives a crash of the process (what kill -9 tests); a power cut
      // may lose the last commits, which the start-up reconcile re-reads from the files.
      db.exec("PRAGMA synchronous = NORMAL");
      // A checkpoint fsyncs the database file: not on the event loop (./checkpointer.ts).
      db.exec("PRAGMA wal_autocheckpoint = 0");
      const fresh = (db.prepare("SELECT count(*) AS n FROM sqlite_master").get() as { n: number }).n === 0;
      if (!fresh && !create) {
        const version = db.prepare("SELECT value FROM info WHERE key = 'schema'").get()?.value as string | undefined;
        if (version !== SCHEMA_VERSION) throw new SearchDbError("outdated", `it was written by another version of the index (schema ${version ?? "unknown"})`);
      }
      db.exec(SCHEMA);
      if (fresh) db.prepare("INSERT INTO info(key, value) VALUES ('schema', ?), ('complete', '0')").run(SCHEMA_VERSION);
      // Reads every table once, so a file that is not a database, or a broken one, fails here.
      const index = new SearchDb(db);
      index.counts();
      db.prepare("SELECT rowid FROM fts WHERE fts MATCH 'astrion' LIMIT 1").all();
      index.#startCheckpointer(file, options.checkpointEveryMs);
      return index;
    } catch (error) {
      db?.close();
      if (error instanceof SearchDbError) throw error;
      throw new SearchDbError("corrupt", (error as Error).message, { cause: error });
    }
  }

  /**
   * Starts the checkpoint worker; when it cannot start, or stops, this connection checkpoints as
   * SQLite does by default (on the event loop) rather than letting the log grow: a worker that
   * fails says nothing about the database.
   */
  #startCheckpointer(file: string, everyMs?: number): void {
    // SQLite's default: a checkpoint in the committing connection every 1,000 pages of log.
    const checkpointHere = () => {
      this.#checkpointer = null;
      if (this.#db.isOpen) this.#db.exec("PRAGMA wal_autocheckpoint = 1000");
    };
    try {
      this.#checkpointer = new Checkpointer(file, everyMs, checkpointHere);
    } catch (error) {
      console.error("[astrion] search index: the checkpoint worker could not start; checkpoints run on the event loop", error);
      checkpointHere();
    }
  }

  /** Whether a rebuild from the files ran to its end (a crash in the middle leaves it false). */
  get complete(): boolean {
    return this.#st.getInfo.get("complete")?.value === "1";
  }

  set complete(value: boolean) {
    this.#st.setInfo.run("complete", value ? "1" : "0");
  }

  /** Runs `fn` in one transaction: committed when it returns, rolled back when it throws (not nested). */
  transaction<T>(fn: () => T): T {
    this.#db.exec("BEGIN");
    try {
      const result = fn();
      this.#db.exec("COMMIT");
      return result;
    } catch (error) {
      if (this.#db.isTransaction) this.#db.exec("ROLLBACK");
      throw error;
    }
  }

  /** Every conversation's row (the watermarks compared at start). */
  conversations(): Array<Pick<ConvRow, "conv_id" | "updated_at" | "status" | "title" | "model_key">> {
    return this.#st.allConvs.all() as ConvRow[];
  }

  conversation(convId: string): ConvRow | undefined {
    return this.#st.getConv.get(convId) as ConvRow | undefined;
  }

  source(convId: string, agentId: number): SourceRow | undefined {
    return this.#st.getSource.get(convId, agentId) as SourceRow | undefined;
  }

  sources(convId: string): SourceRow[] {
    return this.#st.sourcesOf.all(convId) as SourceRow[];
  }

  /** Writes a conversation's row; when its status or model changed, its messages' filter tokens follow. */
  putConversation(row: ConvRow): void {
    const before = this.conversation(row.conv_id);
    this.#st.putConv.run(row);
    if (before && (before.status !== row.status || before.model_key !== row.model_key)) {
      for (const source of this.sources(row.conv_id)) this.#retag(row, source);
    }
  }

  /** Writes a source's author (name, role, model); when its role or model changed, its messages' filter tokens follow. */
  putAuthor(conv: ConvRow, author: Pick<SourceRow, "conv_id" | "agent_id" | "display_name" | "role_id" | "model_key">): void {
    const before = this.source(author.conv_id, author.agent_id);
    if (!before) return; // written with the source's messages
    const next = { ...before, ...author };
    this.#st.putSource.run(next);
    if (before.role_id !== next.role_id || before.model_key !== next.model_key) this.#retag(conv, next);
  }

  /**
   * Replaces a source's messages from position `from` on with `rows` and records its watermark.
   * `source` carries the author and the watermark of the file the rows came from.
   */
  putMessages(conv: ConvRow, source: SourceRow, from: number, rows: readonly IndexedMessage[], part: { first: boolean; last: boolean } = { first: true, last: true }): void {
    // A file's messages may come in several parts (each its own transaction): the first clears
    // what changed, the last moves the watermark, so a stop between parts leaves the file behind
    // its watermark and the next start indexes it again.
    if (part.first) {
      const before = this.source(source.conv_id, source.agent_id);
      if (before && (before.role_id !== source.role_id || before.model_key !== source.model_key)) from = 0;
      for (const { id } of this.#st.idsFrom.all(source.conv_id, source.agent_id, from) as Array<{ id: number }>) this.#st.deleteFts.run(id);
      this.#st.deleteFrom.run(source.conv_id, source.agent_id, from);
    }
    for (const m of rows) {
      if (m.idx < from) continue;
      const id = this.#st.insertMsg.run(source.conv_id, source.agent_id, m.idx, m.messageId, m.role, m.createdAt, m.text).lastInsertRowid;
      this.#st.insertFts.run(id, segmentCjk(m.text), this.#tags(conv, source, m.role, m.createdAt));
    }
    if (part.last) this.#st.putSource.run(source);
  }

  /** Forgets a conversation. */
  removeConversation(convId: string): void {
    for (const { id } of this.#st.idsOfConv.all(convId) as Array<{ id: number }>) this.#st.deleteFts.run(id);
    this.#st.deleteMsgsOfConv.run(convId);
    this.#st.deleteSourcesOfConv.run(convId);
    this.#st.deleteConv.run(convId);
  }

  #tags(conv: ConvRow, source: SourceRow, role: string, createdAt: string): string {
    return tagsOf({
      status: conv.status,
      agentId: source.agent_id === 0 ? null : source.agent_id,
      roleId: source.role_id,
      modelKey: source.model_key,
      messageRole: role,
      createdAt,
    });
  }

  /** Rewrites the FTS rows of a source's messages with their current filter tokens. */
  #retag(conv: ConvRow, source: SourceRow): void {
    const rows = this.#st.rowsOfSource.all(source.conv_id, source.agent_id) as Array<{ id: number; role: string; created_at: string; text: string }>;
    for (const r of rows) {
      this.#st.deleteFts.run(r.id);
      this.#st.insertFts.run(r.id, segmentCjk(r.text), this.#tags(conv, source, r.role, r.created_at));
    }
  }

  /**
   * The hits of a MATCH expression: of the newest `window` matches (within the time range), the
   * page `offset..offset+limit` by relevance (BM25 over the text; the tags do not count).
   */
  search(q: HitQuery): HitRow[] {
    const where = ["fts MATCH @match"];
    if (q.from) where.push("m.created_at >= @from");
    if (q.to) where.push("m.created_at <= @to");
    const sql = `
      SELECT r.*, c.title, c.status, s.display_name, s.role_id, s.model_key
      FROM (
        SELECT m.id, m.conv_id, m.agent_id, m.idx, m.message_id, m.role, m.created_at, m.text, bm25(fts, 1.0, 0.0) AS rank
        FROM fts JOIN msgs m ON m.id = fts.rowid
        WHERE ${where.join(" AND ")}
        ORDER BY fts.rowid DESC LIMIT @window
      ) r
      LEFT JOIN convs c ON c.conv_id = r.conv_id
      LEFT JOIN sources s ON s.conv_id = r.conv_id AND s.agent_id = r.agent_id
      ORDER BY r.rank, r.id DESC LIMIT @limit OFFSET @offset`;
    const params: Record<string, string | number> = { match: q.match, window: q.window, limit: q.limit, offset: q.offset };
    if (q.from) params.from = q.from;
    if (q.to) params.to = q.to;
    return this.#db.prepare(sql).all(params) as HitRow[];
  }

  /** How many conversations and messages are indexed. */
  counts(): { conversations: number; messages: number } {
    return {
      conversations: (this.#st.countConvs.get() as { n: number }).n,
      messages: (this.#st.countMsgs.get() as { n: number }).n,
    };
  }

  /** Checkpoints the log now, in the checkpointer's thread (tests; the worker also runs one every second). */
  checkpoint(): Promise<CheckpointResult> {
    if (!this.#checkpointer) return Promise.reject(new Error("the search database has no checkpoint worker (closed, or it could not start)"));
    return this.#checkpointer.checkpoint();
  }

  /**
   * Closes this connection, then the checkpointer's: the last connection to close checkpoints the
   * log, and that is the worker's. Resolves once the worker's connection is closed.
   */
  close(): Promise<void> {
    if (this.#db.isOpen) this.#db.close();
    const checkpointer = this.#checkpointer;
    this.#checkpointer = null;
    return checkpointer?.close() ?? Promise.resolve();
  }
}
