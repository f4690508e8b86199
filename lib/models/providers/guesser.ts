import "server-only";
/**
 * Resolving an entry's profile with the server's help: what the entry names or its base URL
 * shows decides at once; otherwise the server's `GET /v1/models` is asked once per base URL (its
 * models' `owned_by` names vLLM, llama.cpp, Ollama or LM Studio), then a default port decides,
 * then `generic`. Answers are kept per base URL for the process (a failed question for a minute,
 * so a server started later is asked again), so a model call pays a map lookup. One per model
 * registry (no process-wide state).
 */
import { resolveApiKey } from "../api-key";
import { plainFetch } from "../http-fetch";
import type { ModelEntry } from "../schema";
import { GENERIC_DEFAULT, guessFromLikelyPort, guessFromModelList, resolveWithoutServer } from "./guess";
import type { ResolvedProvider } from "./types";

/** How long the server is given to answer `/v1/models`. */
const PROBE_TIMEOUT_MS = 1_500;
/** How long an unanswered question is remembered before it is asked again. */
const RETRY_AFTER_MS = 60_000;

/** Options of {@link ProviderGuesser}. */
export interface ProviderGuesserOptions {
  /** Where API keys are read (default `process.env`): `/v1/models` may need the entry's key. */
  env?: Record<string, string | undefined>;
  /** A key typed in Settings → Models, by its `api_key_ref` (the key store). */
  storedKey?: (ref: string) => string | undefined;
  now?: () => number;
}

/** Resolves entries' profiles, asking each unknown server once. */
export class ProviderGuesser {
  readonly #asked = new Map<string, { at: number; answered: boolean; guess: Promise<ResolvedProvider> }>();
  readonly #env: Record<string, string | undefined>;
  readonly #storedKey: ((ref: string) => string | undefined) | undefined;
  readonly #now: () => number;

  constructor(options: ProviderGuesserOptions = {}) {
    this.#env = options.env ?? process.env;
    this.#storedKey = options.storedKey;
    this.#now = options.now ?? Date.now;
  }

  /** The entry's profile and why; never rejects (a server that does not answer leaves a weaker guess). */
  resolve(entry: ModelEntry): Promise<ResolvedProvider> {
    const known = resolveWithoutServer(entry);
    if (known) return Promise.resolve(known);
    const base = entry.base_url ?? "";
    const cached = this.#asked.get(base);
    if (cached && (cached.answered || this.#now() - cached.at < RETRY_AFTER_MS)) return cached.guess;
    const record = { at: this.#now(), answered: false, guess: Promise.resolve(GENERIC_DEFAULT) };
    record.guess = this.#ask(entry).then(({ guess, answered }) => {
      record.answered = answered;
      return guess;
    });
    this.#asked.set(base, record);
    return record.guess;
  }

  async #ask(entry: ModelEntry): Promise<{ guess: ResolvedProvider; answered: boolean }> {
    const weaker = guessFromLikelyPort(entry.base_url) ?? GENERIC_DEFAULT;
    // The entry's key as the model client sends it (typed in Settings, else its variable).
    const resolved = resolveApiKey(entry, this.#env, this.#storedKey);
    const key = resolved.state === "set" || resolved.state === "stored" ? resolved.value : undefined;
    try {
      const res = await plainFetch()(`${(entry.base_url ?? "").replace(/\/+$/, "")}/models`, {
        headers: key ? { authorization: `Bearer ${key}` } : {},
        signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
      });
      if (!res.ok) return { guess: weaker, answered: true };
      return { guess: guessFromModelList(await res.json()) ?? weaker, answered: true };
    } catch {
      return { guess: weaker, answered: false };
    }
  }
}
