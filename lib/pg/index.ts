import "server-only";
/**
 * The PostgreSQL store (issue 31; docs/postgresql.md): the engine's storage port on PostgreSQL,
 * the conversation catalog over the same rows, its versioned migrations and its run leases.
 * Loaded only when `ASTRION_DATABASE_URL` is set (the composition root imports this module with
 * `await import()`); nothing outside this folder and the tests imports `pg`.
 */
import { hostname } from "node:os";
import { randomUUID } from "node:crypto";
import type { Pool } from "pg";
import type { ConversationLifecycle } from "@/lib/runtime/team/ports";
import { PgCatalog, type ProjectFolderCheck } from "./catalog";
import { migrate } from "./migrate";
import { PgEngineStorage } from "./pg-storage";
import { createPool, databaseUrl, DATABASE_URL_VARIABLE } from "./pool";

export { migrate } from "./migrate";
export { MIGRATIONS, type Migration } from "./migrations";
export { PgEngineStorage } from "./pg-storage";
export { listPage, listStatement, type ListQuery } from "./catalog-rows";
export { listColumns } from "./rows";
export { Leases } from "./leases";
export { FencedError, LeaseHeldError, StorageFailedError } from "./errors";
export { createPool } from "./pool";
export { createPgPeopleStore } from "./people-store";
export { createPgMemoryEntries } from "./memory-store";

/** Default lease term (ms): an instance that dies is replaced within about twice this. */
const DEFAULT_LEASE_MS = 10_000;

/** What {@link createPgStorage} needs: a database (a URL, or a pool the caller owns), and how this instance leases. */
export interface CreatePgStorageOptions {
  /** Default: `ASTRION_DATABASE_URL`. */
  url?: string;
  /** A pool to use instead of a URL (the caller ends it). */
  pool?: Pool;
  /** This instance's id in the leases (default: host, process id and a random part). */
  owner?: string;
  /** Lease term in ms (default {@link DEFAULT_LEASE_MS}). */
  leaseMs?: number;
  /** Where refused writes and lost leases are reported (default: console.error). */
  log?: (message: string) => void;
}

/**
 * The engine's storage on PostgreSQL, its schema migrated first (safe when instances start at
 * once). The storage is both the `EngineStorage` and the `ConversationLifecycle` the engine takes;
 * `end()` lets everything go at shutdown.
 * @throws when there is no database URL, or the database cannot be reached or migrated.
 */
export async function createPgStorage(options: CreatePgStorageOptions = {}): Promise<PgEngineStorage> {
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  let pool = options.pool;
  if (!pool) {
    const url = options.url ?? databaseUrl();
    if (!url) throw new Error(`no PostgreSQL database: set ${DATABASE_URL_VARIABLE}`);
    pool = createPool(url, { idleInTransactionMs: Math.max(1000, Math.floor(leaseMs / 2)) });
  }
  try {
    await migrate(pool);
  } catch (error) {
    if (!options.pool) await pool.end().catch(() => undefined);
    throw error;
  }
  const owner = options.owner ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  return new PgEngineStorage(pool, { owner, leaseMs, log: options.log, endPool: !options.pool });
}

/** What {@link createPgBackend} needs: {@link createPgStorage}'s options and the project folder rules of new and imported conversations. */
export interface CreatePgBackendOptions extends CreatePgStorageOptions {
  /** Checks a project folder; resolves with the path to keep (the server gives its workspace's check). */
  checkProjectFolder: ProjectFolderCheck;
}

/** The PostgreSQL store as the composition root uses it: one pool, one storage, one catalog sharing its memory. */
export interface PgBackend {
  /** `deps.storage`: the engine's storage. */
  storage: PgEngineStorage;
  /** `deps.conversations`: the same object, as the engine's lifecycle of conversations. */
  lifecycle: ConversationLifecycle;
  /** `app.store`: what routes and services use of conversations. */
  catalog: PgCatalog;
  /** At shutdown: every change committed, every lease released, the pool ended (when it was made here). */
  close(): Promise<void>;
}

/**
 * The engine's storage, its lifecycle and the conversation catalog over one pool, the schema
 * migrated first and the catalog ready.
 * @throws when there is no database URL, or the database cannot be reached or migrated.
 */
export async function createPgBackend(options: CreatePgBackendOptions): Promise<PgBackend> {
  const storage = await createPgStorage(options);
  const catalog = new PgCatalog(storage, storage.pool, { checkProjectFolder: options.checkProjectFolder });
  try {
    await catalog.init();
  } catch (error) {
    catalog.close();
    await storage.end().catch(() => undefined);
    throw error;
  }
  return {
    storage,
    lifecycle: storage,
    catalog,
    async close() {
      catalog.close();
      await storage.end();
    },
  };
}
