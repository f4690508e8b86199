/**
 * A circuit breaker per model endpoint (seed 003 §6.1: "a fast-fail switch", issue 4: "stops
 * hammering an endpoint that is down and probes it again later"). Pure: no I/O; the clock is
 * injectable so the state machine is tested without waiting.
 *
 * closed ──N consecutive endpoint failures──▶ open ──cool-down──▶ half_open ──probe ok──▶ closed
 *                                              ▲                      │
 *                                              └────probe failed──────┘
 *
 * While open, calls are refused without touching the endpoint. Half-open lets exactly one call
 * through as a probe; every other call is refused until the probe ends.
 */

/** Where a breaker is in its cycle. */
export type BreakerState = "closed" | "open" | "half_open";

/**
 * How a call that went through ended, as far as the endpoint's health is concerned: `failure` for
 * an endpoint failure (timeout, stall, 5xx, network, rate limit after retries), `success` when the
 * endpoint answered (even with a 4xx: it is up), `neutral` when the call says nothing about it
 * (the caller aborted, a key was missing).
 */
export type BreakerOutcome = "success" | "failure" | "neutral";

/** Consecutive failed calls that open a breaker when neither options nor environment say otherwise. */
export const DEFAULT_BREAKER_THRESHOLD = 5;
/** Milliseconds an open breaker waits before letting a probe through, by default. */
export const DEFAULT_BREAKER_COOLDOWN_MS = 10_000;

/** Options of {@link CircuitBreaker}. */
export interface BreakerOptions {
  /** Consecutive endpoint failures that open the breaker (default 5). */
  threshold?: number;
  /** Time open before a probe is let through (default 10 s). */
  cooldownMs?: number;
  /** Clock in milliseconds (default `Date.now`). */
  now?: () => number;
}

/** A breaker's state for the UI and health checks. */
export interface BreakerSnapshot {
  endpoint: string;
  state: BreakerState;
  consecutive_failures: number;
  threshold: number;
  cooldown_ms: number;
  /** When it last opened (ISO), null while closed. */
  opened_at: string | null;
  /** When a probe will be let through (ISO), null unless open. */
  retry_at: string | null;
  /** True while a half-open probe is in flight. */
  probing: boolean;
  /** What the last endpoint failure said, if any since the last success. */
  last_failure: string | null;
}

/** Permission for one call; report how it ended with {@link BreakerTicket.done} exactly once. */
export interface BreakerTicket {
  /** True when this call is the half-open probe. */
  readonly probe: boolean;
  /** Records the outcome; later calls are ignored. */
  done(outcome: BreakerOutcome, detail?: string): void;
}

/** One endpoint's breaker. */
export class CircuitBreaker {
  readonly threshold: number;
  readonly cooldownMs: number;
  private readonly now: () => number;
  private current: BreakerState = "closed";
  private failures = 0;
  private openedAt: number | null = null;
  private probing = false;
  private lastFailure: string | null = null;
  // Bumped on every transition so a call admitted under an earlier state cannot change a later one.
  private generation = 0;

  constructor(
    readonly endpoint: string,
    options: BreakerOptions = {},
  ) {
    this.threshold = Math.max(1, Math.floor(options.threshold ?? DEFAULT_BREAKER_THRESHOLD));
    this.cooldownMs = Math.max(0, options.cooldownMs ?? DEFAULT_BREAKER_COOLDOWN_MS);
    this.now = options.now ?? Date.now;
  }

  /** The state now; an open breaker whose cool-down has passed reads as half-open. */
  get state(): BreakerState {
    if (this.current === "open" && this.openedAt !== null && this.now() - this.openedAt >= this.cooldownMs) {
      this.transition("half_open");
    }
    return this.current;
  }

  /** Milliseconds until a call may be let through: 0 unless open, or half-open with a probe in flight. */
  retryInMs(): number {
    const state = this.state;
    if (state === "open" && this.openedAt !== null) return Math.max(0, this.openedAt + this.cooldownMs - this.now());
    if (state === "half_open" && this.probing) return this.cooldownMs;
    return 0;
  }

  /**
   * Asks to make a call: a ticket when it may go to the endpoint (closed, or the one half-open
   * probe), null when it must fail fast.
   */
  tryAcquire(): BreakerTicket | null {
    const state = this.state;
    if (state === "open") return null;
    if (state === "half_open") {
      if (this.probing) return null;
      this.probing = true;
      return this.ticket(true);
    }
    return this.ticket(false);
  }

  /** The state for the UI and health checks. */
  snapshot(): BreakerSnapshot {
    const state = this.state;
    return {
      endpoint: this.endpoint,
      state,
      consecutive_failures: this.failures,
      threshold: this.threshold,
      cooldown_ms: this.cooldownMs,
      opened_at: this.openedAt === null || state === "closed" ? null : new Date(this.openedAt).toISOString(),
      retry_at: state === "open" && this.openedAt !== null ? new Date(this.openedAt + this.cooldownMs).toISOString() : null,
      probing: this.probing,
      last_failure: this.lastFailure,
    };
  }

  private ticket(probe: boolean): BreakerTicket {
    const generation = this.generation;
    let settled = false;
    return {
      probe,
      done: (outcome, detail) => {
        if (settled) return;
        settled = true;
        if (probe) this.endProbe(outcome, detail);
        else if (generation === this.generation) this.record(outcome, detail);
      },
    };
  }

  private record(outcome: BreakerOutcome, detail?: string): void {
    if (outcome === "neutral") return;
    if (outcome === "success") {
      this.failures = 0;
      this.lastFailure = null;
      return;
    }
    this.failures += 1;
    this.lastFailure = detail ?? null;
    if (this.failures >= this.threshold) this.open();
  }

  private endProbe(outcome: BreakerOutcome, detail?: string): void {
    this.probing = false;
    if (this.current !== "half_open") return;
    if (outcome === "success") {
      this.failures = 0;
      this.lastFailure = null;
      this.openedAt = null;
      this.transition("closed");
    } else if (outcome === "failure") {
      this.failures += 1;
      this.lastFailure = detail ?? null;
      this.open();
    }
    // neutral: the probe proved nothing; the next call probes again.
  }

  private open(): void {
    this.openedAt = this.now();
    this.transition("open");
  }

  private transition(state: BreakerState): void {
    this.current = state;
    this.generation += 1;
  }
}

/** The breaker key of a base URL: origin and path only, so credentials and queries never leak into health views. */
export function endpointKey(baseUrl: string): string {
  try {
    const u = new URL(baseUrl);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, "")}`;
  } catch {
    return baseUrl;
  }
}

/** Threshold and cool-down from `ASTRION_BREAKER_THRESHOLD` / `ASTRION_BREAKER_COOLDOWN_MS`, when set to numbers. */
export function breakerOptionsFromEnv(env: Record<string, string | undefined> = process.env): BreakerOptions {
  const num = (value: string | undefined) => (value !== undefined && value.trim() !== "" && Number.isFinite(Number(value)) ? Number(value) : undefined);
  const options: BreakerOptions = {};
  const threshold = num(env.ASTRION_BREAKER_THRESHOLD);
  const cooldownMs = num(env.ASTRION_BREAKER_COOLDOWN_MS);
  if (threshold !== undefined) options.threshold = threshold;
  if (cooldownMs !== undefined) options.cooldownMs = cooldownMs;
  return options;
}
