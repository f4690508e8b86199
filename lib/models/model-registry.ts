import "server-only";
/**
 * Model keys → callable models, through the registry file (models.json + environment). Entries
 * of the built-in `offline` provider are made by the factory the creator hands in (the composition
 * root gives the offline model, lib/offline-model: the model client does not import it); every
 * other entry is the OpenAI-compatible client with the first-response deadline of its tier. Every
 * model is wrapped with the resilience layer (per-model concurrency across conversations, a
 * circuit breaker per endpoint, the entry's fallback when it keeps failing). Instances are cached
 * per key, entry and fallback, so an edit of models.json takes effect on the next call without a
 * restart. Each entry's provider profile is resolved by the registry's guesser (named, or guessed
 * from the base URL or the server's `/v1/models`, asked once per server). One per process, built
 * by the composition root.
 */
import { createEmbedder, type Embedder } from "./embeddings";
import { createOpenAIModel } from "./client";
import type { ModelKeyStore } from "./key-store";
import { ProviderGuesser } from "./providers/guesser";
import type { ResolvedProvider } from "./providers";
import { loadRegistry, lookupModel, resolveModel } from "./registry";
import { auxModelKey, type ModelsFile } from "./schema";
import { tierDeadline, wrapWithResilience, type ModelHealthListener } from "./resilience";
import { Resilience } from "./resilience-state";
import type { ChatModel } from "./types";

/** Makes the model of an entry of the `offline` provider. */
export type OfflineModelFactory = (key: string) => ChatModel;

export class ModelRegistry {
  readonly #offline: OfflineModelFactory;
  readonly #models = new Map<string, ChatModel>();
  readonly #embedders = new Map<string, Embedder>();
  readonly #keys: ModelKeyStore | null;
  readonly #providers = new ProviderGuesser({ storedKey: (ref) => this.#keys?.peek(ref) });
  /** The breakers, semaphores and health listeners of every model made here. */
  readonly resilience: Resilience;

  constructor(options: { offline: OfflineModelFactory; resilience?: Resilience; keys?: ModelKeyStore }) {
    this.#offline = options.offline;
    this.#keys = options.keys ?? null;
    this.resilience = options.resilience ?? new Resilience();
  }

  /** The key stored under a ref, as the key store last read it (refreshed before each model is handed out). */
  readonly #storedKey = (ref: string): string | undefined => this.#keys?.peek(ref);

  /** Subscribes to every model's health reports (all conversations). Returns the unsubscribe function. */
  subscribeHealth(listener: ModelHealthListener): () => void {
    return this.resilience.subscribeHealth(listener);
  }

  /** The model for `key`; throws a NotFoundError naming the known keys when it is not registered. */
  async modelFor(root: string, key: string): Promise<ChatModel> {
    const registry = await loadRegistry(root);
    const entry = resolveModel(registry, key);
    const fallback = entry.fallback ? (lookupModel(registry, entry.fallback) ?? null) : null;
    // Only an entry with a stored key looks at the key store (one stat when nothing changed).
    if (entry.api_key_ref || fallback?.api_key_ref) await this.#keys?.refresh();
    const storedKey = this.#storedKey;
    const id = `${key}\u0000${JSON.stringify(entry)}\u0000${JSON.stringify(fallback)}`;
    const cached = this.#models.get(id);
    if (cached) return cached;
    const model = wrapWithResilience(this.resilience, key, entry, registry, (k, e) =>
      e.provider === "offline" ? this.#offline(k) : createOpenAIModel(k, e, { firstResponseTimeoutMs: tierDeadline(e), storedKey, provider: (x) => this.#providers.resolve(x) }),
    );
    this.#models.set(id, model);
    return model;
  }

  /**
   * The provider profile of every non-offline entry of `registry` and why (named, or guessed from
   * the base URL or the server's answer), by key: what the Settings page shows. A server not yet
   * asked is asked now (once; at most 1.5 s).
   */
  async providerGuesses(registry: ModelsFile): Promise<Record<string, ResolvedProvider>> {
    const entries = Object.entries(registry.models).filter(([, e]) => e.provider !== "offline");
    const resolved = await Promise.all(entries.map(([, e]) => this.#providers.resolve(e)));
    return Object.fromEntries(entries.map(([key], i) => [key, resolved[i]!]));
  }

  /**
   * The embedder of the `embedding` key of models.json (vectors for memory recall and knowledge
   * search); null when none is named, or when it names the offline model (which has no vectors):
   * search is then lexical only. Cached per key and entry, like {@link modelFor}.
   */
  async embedderFor(root: string): Promise<Embedder | null> {
    const registry = await loadRegistry(root);
    const key = auxModelKey(registry, "embedding");
    if (!key) return null;
    const entry = resolveModel(registry, key);
    if (entry.provider === "offline") return null;
    if (entry.api_key_ref) await this.#keys?.refresh();
    const id = `${key}\u0000${JSON.stringify(entry)}`;
    const cached = this.#embedders.get(id);
    if (cached) return cached;
    const embedder = createEmbedder(key, entry, { storedKey: this.#storedKey });
    this.#embedders.set(id, embedder);
    return embedder;
  }
}
