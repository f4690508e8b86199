import "server-only";
/**
 * Connections to Redis as the bus and the shared limits use them: they never queue commands
 * while Redis is away (a command then fails at once and the caller carries on without Redis,
 * instead of piling up work to replay into a Redis that may have lost everything), and they
 * reconnect for ever with exponential backoff and full jitter, so a fleet of instances that lost
 * Redis together does not come back in lockstep.
 */
import { Redis, type RedisOptions } from "ioredis";

/** First and longest reconnect delays. */
const BACKOFF_BASE_MS = 100;
const BACKOFF_CAP_MS = 5_000;

/**
 * The delay before reconnect attempt `times` (1, 2, …): a random share of an exponentially
 * growing cap (full jitter), at least 20 ms. `random` is injectable for tests.
 */
export function reconnectDelay(times: number, random: () => number = Math.random): number {
  const cap = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.min(Math.max(times, 1) - 1, 16));
  return Math.max(20, Math.round(cap * random()));
}

/** A connection to `url` named `name` (CLIENT LIST shows it), with the options above. */
export function connectRedis(url: string, name: string, extra: RedisOptions = {}): Redis {
  const redis = new Redis(url, {
    connectionName: name,
    enableOfflineQueue: false,
    // A command in flight when the connection drops fails instead of being sent again later.
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    retryStrategy: (times) => reconnectDelay(times),
    connectTimeout: 5_000,
    ...extra,
  });
  // ioredis emits "error" on every failed attempt; without a listener Node would crash. The
  // callers log the transitions (down, back) themselves.
  redis.on("error", () => undefined);
  return redis;
}

/** True when `redis` can take a command now. */
export function isReady(redis: Redis): boolean {
  return redis.status === "ready";
}
