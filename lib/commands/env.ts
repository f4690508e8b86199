/**
 * The environment a command runs with: the server's, minus its secrets and its own settings.
 * Pure: the caller passes the environment and the names the model registry reads keys from.
 */

/** Names of the app's own settings and of the web server it runs in. */
const APP_NAMES = new Set(["PORT", "HOST", "NODE_ENV", "NODE_OPTIONS", "HOSTNAME"]);
const APP_PREFIXES = ["ASTRION_", "NEXT_", "__NEXT", "TURBOPACK", "OPENAI_", "ANTHROPIC_", "DASHSCOPE_", "DEEPSEEK_", "AZURE_OPENAI_", "GEMINI_", "GOOGLE_API"];
/** A secret's name holds one of these words as a `_`-separated part, or ends with it. */
const SECRET_WORDS = /(^|_)(API_?KEY|KEY|TOKEN|SECRET|SECRETS|PASSWORD|PASSWD|CREDENTIAL|CREDENTIALS|COOKIE)(_|$)/;

/** The variable a command's processes carry so a leftover of a crashed server can be found. */
export const COMMAND_ID_VARIABLE = "AGENT_COMMAND_ID";

/** True when a variable must not reach a command (a secret, or the app's own). */
export function isWithheldVariable(name: string, extra: ReadonlySet<string> = new Set()): boolean {
  const upper = name.toUpperCase();
  if (extra.has(name) || APP_NAMES.has(upper)) return true;
  if (APP_PREFIXES.some((p) => upper.startsWith(p))) return true;
  return SECRET_WORDS.test(upper);
}

/**
 * `env` without secrets and the app's variables; `extra` adds names to withhold (the registry's
 * `api_key_env` names, whatever they are called), and `commandId` marks the command's processes.
 */
export function commandEnvironment(env: Readonly<Record<string, string | undefined>>, extra: ReadonlySet<string>, commandId: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || isWithheldVariable(name, extra)) continue;
    out[name] = value;
  }
  out[COMMAND_ID_VARIABLE] = commandId;
  return out;
}
