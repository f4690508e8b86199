/**
 * The environment a command runs with: the server's, minus its credentials and its own settings.
 * A variable is withheld by its NAME (the app's settings, a name that says it holds a secret)
 * or by its VALUE (a shape that is a credential whatever the name: a URL with a password, a
 * well-known key or token, a JWT, a PEM private key). The value shapes are the memory redaction
 * pass's credential detectors (lib/redaction `holdsCredential`), so both places know the same
 * keys; a long random-looking value alone is not enough (PATH, LS_COLORS and hashes stay).
 * Pure: the caller passes the environment and the names the model registry reads keys from.
 */
import { holdsCredential } from "@/lib/redaction";

/** Names of the app's own settings and of the web server it runs in. */
const APP_NAMES = new Set(["PORT", "HOST", "NODE_ENV", "NODE_OPTIONS", "HOSTNAME"]);
const APP_PREFIXES = ["ASTRION_", "NEXT_", "__NEXT", "TURBOPACK", "OPENAI_", "ANTHROPIC_", "DASHSCOPE_", "DEEPSEEK_", "AZURE_OPENAI_", "GEMINI_", "GOOGLE_API"];

/**
 * A credential's name holds one of these words as a part: parts are split by `_`, and by the
 * `/`, `:` and `.` of npm's per-registry keys (`npm_config_//registry.npmjs.org/:_authToken`).
 * `PWD` and `PASS` are parts too (`MYSQL_PWD`, `SMTP_PASS`); the shell's `PWD` and `OLDPWD` are
 * kept by {@link KEPT_NAMES}.
 */
const SECRET_PARTS = new RegExp(
  String.raw`(?:^|[_/:.])(?:` +
    [
      "API_?KEY", "KEY", "TOKEN", "SECRET", "SECRETS", "PASSWORD", "PASSWD", "PASS", "PWD", "PASSPHRASE", "CREDENTIAL",
      "CREDENTIALS", "CREDS", "COOKIE", "AUTH", "AUTHTOKEN", "ACCESSTOKEN", "AUTHKEY", "ACCESSKEY", "SECRETKEY", "PRIVATEKEY",
      "APIKEY", "PRIVATE", "SESSION", "DSN", "PAT", "WEBHOOK", "CONNECTION_?STRING", "CONNSTR", "SIGNATURE",
    ].join("|") +
    String.raw`)(?=$|[_/:.])`,
);
/** Written inside a longer word, these still name a password (`PGPASSWORD`, `MYSQLPASSWD`). */
const SECRET_SUBSTRINGS = /PASSWORD|PASSWD/;

/**
 * System plumbing whose name reads like a secret but whose value is a path, an id or a socket
 * address: the working directories, the ssh agent's socket, the desktop session's ids. Their
 * values are still checked.
 */
const KEPT_NAMES = new Set([
  "PWD", "OLDPWD", "SSH_AUTH_SOCK", "DESKTOP_SESSION", "SESSION_MANAGER", "DBUS_SESSION_BUS_ADDRESS", "GNOME_DESKTOP_SESSION_ID",
  "XDG_SESSION_ID", "XDG_SESSION_TYPE", "XDG_SESSION_CLASS", "XDG_SESSION_DESKTOP",
]);

/** The variable a command's processes carry so a leftover of a crashed server can be found. */
export const COMMAND_ID_VARIABLE = "AGENT_COMMAND_ID";

/** True when the name alone withholds a variable: the app's own, a registry key name, or a secret's name. */
function withheldByName(name: string, extra: ReadonlySet<string>): boolean {
  const upper = name.toUpperCase();
  if (extra.has(name) || APP_NAMES.has(upper)) return true;
  if (APP_PREFIXES.some((p) => upper.startsWith(p))) return true;
  if (KEPT_NAMES.has(upper)) return false;
  // npm's per-registry settings (`//host/:_authToken`, `:_password`, `:certfile`…) are about credentials.
  if (upper.startsWith("NPM_CONFIG_") && upper.includes("//")) return true;
  return SECRET_PARTS.test(upper) || SECRET_SUBSTRINGS.test(upper);
}

/**
 * True when a variable must not reach a command: a secret by its name, the app's own, or a value
 * that is a credential by its shape (given `value`).
 */
export function isWithheldVariable(name: string, extra: ReadonlySet<string> = new Set(), value?: string): boolean {
  if (withheldByName(name, extra)) return true;
  return value !== undefined && holdsCredential(value);
}

/**
 * `env` without secrets and the app's variables; `extra` adds names to withhold (the registry's
 * `api_key_env` names, whatever they are called), and `commandId` marks the command's processes.
 */
export function commandEnvironment(env: Readonly<Record<string, string | undefined>>, extra: ReadonlySet<string>, commandId: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || isWithheldVariable(name, extra, value)) continue;
    out[name] = value;
  }
  out[COMMAND_ID_VARIABLE] = commandId;
  return out;
}
