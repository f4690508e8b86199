import "server-only";
/**
 * The model registry: `models.json` in the data root maps model keys (used in role frontmatter
 * and conversation metadata) to endpoints. It is seeded on first start and editable by hand;
 * OPENAI_BASE_URL / OPENAI_API_KEY / ASTRION_MODEL override it from the environment. API keys
 * are never stored here: an entry names the environment variable that holds its key, or the id of
 * a key typed in Settings and kept in the key store (./key-store.ts).
 */
import { promises as fs, statSync } from "node:fs";
import path from "node:path";
import { readJsonFile, writeJsonAtomic, type FileQueues } from "@/lib/store";
import { CorruptFileError, NotFoundError } from "@/lib/contracts/errors";
import { hasOwnKey, ownValue } from "@/lib/own";
import type { PublicKeySource, PublicModel, StoreProblem } from "@/lib/contracts/http";
import { DEFAULT_ALIASES, type AliasRegistry } from "./aliases";
import { GENERIC_DEFAULT, resolveWithoutServer, type ResolvedProvider } from "./providers";
import { ModelsFileSchema, OFFLINE_MODEL_KEY, type ModelEntry, type ModelsFile } from "./schema";

/** What `models.json` holds on first start. */
export function defaultModelsFile(): ModelsFile {
  return {
    default: OFFLINE_MODEL_KEY,
    models: {
      [OFFLINE_MODEL_KEY]: {
        label: "Offline (built-in)",
        provider: "offline",
        model: "astrion-offline",
        thinking_style: "none",
        max_concurrency: 8,
      },
    },
    aliases: { ...DEFAULT_ALIASES },
  };
}

/** The registry as {@link resolveModelName} reads it. */
export function aliasRegistry(registry: ModelsFile): AliasRegistry {
  return { keys: Object.keys(registry.models), default: registry.default, ...(registry.aliases ? { aliases: registry.aliases } : {}) };
}

/** `<root>/models.json`. */
export function modelsFilePath(root: string): string {
  return path.join(root, "models.json");
}

/**
 * Writes the default registry when `models.json` does not exist (queued in the process's
 * `queues`); never touches an existing one.
 */
export async function seedModelsFile(queues: FileQueues, root: string): Promise<boolean> {
  const file = modelsFilePath(root);
  try {
    await fs.access(file);
    return false;
  } catch {
    await writeJsonAtomic(queues, file, defaultModelsFile(), ModelsFileSchema);
    return true;
  }
}

/** Key of the entry the environment defines, when OPENAI_BASE_URL or OPENAI_API_KEY is set. */
const ENV_MODEL_KEY = "env";

/**
 * The registry as the server uses it: the file (or the defaults when it is missing), with the
 * environment's endpoint added and made the default. ASTRION_MODEL naming a registered key makes
 * that key the default; otherwise it is the provider model name of the environment's endpoint.
 */
export function applyEnvironment(file: ModelsFile, env: Record<string, string | undefined> = process.env): ModelsFile {
  const models: Record<string, ModelEntry> = { ...file.models };
  if (!hasOwnKey(models, OFFLINE_MODEL_KEY)) models[OFFLINE_MODEL_KEY] = defaultModelsFile().models[OFFLINE_MODEL_KEY]!;
  let defaultKey = hasOwnKey(models, file.default) ? file.default : OFFLINE_MODEL_KEY;
  const wanted = env.ASTRION_MODEL?.trim();
  if (env.OPENAI_BASE_URL || env.OPENAI_API_KEY) {
    models[ENV_MODEL_KEY] = {
      label: `${wanted && !hasOwnKey(models, wanted) ? wanted : "gpt-4o-mini"} (from environment)`,
      provider: "openai-compatible",
      base_url: env.OPENAI_BASE_URL || "https://api.openai.com/v1",
      // A local server (Ollama, vLLM…) needs no key: with only OPENAI_BASE_URL set none is asked for.
      ...(env.OPENAI_API_KEY ? { api_key_env: "OPENAI_API_KEY" } : {}),
      model: wanted && !hasOwnKey(models, wanted) ? wanted : "gpt-4o-mini",
      thinking_style: "none",
      max_concurrency: 4,
    };
    defaultKey = ENV_MODEL_KEY;
  }
  if (wanted && hasOwnKey(models, wanted)) defaultKey = wanted;
  return { ...file, default: defaultKey, models };
}

/** Loads the registry with the environment applied. A broken `models.json` is a clear error. */
export async function loadRegistry(root: string): Promise<ModelsFile> {
  return applyEnvironment(await modelsFile(root));
}

/** The last parse of each data folder's models.json, with the identity of the file it came from. */
const parsedModels = new Map<string, { stamp: string; file: ModelsFile }>();

/**
 * models.json as written (defaults when it is missing). Every model call asks for it, so the
 * parse is kept and used again while the file's identity (inode, size, modification time in
 * nanoseconds) is unchanged: an edit, or a new file renamed over it, is read at the next call.
 * The identity is read with a synchronous `stat` of the one file (a few microseconds, where a
 * trip through the thread pool cost every model call about 0.1 ms).
 */
async function modelsFile(root: string): Promise<ModelsFile> {
  const file = modelsFilePath(root);
  let stamp = "missing";
  try {
    const st = statSync(file, { bigint: true, throwIfNoEntry: false });
    if (st) stamp = `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
  } catch {
    stamp = "unreadable";
  }
  const known = parsedModels.get(root);
  if (known?.stamp === stamp) return known.file;
  let parsed: ModelsFile;
  try {
    parsed = await readJsonFile(file, ModelsFileSchema);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    parsed = defaultModelsFile();
  }
  // Kept under the stamp taken before the read: a file that changed while it was read has a new
  // stamp at the next call, so it is read again.
  parsedModels.set(root, { stamp, file: parsed });
  return parsed;
}

/**
 * What is wrong with `models.json`, as a problem for `/api/health` (`file` relative to the data
 * folder), or null when it loads or is missing (the defaults then apply). One small file read.
 */
export async function registryProblem(root: string): Promise<StoreProblem | null> {
  try {
    await readJsonFile(modelsFilePath(root), ModelsFileSchema);
    return null;
  } catch (error) {
    if (error instanceof NotFoundError) return null;
    if (error instanceof CorruptFileError) {
      const reason = (error.details as { reason?: unknown } | undefined)?.reason;
      return { file: "models.json", message: typeof reason === "string" ? reason : error.message };
    }
    return { file: "models.json", message: error instanceof Error ? error.message : String(error) };
  }
}

/** Whether a key is stored under a ref (the key store, lib/models/key-store.ts). */
export type StoredKeyCheck = (ref: string) => boolean;

/**
 * Where an entry's API key comes from, as the browser may see it: never the key, only "key set"
 * or "from $NAME" (and whether that variable is set).
 */
export function keySourceOf(entry: ModelEntry, hasStored: StoredKeyCheck = () => false, env: Record<string, string | undefined> = process.env): PublicKeySource {
  if (entry.provider === "offline") return { source: "none" };
  if (entry.api_key_ref) return { source: "stored", set: hasStored(entry.api_key_ref) };
  if (entry.api_key_env) return { source: "env", env: entry.api_key_env, set: Boolean(env[entry.api_key_env]) };
  return { source: "none" };
}

/** True when the entry can be called now: offline, or its key is at hand (or none is needed). */
function isConfigured(source: PublicKeySource): boolean {
  return source.source === "none" || source.set;
}

/**
 * The registry as the browser may see it: no URLs with credentials, no key values. Each entry's
 * provider profile is `guesses[key]` (the model registry's guesser, which may have asked the
 * server), else what the entry names or its base URL shows, else `generic`.
 */
export function publicModels(registry: ModelsFile, hasStored?: StoredKeyCheck, guesses: Readonly<Record<string, ResolvedProvider>> = {}): PublicModel[] {
  return Object.entries(registry.models).map(([key, entry]) => {
    const api_key = keySourceOf(entry, hasStored);
    return {
      key,
      label: entry.provider === "offline" ? `${entry.label ?? key} — offline` : (entry.label ?? key),
      provider_model: entry.model,
      offline: entry.provider === "offline",
      configured: isConfigured(api_key),
      api_key,
      provider:
        entry.provider === "offline"
          ? { profile: "offline", source: "named" as const, detail: "" }
          : (ownValue(guesses, key) ?? resolveWithoutServer(entry) ?? GENERIC_DEFAULT),
    };
  });
}

/**
 * The entry of a registered model key, or undefined. Only the registry's own keys count, so
 * `constructor` or `__proto__` is never "registered".
 */
export function lookupModel(registry: ModelsFile, key: string): ModelEntry | undefined {
  return ownValue(registry.models, key);
}

/** Resolves a model key, or throws a NotFoundError that names the known keys. */
export function resolveModel(registry: ModelsFile, key: string): ModelEntry {
  const entry = lookupModel(registry, key);
  if (!entry) {
    throw new NotFoundError(`Unknown model key "${key}". Known keys: ${Object.keys(registry.models).join(", ")}. Add it to models.json.`);
  }
  return entry;
}
