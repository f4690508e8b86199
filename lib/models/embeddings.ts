import "server-only";
/**
 * Embeddings through an OpenAI-compatible `/embeddings` endpoint (OpenAI, Ollama, vLLM, Qwen's
 * compatible mode…) with the official `openai` client, for the `embedding` model key of
 * models.json. Texts go in batches; each text is cut to a bounded length first, so a huge passage
 * can neither make a request unbounded nor exceed the provider's input limit by much. The answer
 * is checked (one finite vector per text, all of one dimension) before anyone stores it. Errors
 * are {@link ModelCallError}s a person can act on, never carrying the API key.
 */
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import { z } from "zod";
import { DUMMY_API_KEY, displayUrl, redactSecrets } from "./client";
import { modelFetch } from "./http-fetch";
import type { ModelEntry } from "./schema";
import { ModelCallError } from "./types";

/** Texts per request. */
const EMBED_BATCH_SIZE = 64;
/** Characters of one text that are sent (about 2,000 tokens); the rest is not embedded. */
export const MAX_EMBED_CHARS = 8_000;
/** Deadline of one request. */
const EMBED_TIMEOUT_MS = 30_000;

/** Turns texts into vectors, one per text, in order. */
export interface Embedder {
  /** The models.json key. */
  readonly key: string;
  embed(texts: readonly string[], signal?: AbortSignal): Promise<number[][]>;
}

/** Options of {@link createEmbedder}. */
export interface EmbedderOptions {
  /** Where API keys are looked up (default `process.env`), read at every call. */
  env?: Record<string, string | undefined>;
  /** The key stored under an entry's `api_key_ref` (lib/models/key-store.ts), read at every call. */
  storedKey?: (ref: string) => string | undefined;
  batchSize?: number;
  timeoutMs?: number;
}

/** What the endpoint must answer: `data[i].embedding` for the i-th input (`index` says which). */
const EmbeddingsAnswerSchema = z.object({
  data: z.array(z.object({ index: z.number().int().min(0), embedding: z.array(z.number().refine(Number.isFinite, "a finite number")) })),
});

/** What is sent for one text: never empty (endpoints refuse ""), at most {@link MAX_EMBED_CHARS}. */
export function embeddingInput(text: string): string {
  const cut = text.length > MAX_EMBED_CHARS ? text.slice(0, MAX_EMBED_CHARS) : text;
  return cut.trim() === "" ? " " : cut;
}

/**
 * Orders and checks one answer for `count` inputs: every index present once, every vector of the
 * same dimension (`dims` when already known from an earlier batch). Throws a plain Error saying
 * what is wrong.
 */
export function vectorsOf(answer: unknown, count: number, dims?: number): number[][] {
  const parsed = EmbeddingsAnswerSchema.safeParse(answer);
  if (!parsed.success) throw new Error(`the answer is not an embeddings list (${parsed.error.issues[0]?.message ?? "invalid"})`);
  const out: Array<number[] | undefined> = new Array(count);
  for (const item of parsed.data.data) {
    if (item.index >= count || out[item.index]) throw new Error(`the answer has an unexpected or repeated index ${item.index}`);
    out[item.index] = item.embedding;
  }
  let width = dims;
  for (let i = 0; i < count; i++) {
    const v = out[i];
    if (!v) throw new Error(`the answer has no vector for input ${i} of ${count}`);
    width ??= v.length;
    if (v.length === 0 || v.length !== width) throw new Error(`the vectors differ in dimension (${v.length} and ${width})`);
  }
  return out as number[][];
}

/** An {@link Embedder} for one OpenAI-compatible registry entry. */
export function createEmbedder(key: string, entry: ModelEntry, opts: EmbedderOptions = {}): Embedder {
  const baseURL = entry.base_url ?? "https://api.openai.com/v1";
  const where = displayUrl(baseURL);
  const batchSize = Math.max(1, opts.batchSize ?? EMBED_BATCH_SIZE);
  const timeout = opts.timeoutMs ?? EMBED_TIMEOUT_MS;
  let cached: { apiKey: string; client: OpenAI } | undefined;

  function apiKey(): string {
    if (entry.api_key_ref) {
      const stored = opts.storedKey?.(entry.api_key_ref);
      if (!stored) throw new ModelCallError("client", `Embedding model "${key}" has no stored API key any more: type it again in Settings → Models.`, { modelKey: key });
      return stored;
    }
    if (!entry.api_key_env) return DUMMY_API_KEY;
    const value = (opts.env ?? process.env)[entry.api_key_env];
    if (!value) {
      throw new ModelCallError("client", `Embedding model "${key}" needs an API key: set the environment variable ${entry.api_key_env} (named by "api_key_env" in models.json).`, { modelKey: key });
    }
    return value;
  }

  function client(secret: string): OpenAI {
    if (cached?.apiKey !== secret) cached = { apiKey: secret, client: new OpenAI({ apiKey: secret, baseURL, maxRetries: 2, timeout, fetch: modelFetch }) };
    return cached.client;
  }

  function failure(error: unknown, secret: string): ModelCallError {
    if (error instanceof ModelCallError) return error;
    if (error instanceof APIUserAbortError) return new ModelCallError("aborted", `The embedding call to model "${key}" was stopped.`, { modelKey: key });
    if (error instanceof APIConnectionTimeoutError) return new ModelCallError("timeout", `${where} (embedding model "${key}") did not answer within ${timeout} ms.`, { modelKey: key });
    if (error instanceof APIConnectionError) {
      return new ModelCallError("network", `Could not reach ${where} for embedding model "${key}". Check "base_url" of "${key}" in models.json and that the server is running.`, { modelKey: key });
    }
    if (error instanceof APIError) {
      const said = redactSecrets(String((error.error as { message?: unknown } | undefined)?.message ?? error.message), [secret]).slice(0, 300);
      return new ModelCallError(error.status === 429 ? "rate_limited" : error.status && error.status >= 500 ? "server" : "client", `${where} refused the embedding call for model "${key}" (HTTP ${error.status}): ${said}`, {
        modelKey: key,
        httpStatus: error.status,
      });
    }
    const message = redactSecrets(error instanceof Error ? error.message : String(error), [secret]);
    return new ModelCallError("bad_response", `${where} (embedding model "${key}") answered something unusable: ${message}`, { modelKey: key });
  }

  return {
    key,
    async embed(texts, signal) {
      if (texts.length === 0) return [];
      const secret = apiKey();
      const vectors: number[][] = [];
      let dims: number | undefined;
      for (let at = 0; at < texts.length; at += batchSize) {
        const batch = texts.slice(at, at + batchSize).map(embeddingInput);
        try {
          const answer = await client(secret).embeddings.create({ model: entry.model, input: batch, encoding_format: "float" }, { signal });
          const got = vectorsOf(answer, batch.length, dims);
          dims = got[0]!.length;
          vectors.push(...got);
        } catch (error) {
          throw failure(error, secret);
        }
      }
      return vectors;
    },
  };
}
