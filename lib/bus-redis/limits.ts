import "server-only";
/**
 * The entry rate limit and the sign-in throttle shared by every instance, kept in Redis with
 * `rate-limiter-flexible`, with the interfaces of the in-process ones (lib/governance/rate-limit.ts
 * `TokenBucketLimiter.take`, lib/security/signin-throttle.ts `SignInThrottle`) made async. While
 * Redis is away each falls back to a limiter in this process's memory (the library's insurance
 * limiter), so a request is never refused or failed only because Redis is.
 *
 * Differences from the in-process ones, all from keeping the counts in Redis:
 * - the entry limit is a fixed window, not a refilling bucket: `burst` requests per
 *   `burst / perMinute` minutes, the same average rate (at a window's edge up to twice `burst`
 *   can pass in a short while);
 * - the sign-in throttle counts a guess when it is checked, as the in-process one does through
 *   lib/security/signin-guard.ts (a right token then clears the count; one refused uncounts
 *   itself), so guesses sent at once to several instances cannot all pass one check: after a
 *   lockout, one guess at a time gets through; lockouts last whole seconds (rounded up); the
 *   count is forgotten `forgetAfterMs` after the last guess checked;
 * - both use one Lua script that renews a key's expiry on every count (EXPIRE … GT, Redis 7),
 *   given to the library as its increment script; the library defines that script on the client
 *   under one name, so each limiter here takes a connection of its own ({@link createRedisLimits}).
 */
import type { Redis } from "ioredis";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import type { RateLimitConfig, RateLimitResult } from "@/lib/governance";
import type { SignInGuard, SignInThrottleConfig, ThrottleVerdict } from "@/lib/security";
import type { Probe } from "@/lib/contracts/backend-health";
import { connectRedis, isReady } from "./connection";

/**
 * The library's increment (KEYS[1]; ARGV[1] points, ARGV[2] seconds), except that every count
 * pushes the expiry out to `seconds` from now, never in: a window that slides with use, and a
 * block (set by the library with a longer expiry) that a count cannot shorten.
 */
const SLIDING_INCR_SCRIPT = `redis.call('set', KEYS[1], 0, 'EX', ARGV[2], 'NX')
local consumed = redis.call('incrby', KEYS[1], ARGV[1])
redis.call('expire', KEYS[1], ARGV[2], 'GT')
return {consumed, redis.call('pttl', KEYS[1])}`;

/** A limiter over `client`, with an in-memory twin for when Redis is away. */
function limiter(client: Redis, keyPrefix: string, points: number, duration: number, sliding: boolean): RateLimiterRedis {
  return new RateLimiterRedis({
    storeClient: client,
    keyPrefix,
    points,
    duration,
    rejectIfRedisNotReady: true,
    insuranceLimiter: new RateLimiterMemory({ keyPrefix, points, duration }),
    ...(sliding ? { customIncrTtlLuaScript: SLIDING_INCR_SCRIPT } : {}),
  });
}

/** A limit's refusal (the library rejects with its result), or the error to rethrow. */
function refusal(error: unknown): RateLimiterRes {
  if (error instanceof RateLimiterRes) return error;
  throw error;
}

/** The entry rate limit over Redis: one budget per key for every instance. */
class RedisRateLimiter {
  readonly config: RateLimitConfig;
  readonly #limiter: RateLimiterRedis | null;

  constructor(client: Redis, config: RateLimitConfig, keyPrefix = "astrion:limit:entry") {
    this.config = { perMinute: Math.max(0, config.perMinute), burst: Math.max(1, config.burst) };
    const { perMinute, burst } = this.config;
    this.#limiter = perMinute === 0 ? null : limiter(client, keyPrefix, burst, Math.max(1, Math.ceil((burst * 60) / perMinute)), false);
  }

  /** Takes one request from `key`'s budget, or says how many seconds until there is room. */
  async take(key: string): Promise<RateLimitResult> {
    if (!this.#limiter) return { ok: true, remaining: this.config.burst };
    try {
      const taken = await this.#limiter.consume(key);
      return { ok: true, remaining: taken.remainingPoints };
    } catch (error) {
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(refusal(error).msBeforeNext / 1000)) };
    }
  }
}

/** How long the one guess let through after a lockout holds the way for the others (it is compared at once). */
const GUESS_IN_FLIGHT_SECONDS = 1;

const DEFAULT_CONFIG: SignInThrottleConfig = { freeAttempts: 5, baseLockoutMs: 1000, maxLockoutMs: 15 * 60_000, forgetAfterMs: 60 * 60_000, maxClients: 10_000 };

/**
 * The sign-in throttle over Redis, per client address for every instance: a few free wrong
 * guesses, then a lockout that doubles with each further one, forgotten `forgetAfterMs` after the
 * last guess (`maxClients` does not apply: Redis forgets by expiry).
 */
class RedisSignInThrottle implements SignInGuard {
  readonly config: SignInThrottleConfig;
  readonly #client: Redis;
  readonly #log: (message: string) => void;
  /** Guesses counted (a right one clears them), per client. */
  readonly #guesses: RateLimiterRedis;
  /** Blocked while locked out; after that, one guess at a time. */
  readonly #gate: RateLimiterRedis;
  /** Whether the fallback to this process's memory was logged (reset when Redis answers again). */
  #away = false;

  constructor(client: Redis, config: Partial<SignInThrottleConfig> = {}, keyPrefix = "astrion:signin", log: (message: string) => void = console.error) {
    this.config = { ...DEFAULT_CONFIG, ...config };
    this.#client = client;
    this.#log = log;
    const forget = Math.max(1, Math.ceil(this.config.forgetAfterMs / 1000));
    this.#guesses = limiter(client, `${keyPrefix}:guesses`, Number.MAX_SAFE_INTEGER, forget, true);
    this.#gate = limiter(client, `${keyPrefix}:gate`, 1, GUESS_IN_FLIGHT_SECONDS, true);
  }

  /**
   * Whether `client` may make a guess now; a guess let through counts as wrong (and starts the
   * lockout it earns) until {@link recordSuccess} says it was right. When not, how long until it may.
   */
  async check(client: string): Promise<ThrottleVerdict> {
    this.#noteRedis();
    const counted = await this.#guesses.consume(client).catch(refusal);
    const lockout = this.#lockoutAfter(counted.consumedPoints);
    if (lockout === 0) return { ok: true };
    // A guess that earns a lockout takes the gate, one per second: of guesses in flight together
    // on any instance, one gets through. Read first, so that a guess refused while locked out
    // leaves the lockout as it is.
    const gate = await this.#gate.get(client);
    const refused = gate && gate.consumedPoints > 1 ? gate : await this.#gate.consume(client).then(() => null, refusal);
    if (refused) {
      await this.#guesses.reward(client);
      return { ok: false, retryAfterMs: Math.max(1, refused.msBeforeNext) };
    }
    // The guess is counted as wrong now, so its lockout starts now too (a right one clears it).
    await this.#gate.block(client, Math.ceil(lockout / 1000));
    return { ok: true };
  }

  /** The guess was wrong (it was counted by {@link check}); returns the lockout it started, in ms (0 while guesses are still free). */
  async recordFailure(client: string): Promise<number> {
    const counted = await this.#guesses.get(client);
    return this.#lockoutAfter(counted?.consumedPoints ?? 0);
  }

  /** A right token: the client starts afresh. */
  async recordSuccess(client: string): Promise<void> {
    await Promise.all([this.#guesses.delete(client), this.#gate.delete(client)]);
  }

  /** Logs the switch to this process's memory once per outage (the library's insurance limiter answers meanwhile). */
  #noteRedis(): void {
    const ready = isReady(this.#client);
    if (!ready && !this.#away) this.#log("[astrion] Redis is not answering: the sign-in throttle counts guesses in this instance's memory until it is back");
    else if (ready && this.#away) this.#log("[astrion] Redis answers again: the sign-in throttle is shared by every instance again");
    this.#away = !ready;
  }

  /** The lockout after `failures` wrong guesses (as lib/security/signin-throttle.ts counts it). */
  #lockoutAfter(failures: number): number {
    const beyond = failures - this.config.freeAttempts;
    return beyond > 0 ? Math.min(this.config.maxLockoutMs, this.config.baseLockoutMs * 2 ** Math.min(beyond - 1, 40)) : 0;
  }
}

/** How long a health probe waits for Redis's answer. */
const PROBE_TIMEOUT_MS = 2_000;

/** A PING on `client`: whether Redis answered, and in how long; the error is a code or the connection's state, never an address. */
async function pingRedis(client: Redis): Promise<Probe> {
  if (!isReady(client)) return { ok: false, error: `not connected (${client.status})` };
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([client.ping(), new Promise((_, reject) => (timer = setTimeout(() => reject(new Error("no answer within 2 s")), PROBE_TIMEOUT_MS)))]);
    return { ok: true, ms: Math.round((performance.now() - started) * 10) / 10 };
  } catch (error) {
    return { ok: false, error: (error as NodeJS.ErrnoException).code ?? (error as Error).message };
  } finally {
    clearTimeout(timer);
  }
}

/** Both shared limits on `url`, each on a connection of its own; `close()` ends them. */
export interface RedisLimits {
  entryLimiter: RedisRateLimiter;
  signInThrottle: SignInGuard;
  /** Whether Redis answers a PING now, on the throttle's connection (for `/api/health`). */
  ping(): Promise<Probe>;
  /** Resolves once both connections are up (until then the in-memory twins answer). */
  whenConnected(): Promise<void>;
  close(): Promise<void>;
}

/** Makes the shared limits (the composition root, when `ASTRION_REDIS_URL` is set). */
export function createRedisLimits(options: { url: string; entry: RateLimitConfig; signIn?: Partial<SignInThrottleConfig>; log?: (message: string) => void }): RedisLimits {
  const entryClient = connectRedis(options.url, "astrion-limit-entry");
  const signInClient = connectRedis(options.url, "astrion-limit-signin");
  return {
    entryLimiter: new RedisRateLimiter(entryClient, options.entry),
    signInThrottle: new RedisSignInThrottle(signInClient, options.signIn, undefined, options.log),
    async ping() {
      return pingRedis(signInClient);
    },
    async whenConnected() {
      await Promise.all([entryClient, signInClient].map((client) => (isReady(client) ? undefined : new Promise((resolve) => client.once("ready", resolve)))));
    },
    async close() {
      await Promise.allSettled([entryClient.quit(), signInClient.quit()]);
      entryClient.disconnect();
      signInClient.disconnect();
    },
  };
}
