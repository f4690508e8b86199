/**
 * The PostgreSQL store as a conversation catalog harness (test/conformance/conversation-catalog.ts):
 * a fresh database of the file's cluster (./pg-cluster.ts) per harness, and the backend the
 * composition root would make over it (lib/pg `createPgBackend`: the engine's storage and the
 * catalog over one pool), given the project folder rules the server gives its own (the
 * workspace's check, for a data folder path nobody creates). At the end every conversation is
 * let go, the pool ended and the database dropped.
 */
import os from "node:os";
import path from "node:path";
import type { Pool } from "pg";
import { createPgBackend, createPool, type PgBackend } from "@/lib/pg";
import { projectFolderCheckFor } from "@/lib/workspace/project-folder";
import { ProtectedFolders } from "@/lib/workspace/protected";
import type { CatalogFactory } from "@/test/conformance/conversation-catalog";
import type { PgCluster } from "./pg-cluster";
import { PgProxy } from "./pg-proxy";

/** Long enough that no lease expires during a case. */
const LEASE_MS = 60_000;

/** The server's project folder rules, for a data folder path nobody creates. */
function serverFolderRules(owner: string) {
  return projectFolderCheckFor(new ProtectedFolders(), path.join(os.tmpdir(), `astrion-pg-catalog-data-${owner}`));
}

/** A backend over the database `url` as instance `owner`, with the server's project folder rules. */
async function pgBackend(url: string, owner: string, leaseMs = LEASE_MS): Promise<PgBackend> {
  return createPgBackend({ url, owner, leaseMs, log: () => undefined, checkProjectFolder: serverFolderRules(owner) });
}

/** A backend that reaches database `dbName` of `cluster` through a proxy of its own (./pg-proxy.ts), so a test can hold its commits. */
export interface ProxiedBackend {
  backend: PgBackend;
  proxy: PgProxy;
  pool: Pool;
  /** Ends the backend cleanly, then its pool and proxy. */
  close(): Promise<void>;
}

export async function pgBackendThroughProxy(cluster: PgCluster, dbName: string, owner: string, leaseMs = LEASE_MS): Promise<ProxiedBackend> {
  const proxy = await PgProxy.start({ host: cluster.host, port: cluster.port });
  const pool = createPool(proxy.url(dbName), { applicationName: owner, max: 4 });
  const backend = await createPgBackend({ pool, owner, leaseMs, log: () => undefined, checkProjectFolder: serverFolderRules(owner) });
  return {
    backend,
    proxy,
    pool,
    async close() {
      await backend.close();
      await pool.end();
      await proxy.close();
    },
  };
}

/** Fresh PostgreSQL catalogs over databases of `cluster()` (read when a harness is made, so the cluster may start in a `beforeAll`). */
export function pgCatalogFactory(cluster: () => PgCluster): CatalogFactory {
  let harnesses = 0;
  return {
    async create() {
      const c = cluster();
      const url = await c.createDatabase();
      const backend = await pgBackend(url, `catalog-${++harnesses}`);
      return {
        catalog: backend.catalog,
        async close() {
          await backend.close();
          await c.dropDatabase(url);
        },
      };
    },
  };
}
