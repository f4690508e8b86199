import "server-only";
/**
 * The model names a server offers (`GET <base_url>/models`), for the form's model-name list: asked
 * with the key the form names (typed, from a variable, or the one stored for the entry), bounded by
 * a short deadline, and answered as names or as a reason a person can act on — never with the key.
 */
import { loadRegistry, lookupModel, redactSecrets } from "@/lib/models";
import type { ModelSettingsDeps } from "./service";
import { openAIModels } from "./found-servers";
import { textWithin } from "./bounded-body";
import type { ApiKeyChange, UpstreamModels } from "./schema";

/** How long the server may take to list its models, in milliseconds. */
const UPSTREAM_TIMEOUT_MS = 5_000;
const MAX_LIST_BYTES = 4 * 1024 * 1024;

/** The key to send: the typed one, a variable's, or the one stored (or named) for entry `key`. */
async function keyFor(deps: ModelSettingsDeps, key: string | undefined, change: ApiKeyChange | undefined): Promise<string | undefined> {
  if (change?.mode === "stored") return change.value;
  if (change?.mode === "env") return process.env[change.env] || undefined;
  if (change?.mode === "none" || key === undefined) return undefined;
  const entry = lookupModel(await loadRegistry(deps.root), key);
  if (entry?.api_key_ref) {
    await deps.keys.refresh();
    return deps.keys.peek(entry.api_key_ref);
  }
  return entry?.api_key_env ? process.env[entry.api_key_env] || undefined : undefined;
}

/** Lists the models of the server at `baseUrl`. */
export async function listUpstreamModels(deps: ModelSettingsDeps, input: { base_url: string; key?: string; api_key?: ApiKeyChange }): Promise<UpstreamModels> {
  const secret = await keyFor(deps, input.key, input.api_key);
  const url = `${input.base_url.replace(/\/+$/, "")}/models`;
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(UPSTREAM_TIMEOUT_MS), redirect: "error", headers: { accept: "application/json", ...(secret ? { authorization: `Bearer ${secret}` } : {}) } });
  } catch (error) {
    const timedOut = (error as Error).name === "TimeoutError";
    return timedOut
      ? { models: [], error: { code: "timeout", seconds: UPSTREAM_TIMEOUT_MS / 1000 } }
      : { models: [], error: { code: "unreachable" } };
  }
  if (res.status === 401 || res.status === 403) {
    await res.body?.cancel().catch(() => undefined);
    return { models: [], error: { code: "unauthorized", status: res.status } };
  }
  const text = await textWithin(res, MAX_LIST_BYTES).catch(() => "");
  if (!res.ok) return { models: [], error: { code: "http", status: res.status, detail: text ? redactSecrets(text.slice(0, 200), [secret]) : "" } };
  let body: unknown = null;
  try {
    body = text === null ? null : JSON.parse(text);
  } catch {
    body = null;
  }
  const list = openAIModels(body);
  if (!list) return { models: [], error: { code: text === null ? "too_large" : "not_a_list" } };
  return { models: [...new Set(list.ids)].sort((a, b) => a.localeCompare(b)), error: null };
}
