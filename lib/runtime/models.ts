import "server-only";
/**
 * Model keys → callable models, through the registry (models.json + environment). The built-in
 * `offline` provider is the deterministic offline model; every other entry is the OpenAI-compatible
 * client with the first-response deadline of its tier. Every model is wrapped with the
 * resilience layer (per-model concurrency across conversations, a circuit breaker per endpoint,
 * the entry's fallback when it keeps failing). Instances are cached per key, entry and fallback,
 * so an edit of models.json takes effect on the next call without a restart.
 */
import { auxModelKey, createEmbedder, createOpenAIModel, loadRegistry, lookupModel, resolveModel, type ChatModel, type Embedder } from "@/lib/models";
import { createOfflineModel } from "@/lib/models/offline";
import { tierDeadline, wrapWithResilience } from "@/lib/models/resilience";

const CACHE_KEY = Symbol.for("astrion.runtime.models");

function cache(): Map<string, ChatModel> {
  const g = globalThis as unknown as Record<symbol, Map<string, ChatModel> | undefined>;
  return (g[CACHE_KEY] ??= new Map());
}

/** The model for `key`; throws a NotFoundError naming the known keys when it is not registered. */
export async function modelFor(root: string, key: string): Promise<ChatModel> {
  const registry = await loadRegistry(root);
  const entry = resolveModel(registry, key);
  const fallback = entry.fallback ? (lookupModel(registry, entry.fallback) ?? null) : null;
  const id = `${key}\u0000${JSON.stringify(entry)}\u0000${JSON.stringify(fallback)}`;
  const cached = cache().get(id);
  if (cached) return cached;
  const model = wrapWithResilience(key, entry, registry, (k, e) =>
    e.provider === "offline" ? createOfflineModel(k) : createOpenAIModel(k, e, { firstResponseTimeoutMs: tierDeadline(e) }),
  );
  cache().set(id, model);
  return model;
}

const EMBEDDERS_KEY = Symbol.for("astrion.runtime.embedders");

function embedders(): Map<string, Embedder> {
  const g = globalThis as unknown as Record<symbol, Map<string, Embedder> | undefined>;
  return (g[EMBEDDERS_KEY] ??= new Map());
}

/**
 * The embedder of the `embedding` key of models.json (vectors for memory recall and knowledge
 * search); null when none is named, or when it names the offline model (which has no vectors):
 * search is then lexical only. Cached per key and entry, like {@link modelFor}.
 */
export async function embedderFor(root: string): Promise<Embedder | null> {
  const registry = await loadRegistry(root);
  const key = auxModelKey(registry, "embedding");
  if (!key) return null;
  const entry = resolveModel(registry, key);
  if (entry.provider === "offline") return null;
  const id = `${key}\u0000${JSON.stringify(entry)}`;
  const cached = embedders().get(id);
  if (cached) return cached;
  const embedder = createEmbedder(key, entry);
  embedders().set(id, embedder);
  return embedder;
}
