import "server-only";
/**
 * Which backend an instance runs on, chosen by the composition root (./app.ts) from the
 * environment: the data folder (the embedded default) or PostgreSQL + Redis (issue 31;
 * docs/postgresql.md, docs/redis.md). `ASTRION_DATABASE_URL` and `ASTRION_REDIS_URL` switch an
 * instance over together; without them nothing changes and no database client is loaded: the
 * PostgreSQL store (lib/pg) and the Redis bus (lib/bus-redis) are imported here, with
 * `await import()`, only when asked for.
 */
import { EventBus, type Bus } from "@/lib/bus";
import { createPresence, memoryPresenceStore, type Presence } from "@/lib/presence";
import type { EntryLimiter, RateLimitConfig } from "@/lib/governance";
import type { ConversationLifecycle, EngineStorage } from "@/lib/runtime/team/ports";
import type { ConversationCatalog, ConversationStore } from "@/lib/store";
import type { ProjectFolderGate } from "@/lib/store/store-core";
import { fileLifecycle, fileStorage } from "./file-storage";

/** The variables that switch an instance to PostgreSQL + Redis. */
export const DATABASE_URL_VARIABLE = "ASTRION_DATABASE_URL";
export const REDIS_URL_VARIABLE = "ASTRION_REDIS_URL";

/** What the environment asks for. */
export type BackendConfig = { kind: "folder" } | { kind: "scaled"; databaseUrl: string; redisUrl: string };

/** A bad backend configuration: told in one line at start, before anything is opened. */
export class BackendConfigError extends Error {
  override readonly name = "BackendConfigError";
}

/**
 * The backend the environment asks for: both URLs set (not blank) → PostgreSQL + Redis; neither
 * → the data folder. One without the other is refused: a PostgreSQL store with an in-process bus
 * would let viewers and runs on other instances miss each other's events.
 * @throws BackendConfigError naming the missing variable, or a URL of the wrong scheme.
 */
export function backendConfigFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): BackendConfig {
  const databaseUrl = env[DATABASE_URL_VARIABLE]?.trim() ?? "";
  const redisUrl = env[REDIS_URL_VARIABLE]?.trim() ?? "";
  if (!databaseUrl && !redisUrl) return { kind: "folder" };
  if (!databaseUrl) throw new BackendConfigError(`${REDIS_URL_VARIABLE} is set but ${DATABASE_URL_VARIABLE} is not: set both (PostgreSQL + Redis) or neither (the data folder).`);
  if (!redisUrl) throw new BackendConfigError(`${DATABASE_URL_VARIABLE} is set but ${REDIS_URL_VARIABLE} is not: set both (PostgreSQL + Redis) or neither (the data folder).`);
  if (!/^postgres(ql)?:\/\//i.test(databaseUrl)) throw new BackendConfigError(`${DATABASE_URL_VARIABLE} must be a postgres:// or postgresql:// URL.`);
  if (!/^rediss?:\/\//i.test(redisUrl)) throw new BackendConfigError(`${REDIS_URL_VARIABLE} must be a redis:// or rediss:// URL.`);
  return { kind: "scaled", databaseUrl, redisUrl };
}

/** The parts of the app that depend on the backend. */
export interface Backend {
  kind: BackendConfig["kind"];
  /** The engine's storage and its lifecycle of conversations. */
  storage: EngineStorage;
  lifecycle: ConversationLifecycle;
  /** `app.store`: what routes and services use of conversations. */
  catalog: ConversationCatalog;
  bus: Bus;
  /** Who has each conversation open (in this process, or shared over Redis; never on disk). */
  presence: Presence;
  /** The entry limit (one budget shared by every instance on Redis). */
  entryLimiter: EntryLimiter;
  /** At shutdown, after the engine let everything go: commits, leases and connections closed. */
  close(): Promise<void>;
}

/** What the data folder's backend is made of (the composition root makes the store). */
export interface FolderParts {
  root: string;
  store: ConversationStore;
  entryLimiter: EntryLimiter;
}

/** The data folder's backend: the file store, the in-process bus and limit. */
export function folderBackend({ root, store, entryLimiter }: FolderParts): Backend {
  const presence = createPresence(memoryPresenceStore());
  return { kind: "folder", storage: fileStorage(root, store), lifecycle: fileLifecycle(store), catalog: store, bus: new EventBus(), presence, entryLimiter, close: () => presence.close() };
}

/** What PostgreSQL + Redis need from the composition root. */
export interface ScaledParts {
  checkProjectFolder: ProjectFolderGate;
  rateLimit: RateLimitConfig;
  log?: (message: string) => void;
}

/**
 * PostgreSQL + Redis: the store's schema migrated (safe when instances start at once), the
 * catalog ready, the bus and the shared limit connected lazily (they reconnect on their own and
 * never throw into the engine while Redis is away).
 */
export async function scaledBackend(config: Extract<BackendConfig, { kind: "scaled" }>, parts: ScaledParts): Promise<Backend> {
  const [{ createPgBackend }, { createRedisBus, createRedisLimits, redisPresenceStore }] = await Promise.all([import("@/lib/pg"), import("@/lib/bus-redis")]);
  const pg = await createPgBackend({ url: config.databaseUrl, checkProjectFolder: parts.checkProjectFolder, log: parts.log });
  const bus = createRedisBus({ url: config.redisUrl });
  const limits = createRedisLimits({ url: config.redisUrl, entry: parts.rateLimit });
  const presence = createPresence(redisPresenceStore({ url: config.redisUrl }), { log: parts.log });
  return {
    kind: "scaled",
    storage: pg.storage,
    lifecycle: pg.lifecycle,
    catalog: pg.catalog,
    bus,
    presence,
    entryLimiter: limits.entryLimiter,
    async close() {
      await pg.close();
      await Promise.allSettled([bus.close(), limits.close(), presence.close()]);
    },
  };
}
