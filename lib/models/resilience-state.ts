/**
 * What the resilience layer keeps for a process: one circuit breaker per endpoint (entries sharing
 * a base URL share it: a server that is down is down for all of them), one semaphore per model
 * entry (its `max_concurrency` across conversations), the listeners of health reports and the
 * last state reported per model and caller. Owned by the model registry the composition root
 * makes; tests make their own.
 */
import { breakerOptionsFromEnv, CircuitBreaker, endpointKey, type BreakerOptions, type BreakerSnapshot } from "./breaker";
import { Semaphore, type SemaphoreSnapshot } from "./semaphore";
import type { ChatRequest, ModelCallFailure } from "./types";

/** Health of a model as one call saw it. */
export type ModelHealthState = "ok" | "degraded" | "circuit_open";

/** A health report: the runtime marks the calling agent DEGRADED on anything but `ok`. */
export interface ModelHealth {
  /** The entry the caller asked for (the primary, not the fallback). */
  model_key: string;
  state: ModelHealthState;
  /** Why the primary failed: its failure reason, or `circuit_open`. Absent for `ok`. */
  reason?: ModelCallFailure | "circuit_open";
  /** The primary's error message, for a notice. Absent for `ok`. */
  message?: string;
  /** The entry that answered instead, when a fallback took over. */
  fallback_key?: string;
  /** The primary's endpoint (no credentials), when it has one. */
  endpoint?: string;
  /** The request's meta: who called (conversation, agent, trace). */
  meta?: ChatRequest["meta"];
  /** ISO time of the report. */
  at: string;
}

/** Receives health reports. */
export type ModelHealthListener = (health: ModelHealth) => void;

/** At most this many callers' last states are kept (callers that never recover must not grow it without end). */
const MAX_HEALTH_SCOPES = 1_000;

export class Resilience {
  readonly #breakers = new Map<string, CircuitBreaker>();
  readonly #semaphores = new Map<string, Semaphore>();
  readonly #listeners = new Set<ModelHealthListener>();
  readonly #lastHealth = new Map<string, ModelHealthState>();
  readonly #breakerOptions: BreakerOptions | undefined;

  /** `breakerOptions`: of every breaker made (default: the environment's, {@link breakerOptionsFromEnv}). */
  constructor(options: { breakerOptions?: BreakerOptions } = {}) {
    this.#breakerOptions = options.breakerOptions;
  }

  /** The breaker of the endpoint at `baseUrl`, made on first use. */
  breakerFor(baseUrl: string, options?: BreakerOptions): CircuitBreaker {
    const key = endpointKey(baseUrl);
    let breaker = this.#breakers.get(key);
    if (!breaker) {
      breaker = new CircuitBreaker(key, options ?? this.#breakerOptions ?? breakerOptionsFromEnv());
      this.#breakers.set(key, breaker);
    }
    return breaker;
  }

  /** The semaphore of model entry `key`, made with `limit` slots, or set to `limit` when the entry's `max_concurrency` changed since. */
  semaphoreFor(key: string, limit: number): Semaphore {
    const existing = this.#semaphores.get(key);
    if (existing) {
      if (existing.limit !== limit) existing.setLimit(limit);
      return existing;
    }
    const created = new Semaphore(limit);
    this.#semaphores.set(key, created);
    return created;
  }

  /** Every endpoint's breaker state and every entry's semaphore state, for a health view. */
  status(): { breakers: BreakerSnapshot[]; semaphores: Record<string, SemaphoreSnapshot> } {
    return {
      breakers: [...this.#breakers.values()].map((b) => b.snapshot()),
      semaphores: Object.fromEntries([...this.#semaphores].map(([key, s]) => [key, s.snapshot()])),
    };
  }

  /** Subscribes to every resilient model's health reports (all conversations: filter on `health.meta.conversation_id`). */
  subscribeHealth(listener: ModelHealthListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Whether a report of `state` for `scope` (a model and caller) is news: a failure always is; an
   * `ok` only after something else was reported for that scope.
   */
  isNews(scope: string, state: ModelHealthState): boolean {
    if (state === "ok") return this.#lastHealth.delete(scope);
    this.#lastHealth.set(scope, state);
    if (this.#lastHealth.size > MAX_HEALTH_SCOPES) this.#lastHealth.delete(this.#lastHealth.keys().next().value!);
    return true;
  }

  /** The listeners now. */
  listeners(): ModelHealthListener[] {
    return [...this.#listeners];
  }
}
