import "server-only";
/**
 * Settings → Models on disk: the editor's view of models.json (with its etag) and every change
 * the form makes, each a read-modify-write under the file's queue (shared with every other writer
 * of models.json), checked against the etag the form read — a hand edit made while the page was
 * open is a 409, never overwritten — and written atomically. A typed API key goes to the key store
 * before models.json names it; a key no entry uses any more is forgotten after. The registry
 * notices the new file at its next call (lib/models/registry.ts), so no restart is needed.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { ConflictError, ValidationError, zodIssues } from "@/lib/contracts/errors";
import type { ModelList } from "@/lib/contracts/http";
import { applyEnvironment, DEFAULT_ALIASES, defaultModelsFile, keySourceOf, loadRegistry, modelsFilePath, ModelsFileSchema, publicModels, type ModelKeyStore, type ModelsFile, type StoredKeyCheck } from "@/lib/models";
import type { ResolvedProvider } from "@/lib/models/providers";
import { computeEtag, describeZodIssues, parseJsonText, toPythonJsonBytes, writeFileAtomicUnlocked, type FileQueues } from "@/lib/store";
import { entryView, putEntry, referencesTo, removeEntry, setDefault, type KeyPlacement, type RawModelsFile } from "./edit";
import type { ApiKeyChange, ModelEntryFields, ModelSettings } from "./schema";

/** What the model settings work with: the data folder, its write queues and its key store. */
export interface ModelSettingsDeps {
  readonly root: string;
  readonly queues: FileQueues;
  readonly keys: ModelKeyStore;
  /** Each entry's provider profile, guessed where models.json names none (lib/models ModelRegistry). */
  readonly models?: { providerGuesses(registry: ModelsFile): Promise<Record<string, ResolvedProvider>> };
}

/** models.json as read: its etag, its JSON value and parse, or what is wrong with it. */
type FileRead = { etag: string; ok: true; raw: RawModelsFile; parsed: ModelsFile } | { etag: string; ok: false; error: string };

async function readModels(root: string): Promise<FileRead> {
  let bytes: Buffer;
  try {
    bytes = await fs.readFile(modelsFilePath(root));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    // Missing: the defaults apply, and the first change writes them.
    const defaults = defaultModelsFile();
    return { etag: computeEtag(""), ok: true, raw: defaults as unknown as RawModelsFile, parsed: defaults };
  }
  const etag = computeEtag(bytes);
  let text = bytes.toString("utf8");
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const json = parseJsonText(text);
  if (!json.ok) return { etag, ok: false, error: json.reason };
  const parsed = ModelsFileSchema.safeParse(json.value);
  if (!parsed.success) return { etag, ok: false, error: `does not match its schema: ${describeZodIssues(parsed.error)}` };
  return { etag, ok: true, raw: json.value as RawModelsFile, parsed: parsed.data };
}

/** Whether a key is stored under a ref; a key store that does not load counts as holding none (/api/health reports it). */
async function storedKeyCheck(keys: ModelKeyStore): Promise<StoredKeyCheck> {
  try {
    await keys.refresh();
    return (ref) => keys.peek(ref) !== undefined;
  } catch {
    return () => false;
  }
}

/** `GET /api/models`: the registry as the browser may see it (a key's source, never the key) and the aliases. */
export async function publicModelList(deps: ModelSettingsDeps): Promise<ModelList> {
  const registry = await loadRegistry(deps.root);
  const guesses = deps.models ? await deps.models.providerGuesses(registry) : {};
  return { models: publicModels(registry, await storedKeyCheck(deps.keys), guesses), default_key: registry.default, aliases: { ...DEFAULT_ALIASES, ...registry.aliases } };
}

/** The editor's view of models.json: its entries (keys' sources only), default, etag, or its error. */
export async function readModelSettings(deps: ModelSettingsDeps): Promise<ModelSettings> {
  const read = await readModels(deps.root);
  if (!read.ok) return { file: "models.json", etag: read.etag, error: read.error, default: "", effective_default: "", entries: [] };
  const hasStored = await storedKeyCheck(deps.keys);
  return {
    file: "models.json",
    etag: read.etag,
    error: null,
    default: read.parsed.default,
    effective_default: applyEnvironment(read.parsed).default,
    entries: Object.entries(read.parsed.models).map(([key, entry]) => ({
      key,
      entry: entryView(entry),
      api_key: keySourceOf(entry, hasStored),
      referenced_by: referencesTo(read.raw, key),
    })),
  };
}

/** A change of models.json: the new file, and the stored keys to forget once it is written. */
interface Change {
  file: RawModelsFile;
  forget?: string[];
}

/**
 * Runs `change` on models.json under its queue: refused (409) when the file does not load or its
 * etag is not `etag`; the result is checked against the schema and written atomically.
 */
async function changeModels(deps: ModelSettingsDeps, etag: string | undefined, change: (file: RawModelsFile) => Promise<Change>): Promise<ModelSettings> {
  const file = path.resolve(modelsFilePath(deps.root));
  await deps.queues.withFileLock(file, async () => {
    const read = await readModels(deps.root);
    if (!read.ok) throw new ConflictError(`models.json does not load, so it is not overwritten; fix it first: ${read.error}`, { reason: "broken" });
    if (etag !== undefined && etag !== read.etag) {
      throw new ConflictError("models.json changed on disk since you opened it; reload it and try again", { reason: "stale", etag: read.etag });
    }
    const next = await change(read.raw);
    const checked = ModelsFileSchema.safeParse(next.file);
    if (!checked.success) throw new ValidationError(`The change does not fit models.json: ${describeZodIssues(checked.error)}`, zodIssues(checked.error));
    await writeFileAtomicUnlocked(file, toPythonJsonBytes(next.file));
    for (const ref of next.forget ?? []) await deps.keys.remove(ref);
  });
  return readModelSettings(deps);
}

/** The stored key id of an entry of the file, if it has one. */
function refOf(file: RawModelsFile, key: string): string | undefined {
  const ref = Object.prototype.hasOwnProperty.call(file.models, key) ? file.models[key]?.api_key_ref : undefined;
  return typeof ref === "string" ? ref : undefined;
}

/**
 * Adds (`create`) or replaces entry `key`. A typed key is stored first (under the entry's stored
 * key id, or a new one), so models.json never names a key that is not there; when the write is
 * refused, a key stored for it is taken back.
 */
export async function putModelEntry(deps: ModelSettingsDeps, input: { key: string; entry: ModelEntryFields; api_key: ApiKeyChange; etag?: string; create: boolean }): Promise<ModelSettings> {
  let fresh: string | null = null;
  try {
    return await changeModels(deps, input.etag, async (file) => {
      const old = input.create ? undefined : refOf(file, input.key);
      let placement: KeyPlacement = null;
      if (input.api_key.mode === "stored") {
        const ref = old ?? null;
        // Checked before the key is stored, so a refused change stores nothing.
        putEntry(file, input.key, input.entry, null, input.create);
        const stored = await deps.keys.put(input.api_key.value, ref ?? undefined);
        if (!ref) fresh = stored;
        placement = { api_key_ref: stored };
      } else if (input.api_key.mode === "env") placement = { api_key_env: input.api_key.env };
      else if (input.api_key.mode === "none") placement = { none: true };
      const forget = old && placement && !("api_key_ref" in placement) ? [old] : [];
      return { file: putEntry(file, input.key, input.entry, placement, input.create), forget };
    });
  } catch (error) {
    if (fresh) await deps.keys.remove(fresh).catch(() => undefined);
    throw error;
  }
}

/** Removes entry `key` (refused when anything else names it) and forgets its stored key. */
export async function deleteModelEntry(deps: ModelSettingsDeps, key: string, etag?: string): Promise<ModelSettings> {
  return changeModels(deps, etag, async (file) => {
    const ref = refOf(file, key);
    return { file: removeEntry(file, key), forget: ref ? [ref] : [] };
  });
}

/** Makes `key` the file's default model. */
export async function setDefaultModel(deps: ModelSettingsDeps, key: string, etag?: string): Promise<ModelSettings> {
  return changeModels(deps, etag, async (file) => ({ file: setDefault(file, key) }));
}
