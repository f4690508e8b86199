/**
 * The one place an entry's API key is resolved: a key typed in Settings → Models and kept in the
 * key store (`api_key_ref`, looked up with `stored`), else the environment variable its
 * `api_key_env` names (read at each call, never stored), else none (a local server). The model
 * client and the connection doctor both call it. Pure: the environment and the store are handed in.
 */
import type { ModelEntry } from "./schema";

/** An entry's key: none needed, a variable's (set or not), or a stored one (there or not any more). */
export type ResolvedApiKey =
  | { state: "none_needed" }
  | { state: "missing"; env: string }
  | { state: "set"; env: string; value: string }
  | { state: "stored_missing" }
  | { state: "stored"; value: string };

/** The key `entry` is called with. */
export function resolveApiKey(
  entry: Pick<ModelEntry, "api_key_env" | "api_key_ref">,
  env: Readonly<Record<string, string | undefined>>,
  stored?: (ref: string) => string | undefined,
): ResolvedApiKey {
  if (entry.api_key_ref) {
    const value = stored?.(entry.api_key_ref);
    return value ? { state: "stored", value } : { state: "stored_missing" };
  }
  if (!entry.api_key_env) return { state: "none_needed" };
  const value = env[entry.api_key_env];
  return value ? { state: "set", env: entry.api_key_env, value } : { state: "missing", env: entry.api_key_env };
}
