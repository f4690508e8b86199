/**
 * Throttling of access-token guesses at `POST /api/auth/signin`, per client address.
 *
 * A client gets a few free wrong guesses; after that every wrong guess locks it out for a delay
 * that doubles each time (1 s, 2 s, 4 s … up to a cap). While locked out, every attempt (right or
 * wrong) is refused with 429 and `Retry-After` before the token is even compared, so locked-out
 * guesses teach nothing. A right token after the lock expires signs in and clears the record.
 * Records of clients that stopped failing are forgotten, and the table is bounded, so the
 * throttle itself cannot be used to fill memory. Pure (the clock is passed in).
 */

/** How the throttle behaves. */
export interface SignInThrottleConfig {
  /** Wrong guesses allowed before the first lockout. */
  freeAttempts: number;
  /** Lockout after the first wrong guess beyond the free ones; it doubles with each further one. */
  baseLockoutMs: number;
  /** Longest lockout. */
  maxLockoutMs: number;
  /** A client whose last wrong guess is older than this (and not locked) starts afresh. */
  forgetAfterMs: number;
  /** Most clients remembered at once; the oldest records go first. */
  maxClients: number;
}

/** Defaults: 5 free guesses, then 1 s doubling to at most 15 min; forgotten after an hour. */
const DEFAULT_SIGNIN_THROTTLE: SignInThrottleConfig = {
  freeAttempts: 5,
  baseLockoutMs: 1000,
  maxLockoutMs: 15 * 60_000,
  forgetAfterMs: 60 * 60_000,
  maxClients: 10_000,
};

function intFrom(env: Readonly<Record<string, string | undefined>>, name: string, fallback: number, min: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const n = Number(raw);
  return Number.isInteger(n) && n >= min ? n : fallback;
}

/** Reads ASTRION_SIGNIN_FREE_ATTEMPTS and ASTRION_SIGNIN_LOCKOUT_MS (the first lockout) over the defaults. */
export function signInThrottleConfigFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): SignInThrottleConfig {
  const baseLockoutMs = intFrom(env, "ASTRION_SIGNIN_LOCKOUT_MS", DEFAULT_SIGNIN_THROTTLE.baseLockoutMs, 1);
  return {
    ...DEFAULT_SIGNIN_THROTTLE,
    freeAttempts: intFrom(env, "ASTRION_SIGNIN_FREE_ATTEMPTS", DEFAULT_SIGNIN_THROTTLE.freeAttempts, 0),
    baseLockoutMs,
    maxLockoutMs: Math.max(baseLockoutMs, DEFAULT_SIGNIN_THROTTLE.maxLockoutMs),
  };
}

/** The throttle's answer before a guess is checked. */
export type ThrottleVerdict = { ok: true } | { ok: false; retryAfterMs: number };

interface ClientRecord {
  failures: number;
  lastFailureAt: number;
  lockedUntil: number;
}

/** Per-client record of wrong guesses and lockouts. */
export class SignInThrottle {
  readonly config: SignInThrottleConfig;
  readonly #clients = new Map<string, ClientRecord>();

  constructor(config: Partial<SignInThrottleConfig> = {}) {
    this.config = { ...DEFAULT_SIGNIN_THROTTLE, ...config };
  }

  /** Whether `client` may make a guess now; when not, how long until it may. */
  check(client: string, now: number): ThrottleVerdict {
    const record = this.#current(client, now);
    if (record && record.lockedUntil > now) return { ok: false, retryAfterMs: record.lockedUntil - now };
    return { ok: true };
  }

  /** Records a wrong guess; returns the lockout it started (0 while guesses are still free). */
  recordFailure(client: string, now: number): number {
    const record = this.#current(client, now) ?? { failures: 0, lastFailureAt: now, lockedUntil: 0 };
    record.failures += 1;
    record.lastFailureAt = now;
    const beyond = record.failures - this.config.freeAttempts;
    const lockout = beyond > 0 ? Math.min(this.config.maxLockoutMs, this.config.baseLockoutMs * 2 ** Math.min(beyond - 1, 40)) : 0;
    record.lockedUntil = lockout > 0 ? now + lockout : 0;
    // Re-inserted so the Map's order is oldest-failure first, which eviction relies on.
    this.#clients.delete(client);
    this.#clients.set(client, record);
    this.#evict(now);
    return lockout;
  }

  /** The length of the lockout `client`'s last wrong guess started (0 when it started none, or it is forgotten). */
  lastLockout(client: string, now: number): number {
    const record = this.#current(client, now);
    return record && record.lockedUntil > 0 ? record.lockedUntil - record.lastFailureAt : 0;
  }

  /** A right token: the client starts afresh. */
  recordSuccess(client: string): void {
    this.#clients.delete(client);
  }

  /** Number of clients remembered (tests, diagnostics). */
  get size(): number {
    return this.#clients.size;
  }

  #current(client: string, now: number): ClientRecord | undefined {
    const record = this.#clients.get(client);
    if (record && this.#expired(record, now)) {
      this.#clients.delete(client);
      return undefined;
    }
    return record;
  }

  #expired(record: ClientRecord, now: number): boolean {
    return record.lockedUntil <= now && now - record.lastFailureAt >= this.config.forgetAfterMs;
  }

  #evict(now: number): void {
    if (this.#clients.size <= this.config.maxClients) return;
    for (const [client, record] of this.#clients) {
      if (this.#expired(record, now)) this.#clients.delete(client);
    }
    for (const client of this.#clients.keys()) {
      if (this.#clients.size <= this.config.maxClients) break;
      this.#clients.delete(client);
    }
  }
}
