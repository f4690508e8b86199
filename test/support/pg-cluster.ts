/**
 * A throwaway PostgreSQL cluster for a vitest file (./pg-server.ts starts it; this module adds the
 * hooks): {@link pgClusterForFile} gives a test file one cluster, started before its tests and
 * stopped after them whatever happened (and at the process's exit, if it ends first).
 */
import { afterAll, beforeAll } from "vitest";
import { startPgCluster, type PgCluster } from "./pg-server";

export type { PgCluster } from "./pg-server";

/**
 * One cluster for the calling test file: started in `beforeAll`, stopped in `afterAll` (which
 * vitest runs after failures too). Read `cluster` inside tests and hooks, not at the file's top.
 */
export function pgClusterForFile(): { readonly cluster: PgCluster } {
  let cluster: PgCluster | null = null;
  beforeAll(async () => {
    cluster = await startPgCluster();
  });
  afterAll(async () => {
    await cluster?.stop();
  });
  return {
    get cluster() {
      if (!cluster) throw new Error("the PostgreSQL cluster is not started yet (read it inside a test or hook)");
      return cluster;
    },
  };
}
