/**
 * The model form's text fields and their conversion to a models.json entry (numbers typed as text,
 * empty meaning "not set"), checked with the API's own schemas; the field errors and the server's
 * refusals as translation keys, so both languages say the same. Pure.
 */
import { ModelKeySchema } from "@/lib/contracts/http";
import type { MessageKey } from "@/lib/i18n";
import { ApiKeyChangeSchema, ModelEntryFieldsSchema, type ApiKeyChange, type ModelEntryFields, type ModelSettings } from "@/lib/model-settings/schema";
import type { ProviderSchema } from "@/lib/models/schema";
import type { z } from "zod";

type Provider = z.infer<typeof ProviderSchema>;
type KeyMode = "keep" | "none" | "env" | "stored";

/** What the inputs hold. */
export interface ModelFormState {
  key: string;
  label: string;
  provider: Provider;
  base_url: string;
  model: string;
  keyMode: KeyMode;
  keyEnv: string;
  keyValue: string;
  thinking_style: ModelEntryFields["thinking_style"];
  max_concurrency: string;
  first_response_ms: string;
  idle_ms: string;
  fallback: string;
  price_input: string;
  price_cached: string;
  price_output: string;
}

/** The fields a message can be shown under. */
export type ModelFormField = "key" | "label" | "base_url" | "model" | "max_concurrency" | "timeouts" | "prices" | "keyEnv" | "keyValue" | "fallback";

export const EMPTY_MODEL_FORM: ModelFormState = {
  key: "",
  label: "",
  // Not named: the profile is guessed from the base URL or the server's /v1/models (and shown).
  provider: "openai-compatible",
  base_url: "",
  model: "",
  keyMode: "none",
  keyEnv: "",
  keyValue: "",
  thinking_style: "none",
  max_concurrency: "4",
  first_response_ms: "",
  idle_ms: "",
  fallback: "",
  price_input: "",
  price_cached: "",
  price_output: "",
};

const text = (n: number | undefined) => (n === undefined ? "" : String(n));

/** The form for a listed entry: its stored key (never sent) is kept unless the person changes it. */
export function formFromEntry(item: ModelSettings["entries"][number]): ModelFormState {
  const e = item.entry;
  return {
    ...EMPTY_MODEL_FORM,
    key: item.key,
    label: e.label ?? "",
    provider: e.provider,
    base_url: e.base_url ?? "",
    model: e.model,
    keyMode: item.api_key.source === "stored" ? "keep" : item.api_key.source,
    keyEnv: item.api_key.source === "env" ? item.api_key.env : "",
    thinking_style: e.thinking_style,
    max_concurrency: String(e.max_concurrency),
    first_response_ms: text(e.timeouts?.first_response_ms),
    idle_ms: text(e.timeouts?.idle_ms),
    fallback: e.fallback ?? "",
    price_input: text(e.prices?.input),
    price_cached: text(e.prices?.cached_input),
    price_output: text(e.prices?.output),
  };
}

/** A typed number, undefined when empty, NaN when not a number (the schema then refuses it). */
function num(value: string): number | undefined {
  const v = value.trim();
  return v === "" ? undefined : Number(v);
}

function defined<T extends Record<string, unknown>>(obj: T): T | undefined {
  const out = Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined)) as T;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** The field a schema issue belongs to. */
function fieldOf(path: ReadonlyArray<PropertyKey>): ModelFormField {
  const [head] = path;
  if (head === "timeouts" || head === "prices" || head === "label" || head === "base_url" || head === "model" || head === "max_concurrency" || head === "fallback") return head;
  return "model";
}

/** The entry and key change to send, or the translation key of each field's problem. */
export function bodyFromForm(form: ModelFormState, isNew: boolean): { ok: true; key: string; entry: ModelEntryFields; api_key: ApiKeyChange } | { ok: false; errors: Partial<Record<ModelFormField, MessageKey>> } {
  const errors: Partial<Record<ModelFormField, MessageKey>> = {};
  const key = form.key.trim();
  if (isNew && !ModelKeySchema.safeParse(key).success) errors.key = "settings.models.error.key";
  const entry = ModelEntryFieldsSchema.safeParse({
    label: form.label.trim() || undefined,
    provider: form.provider,
    base_url: form.base_url.trim() || undefined,
    model: form.model,
    thinking_style: form.thinking_style,
    max_concurrency: num(form.max_concurrency) ?? Number.NaN,
    fallback: form.fallback || undefined,
    timeouts: defined({ first_response_ms: num(form.first_response_ms), idle_ms: num(form.idle_ms) }),
    prices: defined({ input: num(form.price_input), cached_input: num(form.price_cached), output: num(form.price_output) }),
  });
  if (!entry.success) for (const issue of entry.error.issues) errors[fieldOf(issue.path)] ??= `settings.models.error.${fieldOf(issue.path)}` as MessageKey;
  const change = ApiKeyChangeSchema.safeParse(
    form.keyMode === "env" ? { mode: "env", env: form.keyEnv } : form.keyMode === "stored" ? { mode: "stored", value: form.keyValue } : { mode: form.keyMode },
  );
  if (!change.success) errors[form.keyMode === "env" ? "keyEnv" : "keyValue"] = form.keyMode === "env" ? "settings.models.error.keyEnv" : "settings.models.error.keyValue";
  if (!entry.success || !change.success || Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, key, entry: entry.data, api_key: change.data };
}

/** One refused field of a 400 answer, as the server sends it. */
interface RefusalDetail {
  path?: string;
  reason?: string;
  kind?: string;
  name?: string;
}

/**
 * The server's refusals as translated lines (`settings.models.refused.*` with the name they
 * concern); empty when the details carry no reason this form knows.
 */
export function refusalsOf(details: unknown): Array<{ key: MessageKey; name: string; path: string }> {
  if (!Array.isArray(details)) return [];
  const out: Array<{ key: MessageKey; name: string; path: string }> = [];
  for (const d of details as RefusalDetail[]) {
    if (!d || typeof d.reason !== "string") continue;
    const key = d.reason === "referenced" ? `settings.models.refused.referenced.${d.kind ?? "default"}` : `settings.models.refused.${d.reason}`;
    out.push({ key: key as MessageKey, name: d.name ?? "", path: d.path ?? "" });
  }
  return out;
}

/** True when a 409's details say models.json changed on disk since the page read it. */
export function isStale(details: unknown): boolean {
  return typeof details === "object" && details !== null && (details as { reason?: unknown }).reason === "stale";
}
