/**
 * What sits between the runtime and a model endpoint when the endpoint is slow or down (seed 003
 * §3.4, §6.1, §6.2; issue 4 "Timeouts, retries, idempotency, degradation"):
 *
 * - deadline tiers for the first response (fast 2 s, normal 5 s, heavy 15 s, per model entry) —
 *   the OpenAI-compatible client enforces the deadline and retries with backoff; {@link tierDeadline}
 *   decides its value;
 * - the entry's `max_concurrency`, process-wide, through a FIFO semaphore;
 * - a circuit breaker per endpoint that fails calls fast while the endpoint is down;
 * - the entry's `fallback` model taking over a call whose primary failed after its retries, and a
 *   health report (`ok` / `degraded` / `circuit_open`) the runtime turns into an agent's DEGRADED mark.
 *
 * Pure: no I/O. The bare models come from the caller, so this module never imports the `openai`
 * client and is unit-tested with scripted models.
 */
import { ownValue } from "@/lib/own";
import type { BreakerOutcome, CircuitBreaker } from "./breaker";
import type { ModelEntry, ModelsFile } from "./schema";
import { SemaphoreAbortedError, type Semaphore } from "./semaphore";
import type { ModelHealth, ModelHealthListener, Resilience } from "./resilience-state";
import { ModelCallError, type AnsweredBy, type ChatDelta, type ChatModel, type ChatRequest, type ChatResult, type ModelCallFailure } from "./types";

/** Deadline tier of a model entry's first response. */
export type DeadlineTier = "fast" | "normal" | "heavy";

/** First-response deadline of each tier, in ms (seed 003 §3.4: 2 s local/fast, 5 s normal, 15 s heavy). */
export const TIER_DEADLINES_MS: Readonly<Record<DeadlineTier, number>> = { fast: 2_000, normal: 5_000, heavy: 15_000 };

/** The entry's tier: its `tier`, else `fast` for the built-in offline model and `normal` for the rest. */
export function tierOf(entry: Pick<ModelEntry, "tier" | "provider">): DeadlineTier {
  return entry.tier ?? (entry.provider === "offline" ? "fast" : "normal");
}

/**
 * The first-response deadline of an entry in ms: `timeouts.first_response_ms` when set, else its
 * tier's. Pass it to `createOpenAIModel(key, entry, { firstResponseTimeoutMs: tierDeadline(entry) })`.
 */
export function tierDeadline(entry: Pick<ModelEntry, "tier" | "provider" | "timeouts">): number {
  return entry.timeouts?.first_response_ms ?? TIER_DEADLINES_MS[tierOf(entry)];
}

/** Failures that say the endpoint is unwell (as opposed to the request, the key or the caller). */
const ENDPOINT_FAILURES: ReadonlySet<ModelCallFailure> = new Set(["timeout", "stalled", "server", "network", "rate_limited"]);

/**
 * What a finished call says about its endpoint, for the circuit breaker: endpoint failures count
 * against it; an answer with an HTTP status (even a 4xx) proves it is up; an abort, a missing key or
 * anything that is not a {@link ModelCallError} (a throwing `onDelta`) says nothing.
 */
export function endpointOutcome(error: unknown): BreakerOutcome {
  if (!(error instanceof ModelCallError)) return "neutral";
  if (error instanceof CircuitOpenError) return "neutral";
  if (ENDPOINT_FAILURES.has(error.reason)) return "failure";
  if (error.httpStatus !== undefined) return "success";
  return "neutral";
}

/**
 * A call refused without reaching the endpoint because its circuit is open (or a half-open probe is
 * in flight). Reason `server` and retryable, so callers treat it like the endpoint being down.
 */
export class CircuitOpenError extends ModelCallError {
  static override readonly kind = "CircuitOpenError";
  /** Always true: tells this apart from other `server` failures without `instanceof`. */
  readonly circuitOpen = true;
  readonly endpoint: string;
  /** Milliseconds until the breaker lets a probe through. */
  readonly retryInMs: number;

  constructor(modelKey: string, endpoint: string, retryInMs: number) {
    super(
      "server",
      `circuit_open: ${endpoint} (model "${modelKey}") failed repeatedly, so calls to it are paused; it is tried again in ${Math.max(1, Math.ceil(retryInMs / 1000))} s.`,
      { modelKey, retryable: true },
    );
    this.endpoint = endpoint;
    this.retryInMs = retryInMs;
  }
}

export type { ModelHealth, ModelHealthListener } from "./resilience-state";

/** Options of {@link createResilientModel}. */
export interface ResilientModelOptions {
  /** Builds the entry's fallback model when the primary fails; null when there is none. Called at most once per call. */
  fallback?: () => Promise<ChatModel | null>;
  /** Receives this model's health reports (they also go to the listeners of the {@link Resilience} it is given). */
  onHealth?: ModelHealthListener;
  /** The endpoint's breaker; default the resilience state's one of `entry.base_url`; null for none (offline entries have none). */
  breaker?: CircuitBreaker | null;
  /** The concurrency limit; default the resilience state's semaphore of `key` sized `entry.max_concurrency`. */
  semaphore?: Semaphore;
}

const DEFAULT_BASE_URL = "https://api.openai.com/v1";

/**
 * Wraps a bare model with the entry's concurrency limit, its endpoint's circuit breaker and its
 * fallback. The result keeps the {@link ChatModel} contract: it resolves with a result or rejects
 * with a {@link ModelCallError} ({@link CircuitOpenError} when failing fast), and it never calls
 * the fallback once anything was streamed to `onDelta` — the partial would be shown twice. Every
 * result names the entry that answered and its prices (`answered_by`), for the call's cost.
 *
 * A call waits (FIFO) for a slot of `max_concurrency`; a caller that aborts while waiting gets
 * `aborted` and leaves the queue. While the circuit is open the call does not queue at all.
 */
export function createResilientModel(resilience: Resilience, key: string, entry: ModelEntry, primary: ChatModel, opts: ResilientModelOptions = {}): ChatModel {
  const breaker = opts.breaker !== undefined ? opts.breaker : entry.provider === "offline" ? null : resilience.breakerFor(entry.base_url ?? DEFAULT_BASE_URL);
  const semaphore = () => opts.semaphore ?? resilience.semaphoreFor(key, entry.max_concurrency);
  // Who answers is stamped on the result with the prices of this call, so its cost is the one
  // charged then; the offline model is never priced.
  const answeredBy: AnsweredBy = { key, prices: entry.provider === "offline" ? null : (entry.prices ?? null) };

  function report(health: Omit<ModelHealth, "at" | "model_key" | "endpoint">): void {
    const scope = `${key}\u0000${health.meta?.conversation_id ?? ""}\u0000${health.meta?.agent_id ?? ""}`;
    if (!resilience.isNews(scope, health.state)) return;
    const full: ModelHealth = { model_key: key, ...(breaker ? { endpoint: breaker.endpoint } : {}), ...health, at: new Date().toISOString() };
    for (const listener of [opts.onHealth, ...resilience.listeners()]) {
      try {
        listener?.(full);
      } catch {
        // A listener's failure must not turn a model answer into an error.
      }
    }
  }

  function circuitError(): CircuitOpenError {
    return new CircuitOpenError(key, breaker?.endpoint ?? key, breaker?.retryInMs() ?? 0);
  }

  /** One call of the primary under the semaphore and breaker; rejects with what it failed with. */
  async function callPrimary(req: ChatRequest, onDelta?: (d: ChatDelta) => void): Promise<ChatResult> {
    // Failing fast before queueing: waiting for a slot only to be refused would be pointless.
    if (breaker && breaker.state === "open") throw circuitError();
    let release: () => void;
    try {
      release = await semaphore().acquire(req.signal);
    } catch (error) {
      if (error instanceof SemaphoreAbortedError) throw new ModelCallError("aborted", `The call to model "${key}" was stopped.`, { modelKey: key });
      throw error;
    }
    try {
      const ticket = breaker ? breaker.tryAcquire() : null;
      if (breaker && !ticket) throw circuitError();
      try {
        const result = await primary.stream(req, onDelta);
        ticket?.done("success");
        return { ...result, answered_by: answeredBy };
      } catch (error) {
        ticket?.done(endpointOutcome(error), error instanceof Error ? error.message : String(error));
        throw error;
      }
    } finally {
      release();
    }
  }

  return {
    key: primary.key,
    label: primary.label,
    offline: primary.offline,
    async stream(req: ChatRequest, onDelta?: (d: ChatDelta) => void): Promise<ChatResult> {
      let emitted = false;
      const tracked = onDelta
        ? (d: ChatDelta) => {
            emitted = true;
            onDelta(d);
          }
        : undefined;
      let failure: ModelCallError;
      try {
        const result = await callPrimary(req, tracked);
        report({ state: "ok", meta: req.meta });
        return result;
      } catch (error) {
        // A throwing onDelta is the caller's own error: hand it back untouched, as the client does.
        if (!(error instanceof ModelCallError)) throw error;
        failure = error;
      }
      const circuit = failure instanceof CircuitOpenError;
      const endpointDown = circuit || (failure.retryable && ENDPOINT_FAILURES.has(failure.reason));
      if (!endpointDown || emitted || req.signal?.aborted) throw failure;

      const reason = circuit ? ("circuit_open" as const) : failure.reason;
      let fallback: ChatModel | null = null;
      if (opts.fallback && entry.fallback && entry.fallback !== key) {
        try {
          fallback = await opts.fallback();
        } catch {
          fallback = null;
        }
      }
      if (!fallback) {
        report({ state: circuit || breaker?.state === "open" ? "circuit_open" : "degraded", reason, message: failure.message, meta: req.meta });
        throw failure;
      }
      report({ state: "degraded", reason, message: failure.message, fallback_key: fallback.key, meta: req.meta });
      try {
        const answer = await fallback.stream(req, onDelta);
        // A fallback made by wrapWithResilience stamps itself; a bare one is named, unpriced.
        return answer.answered_by ? answer : { ...answer, answered_by: { key: fallback.key, prices: null } };
      } catch (error) {
        if (!(error instanceof ModelCallError)) throw error;
        throw new ModelCallError(error.reason, `${failure.message} Its fallback "${fallback.key}" failed too: ${error.message}`, {
          modelKey: key,
          httpStatus: error.httpStatus,
          retryable: error.retryable,
          partial: error.partial,
          cause: error,
        });
      }
    },
  };
}

/** Builds a bare model (no limits, no breaker) for a registry entry. */
export type BareModelFactory = (key: string, entry: ModelEntry) => ChatModel;

/**
 * The resilient model for registry entry `key`: `makeModel(key, entry)` wrapped by
 * {@link createResilientModel}, with the entry's `fallback` (when it names another registered
 * entry) built the same way on first need. The fallback has its own limit and breaker but no
 * fallback of its own, so a chain of fallbacks can never loop.
 *
 * ```ts
 * wrapWithResilience(resilience, key, entry, registry, (k, e) =>
 *   e.provider === "offline" ? createOfflineModel(k) : createOpenAIModel(k, e, { firstResponseTimeoutMs: tierDeadline(e) }));
 * ```
 */
export function wrapWithResilience(
  resilience: Resilience,
  key: string,
  entry: ModelEntry,
  registry: ModelsFile,
  makeModel: BareModelFactory,
  opts: Pick<ResilientModelOptions, "onHealth"> = {},
): ChatModel {
  const fallbackKey = entry.fallback;
  const fallbackEntry = fallbackKey && fallbackKey !== key ? ownValue(registry.models, fallbackKey) : undefined;
  let fallbackModel: ChatModel | undefined;
  return createResilientModel(resilience, key, entry, makeModel(key, entry), {
    onHealth: opts.onHealth,
    fallback:
      fallbackKey && fallbackEntry
        ? async () => (fallbackModel ??= createResilientModel(resilience, fallbackKey, fallbackEntry, makeModel(fallbackKey, fallbackEntry), { onHealth: opts.onHealth }))
        : undefined,
  });
}
