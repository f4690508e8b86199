import "server-only";
/**
 * One write of the search index: what the indexer noted (./indexer.ts) turned into rows — the
 * conversations to compare with their watermarks read (from memory while they are open), the
 * changed messages.json files read, authors looked up — then written in one transaction.
 */
import { CorruptFileError, NotFoundError } from "@/lib/contracts/errors";
import type { ConversationStore } from "@/lib/store";
import type { AgentMetadata, ConversationMetadata, Message } from "@/lib/contracts/on-disk";
import { LEADER_DISPLAY_NAME } from "@/lib/contracts/messages";
import type { ConvRow, SearchDb, SourceRow } from "./db";
import { indexedMessages, type IndexedMessage } from "./rows";

/** Characters of message text indexed in one transaction (a few tens of milliseconds of FTS5 work). */
const TEXT_PER_TRANSACTION = 32_768;

/**
 * `messages` in runs of at most `budget` characters of text (a message longer than that is a run
 * of its own); always at least one run, empty for no messages, so the caller's first and last
 * parts exist.
 */
export function textParts(messages: readonly IndexedMessage[], budget: number): IndexedMessage[][] {
  const parts: IndexedMessage[][] = [[]];
  let size = 0;
  for (const m of messages) {
    if (size > 0 && size + m.text.length > budget) {
      parts.push([]);
      size = 0;
    }
    parts.at(-1)!.push(m);
    size += m.text.length;
  }
  return parts;
}

/** What the indexer reads of the store. */
export type SearchSource = Pick<ConversationStore, "get" | "list" | "readLeaderMessages" | "readAgentMessages" | "readAgentMetadata" | "listAgents">;

/** The part of a messages.json the index reads. */
export interface MessagesFile {
  messages: Message[];
  created_at: string;
  updated_at: string;
}

/** A conversation as read at one moment: its metadata and every messages.json (a broken one left out). */
interface ConversationView {
  meta: ConversationMetadata;
  leader: MessagesFile | null;
  agents: Array<{ meta: AgentMetadata; messages: MessagesFile }>;
}

/** What the indexer noted since its last write. */
export interface Queue {
  metas: Map<string, ConversationMetadata>;
  agents: Map<string, { convId: string; meta: AgentMetadata }>;
  /** Per file (`conv:agent`, agent 0 the leader): the first message that changed. */
  sources: Map<string, { convId: string; agentId: number; from: number }>;
  /** Conversations to compare with their watermarks: as captured when loaded, or null to read them at the flush. */
  checks: Map<string, ConversationView | null>;
  /** Conversations whose folder was replaced whole (an import): their rows go before they are compared. */
  resets: Set<string>;
  removed: Set<string>;
}

/** A queue with nothing noted. */
export const emptyQueue = (): Queue => ({ metas: new Map(), agents: new Map(), sources: new Map(), checks: new Map(), resets: new Set(), removed: new Set() });
/** A messages.json's key in a queue: `conv:agent`, agent 0 the leader. */
export const key = (convId: string, agentId: number) => `${convId}:${agentId}`;

/** A conversation's row in the index. */
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

/**
 * A file read through `read`, or null when it is missing or broken: a broken file is left out of
 * the index (the store lists it among its problems) and never holds up the others.
 */
async function readable<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof NotFoundError || error instanceof CorruptFileError) return null;
    throw error;
  }
}

/**
 * A conversation as it is now: read through the store (from memory while it is open). `null`
 * when it no longer exists; `"unreadable"` when its metadata.json is broken (its rows are kept).
 */
async function readView(source: SearchSource, convId: string): Promise<ConversationView | null | "unreadable"> {
  let meta: ConversationMetadata;
  try {
    meta = await source.get(convId);
  } catch (error) {
    if (error instanceof NotFoundError) return null;
    if (error instanceof CorruptFileError) return "unreadable";
    throw error;
  }
  const leader = await readable(() => source.readLeaderMessages(convId));
  const { agents: metas } = await source.listAgents(convId);
  const agents: ConversationView["agents"] = [];
  for (const m of metas) {
    const messages = await readable(() => source.readAgentMessages(convId, m.agent_id));
    if (messages) agents.push({ meta: m, messages });
  }
  return { meta, leader, agents };
}

/**
 * Writes what `q` noted into `db` in one transaction; answers how many of the conversations
 * compared were behind their files. `q` is consumed (conversations found deleted join `q.removed`).
 */
export async function writeBatch(db: SearchDb, source: SearchSource, q: Queue): Promise<{ behind: number }> {
  let behindCount = 0;
    for (const id of q.removed) {
      q.metas.delete(id);
      q.checks.delete(id);
      q.resets.delete(id);
    }
    // A folder replaced whole: nothing indexed of it holds, so it is forgotten and read afresh
    // (its check, noted with the reset, then finds every file behind).
    if (q.resets.size) db.transaction(() => {
      for (const id of q.resets) db.removeConversation(id);
    });
    const convs = new Map<string, ConvRow>();
    const authors = new Map<string, Pick<SourceRow, "display_name" | "role_id" | "model_key">>();
    const files = new Map<string, { convId: string; agentId: number; from: number; file: MessagesFile }>();
    const conv = async (convId: string): Promise<ConvRow | null> => {
      const known = convs.get(convId) ?? db.conversation(convId);
      if (known) return known;
      const meta = await source.get(convId).catch((error: unknown) => (error instanceof NotFoundError ? null : Promise.reject(error)));
      if (meta) convs.set(convId, convRow(meta));
      return meta ? convRow(meta) : null;
    };
    for (const [id, meta] of q.metas) convs.set(id, convRow(meta));
    for (const { convId, meta } of q.agents.values()) authors.set(key(convId, meta.agent_id), { display_name: meta.display_name, role_id: meta.role_id, model_key: meta.model_key ?? "" });

    // Conversations to compare with their watermarks.
    for (const [convId, captured] of q.checks) {
      const view = captured ?? (await readView(source, convId));
      if (view === "unreadable") continue;
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
      if (view.leader) compare(0, view.leader);
      for (const a of view.agents) {
        if (!authors.has(key(convId, a.meta.agent_id)) || !captured) authors.set(key(convId, a.meta.agent_id), { display_name: a.meta.display_name, role_id: a.meta.role_id, model_key: a.meta.model_key ?? "" });
        compare(a.meta.agent_id, a.messages);
      }
      if (behind) behindCount++;
    }

    // Files changed since: read now (from memory while the conversation is open).
    for (const [k, s] of q.sources) {
      if (q.removed.has(s.convId)) continue;
      const file = await readable<MessagesFile>(() => (s.agentId === 0 ? source.readLeaderMessages(s.convId) : source.readAgentMessages(s.convId, s.agentId)));
      if (file) files.set(k, { ...s, file });
    }

    // Authors of files the index does not know yet.
    const rows: Array<{ conv: ConvRow; source: SourceRow; from: number; file: MessagesFile }> = [];
    for (const [k, f] of files) {
      const c = await conv(f.convId);
      if (!c) continue;
      let author = authors.get(k) ?? db.source(f.convId, f.agentId);
      if (f.agentId === 0) author = { display_name: LEADER_DISPLAY_NAME, role_id: null, model_key: c.model_key };
      if (!author) {
        const meta = await source.readAgentMetadata(f.convId, f.agentId).catch((error: unknown) => (error instanceof NotFoundError ? null : Promise.reject(error)));
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
    });
    // The messages go in transactions of at most TEXT_PER_TRANSACTION characters, with a turn of
    // the event loop between them: FTS5 indexes synchronously, about a millisecond per thousand
    // characters, and one batch can hold many long messages.
    for (const r of rows) {
      if (q.removed.has(r.conv.conv_id)) continue;
      const conversation = convs.get(r.conv.conv_id) ?? r.conv;
      const parts = textParts(indexedMessages(r.file.messages, r.from, r.file.created_at), TEXT_PER_TRANSACTION);
      for (const [i, part] of parts.entries()) {
        db.transaction(() => db.putMessages(conversation, r.source, r.from, part, { first: i === 0, last: i === parts.length - 1 }));
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    if (q.removed.size) db.transaction(() => {
      for (const id of q.removed) db.removeConversation(id);
    });
  return { behind: behindCount };
}
