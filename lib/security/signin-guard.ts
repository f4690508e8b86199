/**
 * The one contract the sign-in route uses to throttle guesses (access token or a person's
 * password), whichever backend the instance runs on: the in-process throttle over
 * ./signin-throttle.ts on the data folder, or the throttle every instance shares over Redis
 * (lib/bus-redis/limits.ts `RedisSignInThrottle`) on PostgreSQL + Redis.
 *
 * Both count a guess the same way: `check` counts it as wrong at once, before the token or the
 * password is compared (and starts the lockout it earns), so guesses in flight together, on one
 * instance or several, cannot all pass one check; a refused guess is not counted; a right one
 * clears the count with `recordSuccess`. `recordFailure` only says the guess was wrong (and what
 * lockout it started): it counts nothing more.
 */
import { SignInThrottle, type SignInThrottleConfig, type ThrottleVerdict } from "./signin-throttle";

/** The sign-in throttle as the route sees it (async: on Redis every step is a round trip). */
export interface SignInGuard {
  readonly config: SignInThrottleConfig;
  /**
   * Whether `client` may make a guess now. A guess let through is counted as wrong (and its
   * lockout, if it earns one, started) until {@link recordSuccess} says it was right.
   */
  check(client: string): Promise<ThrottleVerdict>;
  /** The guess let through was wrong; the lockout it started, in ms (0 while guesses are still free). */
  recordFailure(client: string): Promise<number>;
  /** The guess was right: the client starts afresh. */
  recordSuccess(client: string): Promise<void>;
}

/** The data folder's guard: the in-process throttle, counting at `check`. */
export class MemorySignInGuard implements SignInGuard {
  readonly #throttle: SignInThrottle;
  readonly #now: () => number;

  constructor(throttle: SignInThrottle, now: () => number = Date.now) {
    this.#throttle = throttle;
    this.#now = now;
  }

  get config(): SignInThrottleConfig {
    return this.#throttle.config;
  }

  async check(client: string): Promise<ThrottleVerdict> {
    const now = this.#now();
    const verdict = this.#throttle.check(client, now);
    // Counted now, synchronously with the check: nothing can pass between them.
    if (verdict.ok) this.#throttle.recordFailure(client, now);
    return verdict;
  }

  async recordFailure(client: string): Promise<number> {
    // The lockout the check's count started, whole (not what is left of it by now).
    return this.#throttle.lastLockout(client, this.#now());
  }

  async recordSuccess(client: string): Promise<void> {
    this.#throttle.recordSuccess(client);
  }
}
