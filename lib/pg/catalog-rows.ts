import "server-only";
/**
 * The SQL of the conversation catalog (./catalog.ts) and of `npm run migrate-data`, over the
 * schema of ./migrations: a conversation's seed folder read from its rows and written as rows
 * (new, or over an existing conversation's), the list's pages, and the search columns of rows
 * written before migration 2. JSON is sent as text and stored as `json`, so it is kept as written.
 */
import type { Pool, PoolClient } from "pg";
import type { ConversationMetadata, LoggedLineFile } from "@/lib/store";
import { headJson, LEADER } from "./open-conversation";
import { listColumns, loadConversation, searchText, type Db } from "./rows";
import type { ConversationDocs } from "./seed-folder";

/**
 * A conversation's seed folder as its rows hold it. Call it inside one REPEATABLE READ
 * transaction (or with nothing writing) for a folder of one moment.
 * @throws NotFoundError for an unknown conversation, CorruptFileError for rows that do not fit their schema.
 */
export async function readDocs(db: Db, id: string): Promise<ConversationDocs> {
  const loaded = await loadConversation(db, id);
  const lines = new Map<LoggedLineFile, string[]>();
  const rows = (await db.query<{ file: LoggedLineFile; line: string }>("SELECT file, line FROM conversation_lines WHERE conversation_id = $1 ORDER BY file, seq", [id])).rows;
  for (const row of rows) {
    let list = lines.get(row.file);
    if (!list) lines.set(row.file, (list = []));
    list.push(row.line);
  }
  const agents = [...loaded.agents.entries()].sort(([a], [b]) => a - b).map(([, files]) => files);
  return { meta: loaded.meta, leader: loaded.leader, agents, lines, sharedContext: loaded.sharedContext };
}

/**
 * Writes a conversation's rows from its seed folder in the caller's transaction: a new
 * conversation, or (`replace`) over the existing one's rows, whose lease row is kept so its epochs
 * keep growing. Counts its sub-agents in `agent_instances` when `countAgents` (an import), as the
 * file store counts them in state.json.
 * @throws pg's unique violation (23505) when a new conversation's id is taken.
 */
export async function writeDocs(client: PoolClient, docs: ConversationDocs, options: { replace?: boolean; countAgents?: boolean } = {}): Promise<void> {
  const id = docs.meta.id;
  const list = listColumns(docs.meta);
  const head = [id, JSON.stringify(docs.meta), headJson(docs.leader), list.status, list.key, list.title, list.path];
  if (options.replace) {
    for (const table of ["agents", "messages", "conversation_lines", "shared_contexts"]) await client.query(`DELETE FROM ${table} WHERE conversation_id = $1`, [id]);
    await client.query("UPDATE conversations SET meta = $2::json, leader_head = $3::json, status = $4, list_key = $5, title_lower = $6, path_lower = $7 WHERE id = $1", head);
  } else {
    await client.query("INSERT INTO conversations (id, meta, leader_head, status, list_key, title_lower, path_lower) VALUES ($1, $2::json, $3::json, $4, $5, $6, $7)", head);
  }
  if (docs.agents.length) {
    await client.query("INSERT INTO agents (conversation_id, agent_id, meta, messages_head) SELECT $1, t.a, t.m::json, t.h::json FROM unnest($2::int[], $3::text[], $4::text[]) AS t (a, m, h)", [
      id,
      docs.agents.map((a) => a.meta.agent_id),
      docs.agents.map((a) => JSON.stringify(a.meta)),
      docs.agents.map((a) => headJson(a.messages)),
    ]);
  }
  const messages: Array<{ agentId: number; idx: number; json: string }> = [];
  docs.leader.messages.forEach((m, idx) => messages.push({ agentId: LEADER, idx, json: JSON.stringify(m) }));
  for (const agent of docs.agents) agent.messages.messages.forEach((m, idx) => messages.push({ agentId: agent.meta.agent_id, idx, json: JSON.stringify(m) }));
  if (messages.length) {
    await client.query("INSERT INTO messages (conversation_id, agent_id, idx, message) SELECT $1, t.a, t.i, t.m::json FROM unnest($2::int[], $3::int[], $4::text[]) AS t (a, i, m)", [
      id,
      messages.map((m) => m.agentId),
      messages.map((m) => m.idx),
      messages.map((m) => m.json),
    ]);
  }
  const lines = [...docs.lines].flatMap(([file, list]) => list.map((line, i) => ({ file, seq: i + 1, line })));
  if (lines.length) {
    await client.query("INSERT INTO conversation_lines (conversation_id, file, seq, line) SELECT $1, t.f, t.s, t.l FROM unnest($2::text[], $3::bigint[], $4::text[]) AS t (f, s, l)", [
      id,
      lines.map((l) => l.file),
      lines.map((l) => l.seq),
      lines.map((l) => l.line),
    ]);
  }
  if (docs.sharedContext !== null) await client.query("INSERT INTO shared_contexts (conversation_id, doc) VALUES ($1, $2::json)", [id, JSON.stringify(docs.sharedContext)]);
  if (options.countAgents && docs.meta.agent_ids.length) await client.query("SELECT nextval('agent_instances') FROM generate_series(1, $1::int)", [docs.meta.agent_ids.length]);
}

/** A list query, as `ListConversationsQuerySchema` outputs it. */
export interface ListQuery {
  q?: string;
  status: "active" | "archived" | "all";
  offset: number;
  limit: number;
}

/**
 * The statement of one page of the list, newest first, with how many conversations match: one
 * statement, so the page and the total are of one moment. It reads the search columns of the
 * matching rows and the metadata of the page's rows only (migration 2's indexes give the order);
 * never messages.
 */
export function listStatement(query: ListQuery): { text: string; values: unknown[] } {
  const values: unknown[] = [query.limit, query.offset];
  const where: string[] = [];
  if (query.status !== "all") {
    values.push(query.status);
    where.push(`status = $${values.length}`);
  }
  const needle = query.q?.toLowerCase();
  if (needle) {
    values.push(needle);
    where.push(`(strpos(title_lower, $${values.length}) > 0 OR strpos(path_lower, $${values.length}) > 0)`);
  }
  const filter = where.length ? `WHERE ${where.join(" AND ")}` : "";
  const text = `SELECT t.total, p.meta FROM (SELECT count(*) AS total FROM conversations ${filter}) t
     LEFT JOIN LATERAL (SELECT meta, list_key FROM conversations ${filter} ORDER BY list_key DESC LIMIT $1 OFFSET $2) p ON true
     ORDER BY p.list_key DESC`;
  return { text, values };
}

/** One page of the list and how many conversations match ({@link listStatement}). */
export async function listPage(db: Db, query: ListQuery): Promise<{ metas: ConversationMetadata[]; total: number }> {
  const { text, values } = listStatement(query);
  const rows = (await db.query<{ total: string; meta: ConversationMetadata | null }>(text, values)).rows;
  return { metas: rows.flatMap((r) => (r.meta ? [r.meta] : [])), total: Number(rows[0]?.total ?? 0) };
}

/** How many conversations there are. */
export async function countConversations(db: Db): Promise<number> {
  return Number((await db.query<{ n: string }>("SELECT count(*) AS n FROM conversations")).rows[0]!.n);
}

/**
 * Fills the search columns of rows written before migration 2 (idempotent: several instances may
 * run it at once; a row a commit wrote meanwhile has its columns already and is left alone).
 * Resolves with how many it found.
 */
export async function fillSearchColumns(pool: Pool): Promise<number> {
  const rows = (await pool.query<{ id: string; title: string; path: string }>("SELECT id, meta ->> 'title' AS title, meta ->> 'project_path' AS path FROM conversations WHERE title_lower IS NULL OR path_lower IS NULL")).rows;
  if (!rows.length) return 0;
  const search = rows.map((r) => ({ title: searchText(r.title ?? ""), path: searchText(r.path ?? "") }));
  await pool.query("UPDATE conversations c SET title_lower = t.tl, path_lower = t.pl FROM unnest($1::text[], $2::text[], $3::text[]) AS t (id, tl, pl) WHERE c.id = t.id AND (c.title_lower IS NULL OR c.path_lower IS NULL)", [
    rows.map((r) => r.id),
    search.map((s) => s.title),
    search.map((s) => s.path),
  ]);
  return rows.length;
}
