/**
 * Changes Settings → Models makes to models.json, on the file's own JSON value (not the schema's
 * output, which would add every default): an entry is replaced where it stands, the form's fields
 * set or removed, every other key (of the file, of the entry, of its `timeouts` and `prices`) kept
 * in its order. What another part of the file names cannot be removed, and a fallback must name a
 * model: each refusal is a ValidationError whose details carry a stable `reason` the UI translates.
 * Pure: no I/O.
 */
import { ValidationError } from "@/lib/contracts/errors";
import { hasOwnKey, ownValue, setOwn } from "@/lib/own";
import { OFFLINE_MODEL_KEY, type ModelEntry } from "@/lib/models/schema";
import type { ModelEntryFields, ModelEntryView, ModelReference } from "./schema";

/** models.json as read: any JSON object whose `models` is an object of objects (the schema checked it). */
export type RawModelsFile = Record<string, unknown> & { models: Record<string, Record<string, unknown>> };

/** Why a change is refused; the UI shows `settings.models.refused.<reason>`. */
type RefusalReason = "referenced" | "unknown_fallback" | "self_fallback" | "exists" | "reserved" | "builtin" | "unknown_key";

/** One refused field: `path` in the request body, the English message, the stable reason and what it names. */
interface Refusal {
  path: string;
  message: string;
  reason: RefusalReason;
  name?: string;
}

function refuse(message: string, issue: Omit<Refusal, "message">): never {
  throw new ValidationError(message, [{ ...issue, message }]);
}

/** The key the environment's endpoint takes (lib/models/registry.ts): a file entry of that name would be hidden. */
const ENV_MODEL_KEY = "env";

/** The top-level keys of models.json that name a model for a side job. */
const SETTING_KEYS = ["classifier", "memory", "embedding", "reranker"] as const;

/** Everything in the file that names `key`: the default, other entries' fallbacks, aliases, side jobs. */
export function referencesTo(file: RawModelsFile, key: string): ModelReference[] {
  const refs: ModelReference[] = [];
  if (file.default === key) refs.push({ kind: "default", name: "default" });
  for (const [other, entry] of Object.entries(file.models)) {
    if (other !== key && ownValue(entry, "fallback") === key) refs.push({ kind: "fallback", name: other });
  }
  const aliases = ownValue(file, "aliases");
  if (aliases && typeof aliases === "object") {
    for (const [alias, target] of Object.entries(aliases as Record<string, unknown>)) if (target === key) refs.push({ kind: "alias", name: alias });
  }
  for (const setting of SETTING_KEYS) if (ownValue(file, setting) === key) refs.push({ kind: "setting", name: setting });
  return refs;
}

/** "the default model", "the fallback of gpt-4o", "the alias sonnet", "the memory model" */
function describe(ref: ModelReference): string {
  if (ref.kind === "default") return "it is the default model (pick another default first)";
  if (ref.kind === "fallback") return `it is the fallback of "${ref.name}"`;
  if (ref.kind === "alias") return `the alias "${ref.name}" names it`;
  return `it is the "${ref.name}" model`;
}

/** A URL as the browser may see it: no user name or password. */
function withoutUserInfo(url: string): string {
  try {
    const u = new URL(url);
    if (u.username === "" && u.password === "") return url;
    u.username = "";
    u.password = "";
    return u.toString();
  } catch {
    return url;
  }
}

/** Sets the known keys of a nested object from `next`, removes the known keys `next` lacks, keeps the rest. */
function mergeNested(old: unknown, next: Record<string, unknown> | undefined, known: readonly string[]): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = old && typeof old === "object" && !Array.isArray(old) ? { ...(old as Record<string, unknown>) } : {};
  for (const k of known) {
    const v = next ? ownValue(next, k) : undefined;
    if (v === undefined) delete out[k];
    else setOwn(out, k, v);
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Where the entry's key comes from after a save: a variable, a stored key, none; null keeps what the entry has. */
export type KeyPlacement = { api_key_env: string } | { api_key_ref: string } | { none: true } | null;

/** The form's fields in the order a new entry is written. */
const FIELD_ORDER = ["label", "provider", "base_url", "api_key_env", "api_key_ref", "model", "thinking_style", "max_concurrency", "tier", "fallback", "timeouts", "prices"] as const;

/**
 * The entry after a save: `old`'s keys in their order (unknown ones kept), the form's fields set
 * or removed, the key placed as `key` says. A base URL sent back without the user info the
 * browser never saw keeps the stored one.
 */
export function mergeEntry(old: Record<string, unknown> | undefined, fields: ModelEntryFields, key: KeyPlacement): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (old) for (const [k, v] of Object.entries(old)) setOwn(out, k, v);
  else for (const k of FIELD_ORDER) setOwn(out, k, undefined);
  const storedUrl = old ? ownValue(old, "base_url") : undefined;
  const values: Record<string, unknown> = {
    label: fields.label || undefined,
    provider: fields.provider,
    base_url: typeof storedUrl === "string" && fields.base_url !== undefined && withoutUserInfo(storedUrl) === fields.base_url ? storedUrl : fields.base_url,
    model: fields.model,
    thinking_style: fields.thinking_style,
    max_concurrency: fields.max_concurrency,
    tier: fields.tier,
    fallback: fields.fallback,
    timeouts: mergeNested(old?.timeouts, fields.timeouts, ["first_response_ms", "idle_ms"]),
    prices: mergeNested(old?.prices, fields.prices, ["input", "cached_input", "output"]),
  };
  for (const [k, v] of Object.entries(values)) setOwn(out, k, v);
  if (key) {
    setOwn(out, "api_key_env", "api_key_env" in key ? key.api_key_env : undefined);
    setOwn(out, "api_key_ref", "api_key_ref" in key ? key.api_key_ref : undefined);
  }
  // The keys reserved above for a new entry's order, and the fields removed, go.
  for (const k of Object.keys(out)) if (out[k] === undefined) delete out[k];
  return out;
}

/** Refuses a fallback that names no model of the file, or the entry itself. */
function checkFallback(file: RawModelsFile, key: string, fallback: string | undefined): void {
  if (fallback === undefined) return;
  if (fallback === key) refuse(`"${key}" cannot fall back to itself`, { path: "entry.fallback", reason: "self_fallback", name: fallback });
  if (!hasOwnKey(file.models, fallback) && fallback !== OFFLINE_MODEL_KEY) {
    refuse(`There is no model "${fallback}" to fall back to. Known keys: ${Object.keys(file.models).join(", ")}.`, { path: "entry.fallback", reason: "unknown_fallback", name: fallback });
  }
}

/** The file with entry `key` added (`create`) or replaced where it stands. */
export function putEntry(file: RawModelsFile, key: string, fields: ModelEntryFields, placement: KeyPlacement, create: boolean): RawModelsFile {
  const exists = hasOwnKey(file.models, key);
  if (create && exists) refuse(`A model "${key}" exists already`, { path: "key", reason: "exists", name: key });
  if (create && key === ENV_MODEL_KEY) refuse(`The key "${ENV_MODEL_KEY}" is the model OPENAI_BASE_URL / OPENAI_API_KEY define; choose another`, { path: "key", reason: "reserved", name: key });
  if (!create && !exists) refuse(`There is no model "${key}" in models.json`, { path: "key", reason: "unknown_key", name: key });
  checkFallback(file, key, fields.fallback);
  const models: Record<string, Record<string, unknown>> = {};
  for (const [k, v] of Object.entries(file.models)) setOwn(models, k, k === key ? mergeEntry(v, fields, placement) : v);
  if (!exists) setOwn(models, key, mergeEntry(undefined, fields, placement));
  return { ...file, models };
}

/** The file without entry `key`; refused when it is built in or anything else names it. */
export function removeEntry(file: RawModelsFile, key: string): RawModelsFile {
  if (!hasOwnKey(file.models, key)) refuse(`There is no model "${key}" in models.json`, { path: "key", reason: "unknown_key", name: key });
  if (key === OFFLINE_MODEL_KEY) refuse(`The built-in offline model cannot be removed`, { path: "key", reason: "builtin", name: key });
  const refs = referencesTo(file, key);
  if (refs.length > 0) {
    throw new ValidationError(
      `"${key}" cannot be removed: ${refs.map(describe).join("; ")}.`,
      refs.map((r) => ({ path: "key", reason: "referenced", kind: r.kind, name: r.name, message: describe(r) })),
    );
  }
  const models: Record<string, Record<string, unknown>> = {};
  for (const [k, v] of Object.entries(file.models)) if (k !== key) setOwn(models, k, v);
  return { ...file, models };
}

/** The file with `default` naming `key`, which must be one of its models (or the built-in offline one). */
export function setDefault(file: RawModelsFile, key: string): RawModelsFile {
  if (!hasOwnKey(file.models, key) && key !== OFFLINE_MODEL_KEY) refuse(`There is no model "${key}" in models.json`, { path: "key", reason: "unknown_key", name: key });
  return { ...file, default: key };
}

/** An entry as the editor shows it (the schema's output: defaults filled in), without keys or a URL's user info. */
export function entryView(entry: ModelEntry): ModelEntryView {
  return {
    ...(entry.label !== undefined ? { label: entry.label } : {}),
    provider: entry.provider,
    ...(entry.base_url !== undefined ? { base_url: withoutUserInfo(entry.base_url) } : {}),
    model: entry.model,
    thinking_style: entry.thinking_style,
    max_concurrency: entry.max_concurrency,
    ...(entry.tier !== undefined ? { tier: entry.tier } : {}),
    ...(entry.fallback !== undefined ? { fallback: entry.fallback } : {}),
    ...(entry.timeouts ? { timeouts: { first_response_ms: entry.timeouts.first_response_ms, idle_ms: entry.timeouts.idle_ms } } : {}),
    ...(entry.prices ? { prices: { input: entry.prices.input, cached_input: entry.prices.cached_input, output: entry.prices.output } } : {}),
  };
}
