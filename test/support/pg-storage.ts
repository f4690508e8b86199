/**
 * The PostgreSQL store as a conformance harness (test/conformance/storage-contract.ts): a fresh
 * database of the file's cluster (./pg-cluster.ts) per harness, with two conversations, held open
 * by a PgEngineStorage as the engine holds the conversations it runs. The storage reaches the
 * server through a proxy (./pg-proxy.ts): holding durability holds the proxy (changes are made and
 * resolve; no commit reaches the server), and a crash cuts it (every connection dropped, so the
 * server aborts what was not committed) and abandons the storage object. A reopen is a clean end
 * (every change committed, leases released) and a new storage; after a crash the new storage,
 * with the same owner id (a restarted instance), takes the leases over at once. The outside
 * reader of timeline and reports is a pool of its own, straight to the server.
 */
import type { Pool } from "pg";
import { createPgStorage, createPool, type PgEngineStorage } from "@/lib/pg";
import { TIMELINE_FILE_NAME, type TimelineRecord } from "@/lib/protocol";
import { CONTEXT_FILE_NAME } from "@/lib/runtime/team/ports";
import type { StorageFactory, StorageHarness } from "@/test/conformance/storage-contract";
import type { PgCluster } from "./pg-cluster";
import { PgProxy } from "./pg-proxy";

/** Long enough that no lease expires during a case: reopen and crash hand leases over explicitly. */
const LEASE_MS = 60_000;

/** One storage object and what it runs on. */
export interface PgGeneration {
  storage: PgEngineStorage;
  pool: Pool;
  proxy: PgProxy;
}

/** A storage over `dbName` of `cluster` through a fresh proxy, with `ids` open. */
export async function pgGeneration(cluster: PgCluster, dbName: string, owner: string, ids: readonly string[] = [], leaseMs = LEASE_MS): Promise<PgGeneration> {
  const proxy = await PgProxy.start({ host: cluster.host, port: cluster.port });
  const pool = createPool(proxy.url(dbName), { applicationName: owner, max: 4 });
  const storage = await createPgStorage({ pool, owner, leaseMs, log: () => undefined });
  for (const id of ids) await storage.open(id);
  return { storage, pool, proxy };
}

/** Ends a generation cleanly: every change committed, leases released, connections closed. */
export async function endGeneration(g: PgGeneration): Promise<void> {
  await g.storage.end();
  await g.pool.end();
  await g.proxy.close();
}

/** Drops a generation as a crash does: nothing more is committed, every connection is cut. */
export async function crashGeneration(g: PgGeneration): Promise<void> {
  g.storage.abandon();
  await g.proxy.close();
  // Its clients are broken now; the pool ends once the last of them is given back.
  void g.pool.end().catch(() => undefined);
}

interface Chain {
  cluster: PgCluster;
  url: string;
  dbName: string;
  owner: string;
  ids: readonly string[];
  current: PgGeneration;
  reader: Pool;
}

function harness(chain: Chain): StorageHarness {
  const generation = chain.current;
  const lines = async (convId: string, file: string) =>
    (await chain.reader.query<{ line: string }>("SELECT line FROM conversation_lines WHERE conversation_id = $1 AND file = $2 ORDER BY seq", [convId, file])).rows.map((r) => r.line);
  const next = async (drop: (g: PgGeneration) => Promise<void>) => {
    if (chain.current !== generation) throw new Error("this harness was reopened or crashed: use the one that returned");
    await drop(generation);
    chain.current = await pgGeneration(chain.cluster, chain.dbName, chain.owner, chain.ids);
    return harness(chain);
  };
  return {
    storage: generation.storage,
    conversationIds: chain.ids,
    reopen: () => next(endGeneration),
    crash: () => next(crashGeneration),
    timeline: async (convId) => (await lines(convId, TIMELINE_FILE_NAME)).map((line) => JSON.parse(line) as TimelineRecord),
    contextReports: (convId) => lines(convId, CONTEXT_FILE_NAME),
    holdDurability: () => generation.proxy.hold(),
    async close() {
      await chain.current.proxy.close();
      chain.current.storage.abandon();
      await chain.current.pool.end().catch(() => undefined);
      await chain.reader.end();
      await chain.cluster.dropDatabase(chain.url);
    },
  };
}

/** Fresh PostgreSQL harnesses over databases of `cluster()` (read when a harness is made, so the cluster may start in a `beforeAll`). */
export function pgStorageFactory(cluster: () => PgCluster): StorageFactory {
  let harnesses = 0;
  return {
    canHoldDurability: true,
    async create() {
      const c = cluster();
      const url = await c.createDatabase();
      const dbName = new URL(url).pathname.slice(1);
      const owner = `conformance-${++harnesses}`;
      const first = await pgGeneration(c, dbName, owner);
      const fast = await first.storage.createConversation({ title: "Fast", project_path: "/nonexistent-pg-project", model_key: "model-a", run_mode: "fast" });
      const thinking = await first.storage.createConversation({ title: "Thinking", project_path: "/nonexistent-pg-project", model_key: "model-b", run_mode: "thinking" });
      const ids = [fast.id, thinking.id];
      for (const id of ids) await first.storage.open(id);
      return harness({ cluster: c, url, dbName, owner, ids, current: first, reader: createPool(url, { max: 2 }) });
    },
  };
}
