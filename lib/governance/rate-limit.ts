/**
 * The entry rate limit (seed 003 §6.2): new conversations and new user messages pass a token
 * bucket before any work starts, so a burst of requests is refused with 429 and `Retry-After`
 * instead of piling up model calls. One limiter per server: the composition root
 * (lib/server/app.ts) makes it (`entryLimiter`) and the routes pass that one to
 * {@link enforceRateLimit}, since Next loads this module once per route bundle and every route
 * must count against the same buckets.
 */
import { AstrionError } from "@/lib/contracts/errors";

/** Settings of a bucket. */
export interface RateLimitConfig {
  /** Tokens added per minute; 0 turns the limit off. */
  perMinute: number;
  /** Most tokens a bucket holds: how many requests may arrive at once. */
  burst: number;
}

/** The answer of {@link TokenBucketLimiter.take}. */
export type RateLimitResult = { ok: true; remaining: number } | { ok: false; retryAfterSeconds: number };

function intFromEnv(env: Record<string, string | undefined>, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const n = Number(raw);
  return Number.isFinite(n) && n >= 0 ? Math.floor(n) : fallback;
}

/**
 * The limit from the environment: `ASTRION_RATE_LIMIT_PER_MINUTE` (default 30; 0 = off) and
 * `ASTRION_RATE_LIMIT_BURST` (default 10, at least 1).
 */
export function rateLimitConfigFromEnv(env: Record<string, string | undefined> = process.env): RateLimitConfig {
  return {
    perMinute: intFromEnv(env, "ASTRION_RATE_LIMIT_PER_MINUTE", 30),
    burst: Math.max(1, intFromEnv(env, "ASTRION_RATE_LIMIT_BURST", 10)),
  };
}

/** Buckets that have been full (idle) this long are forgotten, so the map does not grow forever. */
const IDLE_FORGET_MS = 10 * 60 * 1000;

/** A token bucket per key with an injectable clock. */
export class TokenBucketLimiter {
  readonly config: RateLimitConfig;
  readonly #now: () => number;
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(config: RateLimitConfig, now: () => number = Date.now) {
    this.config = { perMinute: Math.max(0, config.perMinute), burst: Math.max(1, config.burst) };
    this.#now = now;
  }

  /** Takes one token from `key`'s bucket, or says how many seconds until one is there. */
  take(key: string): RateLimitResult {
    const { perMinute, burst } = this.config;
    if (perMinute === 0) return { ok: true, remaining: burst };
    const now = this.#now();
    const perMs = perMinute / 60_000;
    const b = this.#buckets.get(key) ?? { tokens: burst, at: now };
    b.tokens = Math.min(burst, b.tokens + Math.max(0, now - b.at) * perMs);
    b.at = now;
    this.#buckets.set(key, b);
    if (this.#buckets.size > 1000) this.#forgetIdle(now);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return { ok: true, remaining: Math.floor(b.tokens) };
    }
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - b.tokens) / perMs / 1000)) };
  }

  /** Forgets every bucket. */
  reset(): void {
    this.#buckets.clear();
  }

  #forgetIdle(now: number): void {
    const fillMs = (this.config.burst / this.config.perMinute) * 60_000;
    for (const [key, b] of this.#buckets) if (now - b.at > Math.max(fillMs, IDLE_FORGET_MS)) this.#buckets.delete(key);
  }
}

/** A request over the entry rate limit; answered as 429 with `details.retry_after_seconds`. */
export class RateLimitedError extends AstrionError {
  static override readonly kind: string = "RateLimitedError";
  readonly retryAfterSeconds: number;

  constructor(retryAfterSeconds: number, what = "requests") {
    super("rate_limited", `Too many ${what}; try again in ${retryAfterSeconds} s.`, { retry_after_seconds: retryAfterSeconds });
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * A limit the routes take from: the in-process {@link TokenBucketLimiter}, or one shared by every
 * instance (lib/bus-redis `RedisRateLimiter`, whose answer comes from Redis).
 */
export interface EntryLimiter {
  take(key: string): RateLimitResult | Promise<RateLimitResult>;
}

/**
 * Takes a token for `key` from `limiter` (the app's entry limiter, made by the composition root
 * from {@link rateLimitConfigFromEnv}) or rejects with a {@link RateLimitedError}. Await it in a
 * route before any side effect, e.g. `await enforceRateLimit("entry", app.entryLimiter)`.
 */
export async function enforceRateLimit(key: string, limiter: EntryLimiter): Promise<void> {
  const r = await limiter.take(key);
  if (!r.ok) throw new RateLimitedError(r.retryAfterSeconds);
}
