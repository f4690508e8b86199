import "server-only";
/**
 * The SQL of the engine's storage (the schema is ./migrations/0001-engine-storage.ts): a
 * conversation read from its rows (checked against the seed files' schemas, as the file store
 * checks what it reads), the writes of one grouped commit (a statement per table for every
 * conversation of the commit, their rows passed as arrays), new conversations, and the list of
 * active ones. JSON is sent as text and stored as `json`, so it is kept as written.
 */
import type { Pool, PoolClient } from "pg";
import { CorruptFileError, NotFoundError } from "@/lib/contracts/errors";
import {
  AgentMessagesFileSchema,
  AgentMetadataSchema,
  ConversationMetadataSchema,
  LeaderMessagesFileSchema,
  type AgentMetadata,
  type ConversationMetadata,
  type LeaderMessagesFile,
  type Message,
} from "@/lib/contracts/on-disk";
import type { LoggedLineFile } from "@/lib/store";
import { JOURNAL_FILE_NAME } from "@/lib/store/action-journal";
import { emptySharedContext, SharedContextFileSchema, type SharedContextFile } from "@/lib/shared-context/schema";
import type { z } from "zod";
import { headJson, LEADER, type AgentFiles, type ConversationWrite, type LoadedConversation } from "./open-conversation";

/** A pool or one of its clients. */
export type Db = Pick<Pool | PoolClient, "query">;

function notFound(id: string): NotFoundError {
  return new NotFoundError(`Conversation ${id} does not exist`, { id });
}

/** `value` checked against `schema` and returned as it is (zod's copy would reorder its keys). */
function loaded<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new CorruptFileError(`${what} (PostgreSQL)`, result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "));
  return value as z.output<S>;
}

/** A messages file from its head and its rows in order (a gap in the rows is a broken file). */
function withMessages(head: Record<string, unknown>, rows: Array<{ idx: number; message: Message }>, what: string): Record<string, unknown> {
  const messages: Message[] = [];
  for (const row of rows) {
    if (row.idx !== messages.length) throw new CorruptFileError(`${what} (PostgreSQL)`, `message ${messages.length} is missing`);
    messages.push(row.message);
  }
  return { ...head, messages };
}

const leaderWhat = (id: string) => `conversations/${id}/messages.json`;
const agentWhat = (id: string, agentId: number, file: string) => `conversations/${id}/agents/${agentId}/${file}`;

function leaderOf(id: string, head: Record<string, unknown>, rows: Array<{ idx: number; message: Message }>): LeaderMessagesFile {
  return loaded(LeaderMessagesFileSchema, withMessages(head, rows, leaderWhat(id)), leaderWhat(id));
}

function agentOf(id: string, row: { agent_id: number; meta: unknown; messages_head: Record<string, unknown> }, rows: Array<{ idx: number; message: Message }>): AgentFiles {
  return {
    meta: loaded(AgentMetadataSchema, row.meta, agentWhat(id, row.agent_id, "metadata.json")),
    messages: loaded(AgentMessagesFileSchema, withMessages(row.messages_head, rows, agentWhat(id, row.agent_id, "messages.json")), agentWhat(id, row.agent_id, "messages.json")),
  };
}

/** metadata.json of a conversation. @throws NotFoundError when there is none. */
export async function readMeta(db: Db, id: string): Promise<ConversationMetadata> {
  const row = (await db.query<{ meta: unknown }>("SELECT meta FROM conversations WHERE id = $1", [id])).rows[0];
  if (!row) throw notFound(id);
  return loaded(ConversationMetadataSchema, row.meta, `conversations/${id}/metadata.json`);
}

/** The Team Leader's messages.json. */
export async function readLeader(db: Db, id: string): Promise<LeaderMessagesFile> {
  const head = (await db.query<{ leader_head: Record<string, unknown> }>("SELECT leader_head FROM conversations WHERE id = $1", [id])).rows[0];
  if (!head) throw notFound(id);
  const rows = (await db.query<{ idx: number; message: Message }>("SELECT idx, message FROM messages WHERE conversation_id = $1 AND agent_id = 0 ORDER BY idx", [id])).rows;
  return leaderOf(id, head.leader_head, rows);
}

/** A sub-agent's files. @throws NotFoundError for an unknown conversation or agent. */
export async function readAgent(db: Db, id: string, agentId: number): Promise<AgentFiles> {
  const row = (await db.query<{ agent_id: number; meta: unknown; messages_head: Record<string, unknown> }>("SELECT agent_id, meta, messages_head FROM agents WHERE conversation_id = $1 AND agent_id = $2", [id, agentId])).rows[0];
  if (!row) {
    await readMeta(db, id);
    throw new NotFoundError(`Agent ${agentId} of conversation ${id} does not exist`, { id, agent_id: agentId });
  }
  const rows = (await db.query<{ idx: number; message: Message }>("SELECT idx, message FROM messages WHERE conversation_id = $1 AND agent_id = $2 ORDER BY idx", [id, agentId])).rows;
  return agentOf(id, row, rows);
}

/** Every sub-agent's metadata.json, ascending by id. */
export async function readAgentList(db: Db, id: string): Promise<AgentMetadata[]> {
  await readMeta(db, id);
  const rows = (await db.query<{ agent_id: number; meta: unknown }>("SELECT agent_id, meta FROM agents WHERE conversation_id = $1 ORDER BY agent_id", [id])).rows;
  return rows.map((r) => loaded(AgentMetadataSchema, r.meta, agentWhat(id, r.agent_id, "metadata.json")));
}

/** Everything an open conversation holds in memory. @throws NotFoundError, CorruptFileError. */
export async function loadConversation(db: Db, id: string): Promise<LoadedConversation> {
  const conv = (await db.query<{ meta: unknown; leader_head: Record<string, unknown> }>("SELECT meta, leader_head FROM conversations WHERE id = $1", [id])).rows[0];
  if (!conv) throw notFound(id);
  const meta = loaded(ConversationMetadataSchema, conv.meta, `conversations/${id}/metadata.json`);
  const agentRows = (await db.query<{ agent_id: number; meta: unknown; messages_head: Record<string, unknown> }>("SELECT agent_id, meta, messages_head FROM agents WHERE conversation_id = $1 ORDER BY agent_id", [id])).rows;
  const messageRows = (await db.query<{ agent_id: number; idx: number; message: Message }>("SELECT agent_id, idx, message FROM messages WHERE conversation_id = $1 ORDER BY agent_id, idx", [id])).rows;
  const byAgent = new Map<number, Array<{ idx: number; message: Message }>>();
  for (const row of messageRows) {
    let list = byAgent.get(row.agent_id);
    if (!list) byAgent.set(row.agent_id, (list = []));
    list.push(row);
  }
  const agents = new Map<number, AgentFiles>();
  for (const row of agentRows) agents.set(row.agent_id, agentOf(id, row, byAgent.get(row.agent_id) ?? []));
  const lastLine = new Map<LoggedLineFile, number>();
  const counts = (await db.query<{ file: LoggedLineFile; last: string }>("SELECT file, max(seq) AS last FROM conversation_lines WHERE conversation_id = $1 GROUP BY file", [id])).rows;
  for (const row of counts) lastLine.set(row.file, Number(row.last));
  const journal = (await db.query<{ line: string }>("SELECT line FROM conversation_lines WHERE conversation_id = $1 AND file = $2 ORDER BY seq", [id, JOURNAL_FILE_NAME])).rows.map((r) => r.line);
  return { meta, leader: leaderOf(id, conv.leader_head, byAgent.get(LEADER) ?? []), agents, lastLine, journal, sharedContext: await sharedContextRow(db, id) };
}

/** A conversation's shared context from its `shared_contexts` row, or null when it has none. @throws CorruptFileError for a row that does not fit the schema. */
async function sharedContextRow(db: Db, id: string): Promise<SharedContextFile | null> {
  const row = (await db.query<{ doc: unknown }>("SELECT doc FROM shared_contexts WHERE conversation_id = $1", [id])).rows[0];
  return row ? loaded(SharedContextFileSchema, row.doc, `conversations/${id}/shared_context.json`) : null;
}

/** A conversation's shared context read from its rows (an empty one when it has none yet). @throws NotFoundError for an unknown conversation. */
export async function readSharedContextRows(db: Db, id: string): Promise<SharedContextFile> {
  const row = (await db.query<{ doc: unknown }>("SELECT s.doc FROM conversations c LEFT JOIN shared_contexts s ON s.conversation_id = c.id WHERE c.id = $1", [id])).rows[0];
  if (!row) throw notFound(id);
  return row.doc === null ? emptySharedContext() : loaded(SharedContextFileSchema, row.doc, `conversations/${id}/shared_context.json`);
}

/**
 * The list's columns of a conversation (migration 2), written with its metadata: its status, its
 * sort key (`updated_at`, then the id's date-time part and its sequence padded, so one text order
 * is the list's: newest first, ids as the file store orders them), and its title and project
 * folder lower-cased here, by JavaScript's rules, so a search matches what the file store's list
 * matches whatever the database's collation. Computed here, not by the database: PostgreSQL's
 * `->>` refuses a document holding a `\u0000` escape.
 */
export function listColumns(meta: Pick<ConversationMetadata, "id" | "status" | "updated_at" | "title" | "project_path">): { status: string; key: string; title: string; path: string } {
  return { status: meta.status, key: `${meta.updated_at} ${meta.id.slice(0, 20)}${meta.id.slice(21).padStart(6, "0")}`, title: searchText(meta.title), path: searchText(meta.project_path) };
}

/** A title or folder as the list's search compares it: lower-cased, without NUL (PostgreSQL's text cannot hold one; metadata.json's json keeps it escaped). */
export function searchText(value: string): string {
  return value.toLowerCase().replaceAll("\u0000", "");
}

/** Adds a conversation's rows (metadata.json and the leader's messages.json). @throws pg's unique violation (23505) when the id is taken. */
export async function insertConversation(db: Db, meta: ConversationMetadata, leader: LeaderMessagesFile): Promise<void> {
  const list = listColumns(meta);
  await db.query("INSERT INTO conversations (id, meta, leader_head, status, list_key, title_lower, path_lower) VALUES ($1, $2::json, $3::json, $4, $5, $6, $7)", [
    meta.id,
    JSON.stringify(meta),
    headJson(leader),
    list.status,
    list.key,
    list.title,
    list.path,
  ]);
  if (leader.messages.length) {
    await db.query("INSERT INTO messages (conversation_id, agent_id, idx, message) SELECT $1, 0, t.i - 1, t.m::json FROM unnest($2::text[]) WITH ORDINALITY AS t (m, i)", [
      meta.id,
      leader.messages.map((m) => JSON.stringify(m)),
    ]);
  }
}

/** Active conversations this instance may run (no other owner holds a live lease on them), by id. */
export async function listActive(db: Db, owner: string, page: { offset: number; limit: number }): Promise<{ ids: string[]; total: number }> {
  const runnable = "FROM conversations c LEFT JOIN leases l ON l.conversation_id = c.id WHERE c.status = 'active' AND (l.conversation_id IS NULL OR l.expires_at <= now() OR l.owner = $1)";
  const rows = (await db.query<{ id: string; total: string }>(`SELECT c.id, count(*) OVER () AS total ${runnable} ORDER BY c.id LIMIT $2 OFFSET $3`, [owner, page.limit, page.offset])).rows;
  if (rows.length) return { ids: rows.map((r) => r.id), total: Number(rows[0]!.total) };
  const total = (await db.query<{ total: string }>(`SELECT count(*) AS total ${runnable}`, [owner])).rows[0]!.total;
  return { ids: [], total: Number(total) };
}

// -------------------------------------------------------------------- the grouped commit

/**
 * Writes `writes` (each conversation's changes since its last commit) in the caller's
 * transaction, after the fence has checked their leases: a statement per table, for all of
 * them together. Named statements, so each connection parses and plans them once.
 */
export async function writeBatch(client: PoolClient, writes: readonly ConversationWrite[]): Promise<void> {
  const heads = writes.filter((w) => w.meta !== null || w.leaderHead !== null);
  if (heads.length) {
    const list = heads.map((w) => (w.told.meta ? listColumns(w.told.meta) : null));
    const column = (pick: (c: ReturnType<typeof listColumns>) => string) => list.map((c) => (c ? pick(c) : null));
    await client.query({
      name: "astrion_conversations",
      text:
        "UPDATE conversations c SET meta = COALESCE(t.meta::json, c.meta), leader_head = COALESCE(t.head::json, c.leader_head), status = COALESCE(t.st, c.status), " +
        "list_key = COALESCE(t.lk, c.list_key), title_lower = COALESCE(t.tl, c.title_lower), path_lower = COALESCE(t.pl, c.path_lower) " +
        "FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) AS t (id, meta, head, st, lk, tl, pl) WHERE c.id = t.id",
      values: [heads.map((w) => w.id), heads.map((w) => w.meta), heads.map((w) => w.leaderHead), column((c) => c.status), column((c) => c.key), column((c) => c.title), column((c) => c.path)],
    });
  }
  const agents = writes.flatMap((w) => w.agents.map((a) => ({ id: w.id, ...a })));
  if (agents.length) {
    await client.query({
      name: "astrion_agents",
      text: "INSERT INTO agents (conversation_id, agent_id, meta, messages_head) SELECT t.c, t.a, t.m::json, t.h::json FROM unnest($1::text[], $2::int[], $3::text[], $4::text[]) AS t (c, a, m, h) ON CONFLICT (conversation_id, agent_id) DO UPDATE SET meta = EXCLUDED.meta, messages_head = EXCLUDED.messages_head",
      values: [agents.map((a) => a.id), agents.map((a) => a.agentId), agents.map((a) => a.meta), agents.map((a) => a.head)],
    });
  }
  const cut = writes.flatMap((w) => w.truncate.map((t) => ({ id: w.id, ...t })));
  if (cut.length) {
    await client.query({
      name: "astrion_messages_cut",
      text: "DELETE FROM messages m USING unnest($1::text[], $2::int[], $3::int[]) AS t (c, a, n) WHERE m.conversation_id = t.c AND m.agent_id = t.a AND m.idx >= t.n",
      values: [cut.map((c) => c.id), cut.map((c) => c.agentId), cut.map((c) => c.length)],
    });
  }
  const messages = writes.flatMap((w) => w.messages.map((m) => ({ id: w.id, ...m })));
  if (messages.length) {
    await client.query({
      name: "astrion_messages",
      text: "INSERT INTO messages (conversation_id, agent_id, idx, message) SELECT t.c, t.a, t.i, t.m::json FROM unnest($1::text[], $2::int[], $3::int[], $4::text[]) AS t (c, a, i, m) ON CONFLICT (conversation_id, agent_id, idx) DO UPDATE SET message = EXCLUDED.message",
      values: [messages.map((m) => m.id), messages.map((m) => m.agentId), messages.map((m) => m.idx), messages.map((m) => m.json)],
    });
  }
  // Each line carries the epoch it was committed under (migration 3), so the rows show that no old owner's line landed after a takeover.
  const lines = writes.flatMap((w) => w.lines.map((l) => ({ id: w.id, epoch: w.epoch, ...l })));
  if (lines.length) {
    await client.query({
      name: "astrion_lines",
      text: "INSERT INTO conversation_lines (conversation_id, file, seq, line, epoch) SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::bigint[])",
      values: [lines.map((l) => l.id), lines.map((l) => l.file), lines.map((l) => l.seq), lines.map((l) => l.line), lines.map((l) => l.epoch)],
    });
  }
  const shared = writes.filter((w) => w.sharedContext !== null);
  if (shared.length) {
    await client.query({
      name: "astrion_shared_contexts",
      text: "INSERT INTO shared_contexts (conversation_id, doc) SELECT t.c, t.d::json FROM unnest($1::text[], $2::text[]) AS t (c, d) ON CONFLICT (conversation_id) DO UPDATE SET doc = EXCLUDED.doc",
      values: [shared.map((w) => w.id), shared.map((w) => w.sharedContext)],
    });
  }
  const created = writes.reduce((n, w) => n + w.created, 0);
  if (created) await client.query({ name: "astrion_count_agents", text: "SELECT nextval('agent_instances') FROM generate_series(1, $1::int)", values: [created] });
}
