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
import { createPgBackend, type PgBackend } from "@/lib/pg";
import { projectFolderCheckFor } from "@/lib/workspace/project-folder";
import { ProtectedFolders } from "@/lib/workspace/protected";
import type { CatalogFactory } from "@/test/conformance/conversation-catalog";
import type { PgCluster } from "./pg-cluster";

/** Long enough that no lease expires during a case. */
const LEASE_MS = 60_000;

/** A backend over the database `url` as instance `owner`, with the server's project folder rules (for a data folder path nobody creates). */
export async function pgBackend(url: string, owner: string, leaseMs = LEASE_MS): Promise<PgBackend> {
  const dataRoot = path.join(os.tmpdir(), `astrion-pg-catalog-data-${owner}`);
  return createPgBackend({ url, owner, leaseMs, log: () => undefined, checkProjectFolder: projectFolderCheckFor(new ProtectedFolders(), dataRoot) });
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
