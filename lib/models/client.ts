import "server-only";
/**
 * The OpenAI-compatible model: one streamed chat-completions call through the official `openai`
 * client, with our own retries (the SDK's are off), a first-response deadline, an idle watchdog
 * (the SDK's `timeout` stops counting once headers arrive, so a stream that goes quiet would hang
 * forever without it), and errors a person can act on. API keys are read from the environment at
 * call time and never appear in an error message.
 */
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import type { ChatCompletionCreateParamsStreaming } from "openai/resources/chat/completions";
import { modelFetch } from "./http-fetch";
import { GENERIC_DEFAULT, quirksOf, resolveWithoutServer, type ProviderQuirks, type ResolvedProvider } from "./providers";
import { buildRequestBody } from "./request";
import { OversizeEvent } from "./sse-frames";
import { MAX_ANSWER_CHARS, OversizeAnswer, StreamAccumulator } from "./stream";
import type { ModelEntry } from "./schema";
import { resolveApiKey } from "./api-key";
import {
  ModelCallError,
  type ChatDelta,
  type ChatModel,
  type ChatRequest,
  type ChatResult,
} from "./types";

/** Default first-response deadline and idle watchdog, in milliseconds. */
const DEFAULT_MODEL_TIMEOUT_MS = 60_000;
/** Default number of retries after the first attempt. */
const DEFAULT_MAX_RETRIES = 3;
/** A `Retry-After` longer than this is not waited for: the call fails as rate limited. */
const MAX_RETRY_AFTER_MS = 60_000;
/** Key sent to endpoints that need none (Ollama, local vLLM): the SDK refuses an empty key. */
export const DUMMY_API_KEY = "not-needed";
const DEFAULT_BASE_URL = "https://api.openai.com/v1";
const MAX_BACKOFF_MS = 30_000;

/** Options of {@link createOpenAIModel}; the entry's own `timeouts` take precedence. */
export interface OpenAIModelOptions {
  /** Where API keys are looked up (default `process.env`), read at every call. */
  env?: Record<string, string | undefined>;
  /** The key stored under an entry's `api_key_ref` (lib/models/key-store.ts), read at every call. */
  storedKey?: (ref: string) => string | undefined;
  /** Cut a stream that sends nothing for this long once it has started (default 60 s). */
  idleTimeoutMs?: number;
  /** Give up when nothing has arrived this long after sending the request (default 60 s). */
  firstResponseTimeoutMs?: number;
  /** Retries of 429, 5xx, network errors and timeouts before anything streamed (default 3). */
  maxRetries?: number;
  /** Base of the exponential backoff when the endpoint gives no `Retry-After` (default 500 ms). */
  retryBaseMs?: number;
  /** Waits between retries; must reject or resolve promptly when `signal` aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Source of jitter in [0, 1) (default `Math.random`). */
  random?: () => number;
  /**
   * The entry's provider profile, asked at every call (the model registry's guesser, which may ask
   * the server once). Default: what the entry names or its base URL shows, else `generic`.
   */
  provider?: (entry: ModelEntry) => ResolvedProvider | Promise<ResolvedProvider>;
}

/**
 * How long to wait before retry number `attempt` (0-based): the endpoint's `retry-after-ms` or
 * `Retry-After` (seconds or an HTTP date) plus up to 10% jitter, otherwise exponential backoff
 * from `baseMs` with ±25% jitter. Null when the endpoint asks for more than `maxRetryAfterMs`.
 */
export function retryDelayMs(
  headers: { get(name: string): string | null } | undefined,
  attempt: number,
  baseMs: number,
  random: () => number = Math.random,
  maxRetryAfterMs: number = MAX_RETRY_AFTER_MS,
): number | null {
  const asked = retryAfterMs(headers);
  if (asked !== undefined) {
    if (asked > maxRetryAfterMs) return null;
    return Math.ceil(asked * (1 + 0.1 * random()));
  }
  const backoff = Math.min(baseMs * 2 ** attempt, MAX_BACKOFF_MS);
  return Math.round(backoff * (0.75 + 0.5 * random()));
}

/** The wait an endpoint asks for in `retry-after-ms` or `Retry-After`, in ms; undefined if none. */
export function retryAfterMs(headers: { get(name: string): string | null } | undefined, now: number = Date.now()): number | undefined {
  const ms = headers?.get("retry-after-ms");
  if (ms && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers?.get("retry-after")?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** A URL fit for an error message: no user info, query or fragment. */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = "";
    u.password = "";
    u.search = "";
    u.hash = "";
    return u.toString().replace(/\/$/, "");
  } catch {
    return "(invalid base_url)";
  }
}

/** Removes anything that looks like a credential from text an endpoint sent back. */
export function redactSecrets(text: string, secrets: ReadonlyArray<string | undefined> = []): string {
  let out = text;
  for (const secret of secrets) {
    if (secret && secret.length >= 4 && secret !== DUMMY_API_KEY) out = out.split(secret).join("[redacted]");
  }
  // A scheme starts only where no scheme character precedes it, and the query part is optional,
  // so each URL is scanned once (`\b` let every "a." of "a.a.a.…" start a scan to the end: an
  // error body of 40,000 such characters took seconds).
  return out
    .replace(/(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*:\/\/)[^\s/@]+@/gi, "$1")
    .replace(/(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*:\/\/[^\s?#]*)(?:[?#][^\s)]*)?/gi, "$1")
    .replace(/\b(sk|pk|key|api|tok)[-_][A-Za-z0-9_*.\-]{6,}/gi, "[redacted]").replace(/Bearer\s+\S+/gi, "Bearer [redacted]");
}

/** Resolves with no value after `ms`, or rejects as soon as `signal` aborts. */
function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new Error("aborted"));
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Error("aborted"));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Thrown through the stream loop when the caller's `onDelta` throws, to rethrow it unchanged. */
class CallbackFailure {
  constructor(readonly error: unknown) {}
}

/** Why our own controller aborted a request. */
type AbortCause = "caller" | "timeout" | "stalled";

/** The stream ended without a finish_reason: the connection closed before the answer was complete. */
class TruncatedStream {}

class Aborted {
  constructor(readonly cause: AbortCause) {}
}

/**
 * A {@link ChatModel} for one OpenAI-compatible registry entry (OpenAI, Qwen compatible mode,
 * DeepSeek, Ollama, vLLM…). Every call streams; see the module comment for retries and timeouts.
 */
export function createOpenAIModel(key: string, entry: ModelEntry, opts: OpenAIModelOptions = {}): ChatModel {
  const baseURL = entry.base_url ?? DEFAULT_BASE_URL;
  const where = displayUrl(baseURL);
  const idleMs = entry.timeouts?.idle_ms ?? opts.idleTimeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS;
  const firstMs = entry.timeouts?.first_response_ms ?? opts.firstResponseTimeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS;
  const maxRetries = Math.max(0, opts.maxRetries ?? DEFAULT_MAX_RETRIES);
  const retryBaseMs = opts.retryBaseMs ?? 500;
  const sleep = opts.sleep ?? abortableSleep;
  const random = opts.random ?? Math.random;
  const provider = opts.provider ?? ((e: ModelEntry) => resolveWithoutServer(e) ?? GENERIC_DEFAULT);
  let cached: { apiKey: string; client: OpenAI } | undefined;

  function apiKey(): string {
    const resolved = resolveApiKey(entry, opts.env ?? process.env, opts.storedKey);
    switch (resolved.state) {
      case "none_needed":
        return DUMMY_API_KEY;
      case "set":
      case "stored":
        return resolved.value;
      case "stored_missing":
        throw new ModelCallError("client", `Model "${key}" has no stored API key any more: type it again in Settings → Models.`, { modelKey: key });
      case "missing":
        throw new ModelCallError(
          "client",
          `Model "${key}" needs an API key: set the environment variable ${resolved.env} (named by "api_key_env" in models.json) and restart Astrion Team.`,
          { modelKey: key },
        );
    }
  }

  function client(secret: string): OpenAI {
    if (cached?.apiKey !== secret) {
      cached = { apiKey: secret, client: new OpenAI({ apiKey: secret, baseURL, maxRetries: 0, timeout: firstMs + 1_000, fetch: modelFetch }) };
    }
    return cached.client;
  }

  function providerMessage(error: APIError, secret: string): string {
    const body = error.error as { message?: unknown } | undefined;
    const raw = typeof body?.message === "string" ? body.message : error.message;
    const text = redactSecrets(raw, [secret]).trim();
    return text.length > 300 ? `${text.slice(0, 300)}…` : text;
  }

  /** Turns anything a failed attempt threw into a ModelCallError. */
  function classify(error: unknown, acc: StreamAccumulator, attempts: number, secret: string, quirks: ProviderQuirks): ModelCallError {
    const partial = acc.hasOutput ? acc.result() : undefined;
    const base = { modelKey: key, partial };
    const tries = attempts > 1 ? ` after ${attempts} attempts` : "";
    if (error instanceof Aborted) {
      if (error.cause === "caller") return new ModelCallError("aborted", `The call to model "${key}" was stopped.`, base);
      if (error.cause === "stalled") {
        return new ModelCallError(
          "stalled",
          `The stream from ${where} (model "${key}") stalled: nothing arrived for ${idleMs} ms. If the model pauses longer than that, raise "timeouts.idle_ms" for "${key}" in models.json.`,
          base,
        );
      }
      return new ModelCallError(
        "timeout",
        `${where} (model "${key}") did not answer within ${firstMs} ms${tries}. If the model is slow to start, raise "timeouts.first_response_ms" for "${key}" in models.json.`,
        base,
      );
    }
    if (error instanceof APIUserAbortError) return new ModelCallError("aborted", `The call to model "${key}" was stopped.`, base);
    if (error instanceof APIConnectionTimeoutError) {
      return new ModelCallError("timeout", `${where} (model "${key}") did not answer within ${firstMs} ms${tries}.`, base);
    }
    if (error instanceof APIConnectionError) {
      const detail = connectionDetail(error.cause ?? error);
      return new ModelCallError(
        "network",
        `Could not reach ${where} for model "${key}"${detail ? ` (${detail})` : ""}${tries}. Check "base_url" of "${key}" in models.json and that the server is running.`,
        base,
      );
    }
    if (error instanceof APIError) {
      const status = error.status;
      const said = providerMessage(error, secret);
      const opts = { ...base, httpStatus: status };
      // A refusal that names a server flag is the server's configuration, not a passing failure: never retried.
      const flag = quirks.serverFlag(status, said);
      if (flag) {
        return new ModelCallError(
          "client",
          `${flag.server} at ${where} refused the request for model "${key}"${status === undefined ? "" : ` (HTTP ${status}: ${said})`}. Start the server with ${flag.flag} and try again.`,
          { ...opts, retryable: false, serverFlag: flag },
        );
      }
      if (status === undefined) {
        return new ModelCallError("server", `${where} reported an error in the stream of model "${key}": ${said}`, opts);
      }
      if (status === 401) {
        const fix = entry.api_key_env
          ? `the API key in $${entry.api_key_env} was refused by ${where}. Put a valid key for this endpoint in ${entry.api_key_env}.`
          : `${where} requires an API key. Set "api_key_env" of "${key}" in models.json to the name of the environment variable that holds it.`;
        return new ModelCallError("client", `Model "${key}": ${fix} (HTTP 401: ${said})`, opts);
      }
      if (status === 403) {
        return new ModelCallError(
          "client",
          `Model "${key}": ${where} denied access to "${entry.model}" (HTTP 403: ${said}). Check that the key${entry.api_key_env ? ` in $${entry.api_key_env}` : ""} may use this model.`,
          opts,
        );
      }
      if (status === 404) {
        return new ModelCallError(
          "client",
          `Model "${key}": ${where} does not serve "${entry.model}" (HTTP 404: ${said}). Check "model" and "base_url" of "${key}" in models.json.`,
          opts,
        );
      }
      if (status === 429) {
        return new ModelCallError("rate_limited", `${where} is rate limiting model "${key}"${tries} (HTTP 429: ${said}).`, opts);
      }
      if (status >= 500) return new ModelCallError("server", `${where} failed for model "${key}"${tries} (HTTP ${status}: ${said}).`, opts);
      return new ModelCallError("client", `${where} rejected the request for model "${key}" (HTTP ${status}: ${said}).`, opts);
    }
    if (error instanceof OversizeAnswer) {
      return new ModelCallError("bad_response", `${where} (model "${key}") sent an answer longer than ${MAX_ANSWER_CHARS} characters; it was cut off.`, base);
    }
    if (error instanceof OversizeEvent) {
      return new ModelCallError("bad_response", `${where} (model "${key}") sent one stream event longer than ${error.limit} bytes; the answer was cut off.`, base);
    }
    if (error instanceof TruncatedStream) {
      return new ModelCallError(
        "network",
        `The stream from ${where} (model "${key}") ended before the answer was complete (no finish_reason)${tries}.`,
        base,
      );
    }
    if (error instanceof SyntaxError) {
      return new ModelCallError("bad_response", `${where} (model "${key}") sent a stream that is not OpenAI-compatible: ${redactSecrets(error.message, [secret])}.`, base);
    }
    const detail = connectionDetail(error);
    return new ModelCallError(
      "network",
      `The connection to ${where} (model "${key}") failed${acc.emitted ? " in the middle of the stream" : ""}${detail ? ` (${detail})` : ""}${tries}.`,
      base,
    );
  }

  async function attempt(req: ChatRequest, body: ChatCompletionCreateParamsStreaming, acc: StreamAccumulator, secret: string, emit: (d: ChatDelta) => void): Promise<ChatResult> {
    const controller = new AbortController();
    let cause: AbortCause | undefined;
    const abort = (why: AbortCause) => {
      if (cause) return;
      cause = why;
      controller.abort();
    };
    const onCallerAbort = () => abort("caller");
    // Racing the request against this makes an abort prompt even if the SDK is slow to notice.
    // The chunks are not raced one by one: an abort ends the body the SDK reads from (our
    // transport destroys it, as Node's fetch does), so a pending read settles at once; a race
    // and a new timer per chunk were about a tenth of the client's own work on a fast stream.
    const aborted = new Promise<never>((_, reject) => {
      controller.signal.addEventListener("abort", () => reject(new Aborted(cause ?? "caller")), { once: true });
    });
    aborted.catch(() => undefined);
    if (req.signal?.aborted) throw new Aborted("caller");
    req.signal?.addEventListener("abort", onCallerAbort, { once: true });
    let timer = setTimeout(() => abort("timeout"), firstMs);
    let finished = false;
    try {
      const stream = await Promise.race([
        client(secret).chat.completions.create(body, { signal: controller.signal, timeout: firstMs + 1_000, maxRetries: 0 }),
        aborted,
      ]);
      const iterator = stream[Symbol.asyncIterator]();
      let idle = false;
      for (;;) {
        const next = await iterator.next();
        if (next.done) break;
        if (idle) timer.refresh();
        else {
          // From the first chunk on, the idle timeout applies.
          clearTimeout(timer);
          timer = setTimeout(() => abort("stalled"), idleMs);
          idle = true;
        }
        acc.add(next.value, emit);
      }
      // The SDK ends iteration quietly when its signal aborts.
      if (cause) throw new Aborted(cause);
      // A connection closed early can look like a clean end; a complete answer always has a finish_reason.
      if (!acc.finished) throw new TruncatedStream();
      acc.end(emit);
      finished = true;
      return acc.result();
    } catch (error) {
      if (error instanceof CallbackFailure) throw error;
      throw cause ? new Aborted(cause) : error;
    } finally {
      clearTimeout(timer);
      req.signal?.removeEventListener("abort", onCallerAbort);
      if (!finished && !controller.signal.aborted) controller.abort();
    }
  }

  return {
    key,
    label: entry.label ?? key,
    offline: false,
    async stream(req: ChatRequest, onDelta?: (d: ChatDelta) => void): Promise<ChatResult> {
      const secret = apiKey();
      const quirks = quirksOf((await provider(entry)).profile);
      const body = buildRequestBody(entry, req, quirks);
      const recoverToolsNamed = quirks.recoversTextToolCalls && req.tools?.length ? new Set(req.tools.map((t) => t.function.name)) : undefined;
      const emit = (d: ChatDelta) => {
        if (!onDelta) return;
        try {
          onDelta(d);
        } catch (error) {
          throw new CallbackFailure(error);
        }
      };
      for (let retry = 0; ; retry++) {
        const acc = new StreamAccumulator(entry.model, { recoverToolsNamed });
        try {
          return await attempt(req, body, acc, secret, emit);
        } catch (error) {
          if (error instanceof CallbackFailure) throw error.error;
          const failure = classify(error, acc, retry + 1, secret, quirks);
          if (!failure.retryable || failure.reason === "aborted" || acc.emitted || retry >= maxRetries) throw failure;
          const headers = error instanceof APIError ? error.headers : undefined;
          const delay = retryDelayMs(headers, retry, retryBaseMs, random);
          if (delay === null) {
            throw new ModelCallError(
              "rate_limited",
              `${failure.message} The endpoint asked to wait ${Math.round((retryAfterMs(headers) ?? 0) / 1000)} s, longer than Astrion Team waits.`,
              { modelKey: key, httpStatus: failure.httpStatus },
            );
          }
          try {
            await sleepUnlessAborted(sleep, delay, req.signal);
          } catch {
            throw new ModelCallError("aborted", `The call to model "${key}" was stopped.`, { modelKey: key });
          }
        }
      }
    },
  };
}

/** Runs `sleep`, but rejects the moment `signal` aborts even if `sleep` ignores it. */
async function sleepUnlessAborted(sleep: (ms: number, signal?: AbortSignal) => Promise<void>, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) throw new Error("aborted");
  let onAbort: (() => void) | undefined;
  try {
    await Promise.race([
      sleep(ms, signal),
      new Promise<never>((_, reject) => {
        onAbort = () => reject(new Error("aborted"));
        signal?.addEventListener("abort", onAbort, { once: true });
      }),
    ]);
  } finally {
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  }
  if (signal?.aborted) throw new Error("aborted");
}

/** A short, secret-free description of a connection failure (`ECONNREFUSED`, `terminated`…). */
function connectionDetail(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && !parts.includes(code)) parts.push(code);
    const message = (e as { message?: unknown }).message;
    if (typeof message === "string" && message && !parts.includes(message) && parts.length < 2) parts.push(message);
  }
  return redactSecrets(parts.join(", ")).slice(0, 200);
}
