import "server-only";
/**
 * Long-term memory recalled into the global slice (seed 003 §5): at the start of a person's
 * request, the entries most relevant to it that the reader may read — the leader as `leader`,
 * each sub-agent as its role, on the conversation's project — each cited to its source
 * conversation. Computed once per request and reader (the trace, and the leader or the agent), never per model
 * call; every recall is audited on the timeline (`memory_recall`: entry ids and levels, never
 * their text). A memory that cannot be read leaves the slice without memory; the call goes on.
 */
import type { RecalledMemory } from "@/lib/context";
import { agentParty, LEADER_PARTY, SYSTEM_PARTY } from "@/lib/protocol";
import type { Message } from "@/lib/store";
import type { TeamState } from "./state";
import { memoryOf, type RecallHit } from "./memory-port";

/** Entries asked for per request; the slice keeps what fits its budget, most relevant first. */
const SLICE_RECALL_LIMIT = 12;

interface RecallCache {
  trace: string;
  byRole: Map<string, Promise<RecalledMemory[]>>;
}

const caches = new WeakMap<TeamState, RecallCache>();
const titles = new WeakMap<TeamState, Map<string, Promise<string | undefined>>>();

/** The title of a source conversation, read through the run's storage (looked up once per run; a deleted one has none). */
function titleOf(s: TeamState, convId: string): Promise<string | undefined> {
  let map = titles.get(s);
  if (!map) titles.set(s, (map = new Map()));
  let title = map.get(convId);
  if (!title) {
    title = s.store.get(convId).then((c) => c.title, () => undefined);
    map.set(convId, title);
  }
  return title;
}

/** Entries as the slice and the tool show them: with their source conversation's title. */
export async function withCitations(s: TeamState, hits: readonly RecallHit[]): Promise<RecalledMemory[]> {
  return Promise.all(
    hits.map(async ({ entry }) => {
      const conv = entry.source.conversation_id;
      const title = conv ? await titleOf(s, conv) : undefined;
      return { entry_id: entry.id, kind: entry.kind, level: entry.level, statement: entry.statement, source: { conversation_id: conv, ...(title ? { title } : {}) } };
    }),
  );
}

/** The text of the person's request of `traceId` (the latest person message when the trace has none). */
function requestText(messages: readonly Message[], traceId: string | undefined): string | null {
  let latest: string | null = null;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== "user" || m.metadata?.message_source !== "user" || !m.content?.trim()) continue;
    if (traceId && (m.metadata as { trace_id?: unknown }).trace_id === traceId) return m.content;
    latest ??= m.content;
  }
  return latest;
}

/** Audits one read of memory: who read, how, which entries at which levels (never their text). */
export async function auditRecall(s: TeamState, agentId: number | null, roleId: string, via: "slice" | "tool", hits: ReadonlyArray<{ entry: { id: string; level: string } }>): Promise<void> {
  await s.emitNow({
    type: "event",
    from: SYSTEM_PARTY,
    to: agentId === null ? LEADER_PARTY : agentParty(agentId),
    payload: { via, reader_role: roleId, count: hits.length, entries: hits.map((h) => ({ id: h.entry.id, level: h.entry.level })) },
    action: "memory_recall",
    resource: "memory",
  });
}

async function recall(s: TeamState, agentId: number | null, roleId: string, traceId: string): Promise<RecalledMemory[]> {
  const memory = await memoryOf(s.deps);
  if (!memory) return [];
  const text = requestText((await s.store.readLeaderMessages(s.convId)).messages, traceId);
  if (!text) return [];
  const conv = await s.store.get(s.convId);
  const hits = await memory.recall({ text, reader: { project_path: conv.project_path || null, role_id: roleId }, limit: SLICE_RECALL_LIMIT });
  await auditRecall(s, agentId, roleId, "slice", hits);
  return withCitations(s, hits);
}

/**
 * The entries recalled for the request of `traceId` as `roleId` reads them (the leader is
 * `leader`), for the global slice. The first call of a request by this reader (the leader, or
 * agent `agentId`) recalls and audits; the later ones of the same request reuse it.
 */
export function recalledForRequest(s: TeamState, agentId: number | null, roleId: string, traceId: string | undefined): Promise<RecalledMemory[]> {
  if (!traceId) return Promise.resolve([]);
  let cache = caches.get(s);
  if (!cache || cache.trace !== traceId) caches.set(s, (cache = { trace: traceId, byRole: new Map() }));
  // One recall (and one audit record) per reader: each agent reads for itself.
  const key = `${roleId}\u0000${agentId ?? "leader"}`;
  let found = cache.byRole.get(key);
  if (!found) {
    found = recall(s, agentId, roleId, traceId).catch((error: unknown) => {
      console.error(`[astrion] ${s.convId} memory recall for ${roleId} failed:`, (error as Error).message);
      // Not cached as a failure for good: the next request tries again.
      return [];
    });
    cache.byRole.set(key, found);
  }
  return found;
}
