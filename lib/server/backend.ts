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
import type { BackendHealth, Probe } from "@/lib/contracts/backend-health";
import type { CommandForwarder } from "@/lib/bus/forwarding";
import { createPresence, memoryPresenceStore, type Presence } from "@/lib/presence";
import type { EntryLimiter, RateLimitConfig } from "@/lib/governance";
import { MemorySignInGuard, SignInThrottle, type SignInGuard, type SignInThrottleConfig } from "@/lib/security";
import { openSqlitePeopleStore, secretFromEnv, type PeopleStore } from "@/lib/people";
import type { ConversationLifecycle, EngineStorage } from "@/lib/runtime/team/ports";
import type { ConversationCatalog, ConversationStore, FileQueues } from "@/lib/store";
import type { ProjectFolderGate } from "@/lib/store/store-core";
import { fileEntriesStore, type MemoryEntriesStore } from "@/lib/memory/entries-store";
import { fileLifecycle, fileStorage } from "./file-storage";

/** The variables that switch an instance to PostgreSQL + Redis. */
export const DATABASE_URL_VARIABLE = "ASTRION_DATABASE_URL";
export const REDIS_URL_VARIABLE = "ASTRION_REDIS_URL";

/** The lease term of PostgreSQL + Redis (ms): a dead instance's runs are taken over within twice it. */
export const LEASE_MS_VARIABLE = "ASTRION_LEASE_MS";
/** How often an instance looks for runs to take over (ms; default half the lease term). */
export const TAKEOVER_SCAN_MS_VARIABLE = "ASTRION_TAKEOVER_SCAN_MS";

/** Default lease term (ms), as lib/pg's. */
const DEFAULT_LEASE_MS = 10_000;

/** How runs are leased on PostgreSQL + Redis. */
export interface LeaseConfig {
  leaseMs: number;
  /** Between two takeover scans; below the term, so a run is replaced within twice it. */
  takeoverScanMs: number;
}

/**
 * The lease term and the takeover scan's interval from the environment: `ASTRION_LEASE_MS`
 * (default 10000, at least 300: renewed every third of it) and `ASTRION_TAKEOVER_SCAN_MS`
 * (default half the term, at least 50, below the term).
 * @throws BackendConfigError for a value that is not a whole number in range.
 */
export function leaseConfigFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): LeaseConfig {
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name]?.trim();
    if (!raw) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) throw new BackendConfigError(`${name} must be a whole number of milliseconds from ${min} to ${max}.`);
    return n;
  };
  const leaseMs = int(LEASE_MS_VARIABLE, DEFAULT_LEASE_MS, 300, 3_600_000);
  return { leaseMs, takeoverScanMs: int(TAKEOVER_SCAN_MS_VARIABLE, Math.floor(leaseMs / 2), 50, leaseMs - 1) };
}

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
  /** How a command reaches the instance holding its run (lib/bus/forwarding.ts); null on the data folder, where this process holds every run. */
  forwarder: CommandForwarder | null;
  /** Who has each conversation open (in this process, or shared over Redis; never on disk). */
  presence: Presence;
  /** The entry limit (one budget shared by every instance on Redis). */
  entryLimiter: EntryLimiter;
  /** Wrong sign-in guesses counted per client: in this process, or shared by every instance on Redis. */
  signInThrottle: SignInGuard;
  /**
   * Where team mode's people are kept (opened only when asked: ASTRION_TOKEN set): the data
   * folder's `people/people.sqlite`, or PostgreSQL, shared by every instance.
   */
  openPeople(): Promise<PeopleStore>;
  /**
   * Where long-term memory's entries are kept: the data folder's `memory/entries.json`, or
   * PostgreSQL, shared by every instance (each derives its own search index from them).
   */
  openMemoryEntries(): Promise<MemoryEntriesStore>;
  /** `/api/health`'s `backend`: which one, and on PostgreSQL + Redis whether each answers now. */
  probe(): Promise<BackendHealth>;
  /** At shutdown, after the engine let everything go: commits, leases and connections closed. */
  close(): Promise<void>;
  /** PostgreSQL + Redis: how often boot's takeover scan runs (./takeover.ts); absent on the data folder. */
  takeoverScanMs?: number;
}

/** What the data folder's backend is made of (the composition root makes the store). */
export interface FolderParts {
  root: string;
  store: ConversationStore;
  /** The process's per-file write queues (the shared context's files are written through them). */
  queues: FileQueues;
  entryLimiter: EntryLimiter;
  signIn: SignInThrottleConfig;
}

/** The data folder's backend: the file store, the in-process bus and limit. */
export function folderBackend({ root, store, queues, entryLimiter, signIn }: FolderParts): Backend {
  const presence = createPresence(memoryPresenceStore());
  return {
    kind: "folder",
    storage: fileStorage(root, store, queues),
    lifecycle: fileLifecycle(store),
    catalog: store,
    bus: new EventBus(),
    forwarder: null,
    presence,
    entryLimiter,
    signInThrottle: new MemorySignInGuard(new SignInThrottle(signIn)),
    openPeople: async () => openSqlitePeopleStore(root),
    openMemoryEntries: async () => fileEntriesStore(root, queues),
    probe: async () => ({ kind: "folder" }),
    close: () => presence.close(),
  };
}

/** What PostgreSQL + Redis need from the composition root. */
export interface ScaledParts {
  checkProjectFolder: ProjectFolderGate;
  rateLimit: RateLimitConfig;
  signIn: SignInThrottleConfig;
  log?: (message: string) => void;
}

/** How long a health probe waits for PostgreSQL's answer. */
const PROBE_TIMEOUT_MS = 2_000;

/** Whether `query` answers within the probe's time; the error is a code (a SQLSTATE, `ECONNREFUSED`), never the URL. */
async function probeWith(query: () => Promise<unknown>): Promise<Probe> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([query(), new Promise((_, reject) => (timer = setTimeout(() => reject(new Error("no answer within 2 s")), PROBE_TIMEOUT_MS)))]);
    return { ok: true, ms: Math.round((performance.now() - started) * 10) / 10 };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { ok: false, error: typeof code === "string" ? code : (error as Error).message };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * PostgreSQL + Redis: the store's schema migrated (safe when instances start at once), the
 * catalog ready, the bus and the shared limit connected lazily (they reconnect on their own and
 * never throw into the engine while Redis is away).
 */
export async function scaledBackend(config: Extract<BackendConfig, { kind: "scaled" }>, parts: ScaledParts): Promise<Backend> {
  const [{ createPgBackend, createPgMemoryEntries, createPgPeopleStore }, { createRedisBus, createRedisForwarder, createRedisLimits, redisPresenceStore }] = await Promise.all([import("@/lib/pg"), import("@/lib/bus-redis")]);
  const lease = leaseConfigFromEnv();
  const pg = await createPgBackend({ url: config.databaseUrl, leaseMs: lease.leaseMs, checkProjectFolder: parts.checkProjectFolder, log: parts.log });
  // Operators (and the crash test) match an instance to the owner its leases name.
  console.log(`[astrion] this instance leases runs as ${pg.storage.owner} (lease term ${lease.leaseMs} ms, takeover scan every ${lease.takeoverScanMs} ms)`);
  const bus = createRedisBus({ url: config.redisUrl });
  const limits = createRedisLimits({ url: config.redisUrl, entry: parts.rateLimit, signIn: parts.signIn, log: parts.log });
  // Addressed by the owner id this instance's leases carry: a LeaseHeldError names where to send.
  const forwarder = createRedisForwarder({ url: config.redisUrl, self: pg.storage.owner });
  const presence = createPresence(redisPresenceStore({ url: config.redisUrl }), { log: parts.log });
  return {
    kind: "scaled",
    storage: pg.storage,
    lifecycle: pg.lifecycle,
    catalog: pg.catalog,
    bus,
    forwarder,
    presence,
    entryLimiter: limits.entryLimiter,
    signInThrottle: limits.signInThrottle,
    openPeople: () => createPgPeopleStore(pg.storage.pool, secretFromEnv()),
    openMemoryEntries: async () => createPgMemoryEntries(pg.storage.pool),
    async probe() {
      const [postgresql, redis] = await Promise.all([probeWith(() => pg.storage.pool.query("SELECT 1")), limits.ping()]);
      return { kind: "postgresql+redis", postgresql, redis };
    },
    takeoverScanMs: lease.takeoverScanMs,
    async close() {
      await pg.close();
      await Promise.allSettled([bus.close(), limits.close(), forwarder.close(), presence.close()]);
    },
  };
}
