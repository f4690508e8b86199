import "server-only";
/**
 * The data folder's own files as `npm run migrate-data` writes them back from PostgreSQL:
 * `conversations/index.json` and `state.json`. The database keeps both as they were moved in
 * (`data_folder_files`); written back, they are brought up to date the way the file store keeps
 * them, so a folder moved in and out with nothing changed gets them back byte for byte:
 *
 * - index.json: its entries in the order they were, each with the conversation's title, times and
 *   agent count now (other fields kept), entries of conversations gone dropped, new ones after
 *   them by id (lib/store `reconcileIndex`, what the file store does at boot).
 * - state.json: the count of sub-agents is the higher of the one moved in and the database's
 *   (`agent_instances`); the last conversation stays the one moved in while the conversations
 *   are the same ones, else it is the newest; `updated_at` moves only when one of them did. With
 *   nothing moved in, state.json is made as the file store rebuilds it.
 */
import { compareConversationIds, localTimestamp, reconcileIndex, type ConversationMetadata, type IndexFile, type StateFile } from "@/lib/store";
import { STATE_VERSION } from "@/lib/store/store-scan";

/** index.json for `metas`, after the one moved in (null: none). */
export function indexFor(stored: IndexFile | null, metas: readonly ConversationMetadata[]): IndexFile {
  const out: IndexFile = {};
  for (const [id, entry] of reconcileIndex(stored, metas, new Set()).entries) out[id] = entry;
  return out;
}

/** state.json for `metas` and the database's count of sub-agents, after the one moved in (null: none). */
export function stateFor(stored: { state: StateFile | null; index: IndexFile | null }, metas: readonly ConversationMetadata[], agentCount: number, now = new Date()): StateFile {
  const ids = metas.map((m) => m.id);
  const newest = [...ids].sort(compareConversationIds).at(-1) ?? null;
  const state = stored.state;
  if (!state) {
    const oldest = metas.map((m) => m.created_at).sort()[0];
    return { version: STATE_VERSION, last_conversation_id: newest, agent_id_counter: agentCount, created_at: oldest ?? localTimestamp(now), updated_at: localTimestamp(now) };
  }
  const before = new Set(Object.keys(stored.index ?? {}));
  const same = before.size === ids.length && ids.every((id) => before.has(id));
  const last = same && state.last_conversation_id !== undefined ? state.last_conversation_id : newest;
  const counter = Math.max(state.agent_id_counter ?? 0, agentCount);
  const lastMoved = last !== (state.last_conversation_id ?? null);
  const counterMoved = counter !== (state.agent_id_counter ?? 0);
  if (!lastMoved && !counterMoved) return state;
  return { ...state, ...(lastMoved ? { last_conversation_id: last } : {}), ...(counterMoved ? { agent_id_counter: counter } : {}), updated_at: localTimestamp(now) };
}
