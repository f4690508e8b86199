/**
 * The one place an entry's API key is resolved: today the environment variable its `api_key_env`
 * names (read at each call, never stored). A key kept by the Settings UI can be added here, and
 * every caller (the connection doctor; the model client once it calls this) then sees it. Pure:
 * the environment is handed in.
 */
import type { ModelEntry } from "./schema";

/** An entry's key: none needed, needed but not set, or its value. */
export type ResolvedApiKey =
  | { state: "none_needed" }
  | { state: "missing"; env: string }
  | { state: "set"; env: string; value: string };

/** The key `entry` is called with. */
export function resolveApiKey(entry: Pick<ModelEntry, "api_key_env">, env: Readonly<Record<string, string | undefined>>): ResolvedApiKey {
  if (!entry.api_key_env) return { state: "none_needed" };
  const value = env[entry.api_key_env];
  return value ? { state: "set", env: entry.api_key_env, value } : { state: "missing", env: entry.api_key_env };
}
