/**
 * The pure rules of MCP servers' configuration: `${VAR}` / `${VAR:-default}` expansion (as Claude
 * Code does), masking of secrets for the API, keeping stored secrets when a masked value is saved
 * back (only while the entry's destination is the same), and the values to scrub from anything a
 * server prints or returns. No I/O.
 */
import { isHttpServer, type McpServerConfig, type McpServerView } from "./schema";

/** What the API shows instead of a literal env or header value. */
export const MASK = "••••••••";

/** `${NAME}` or `${NAME:-default}`. */
const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** A value with its references expanded, or the names that are unset and have no default. */
export type Expanded = { ok: true; value: string } | { ok: false; missing: string[] };

/**
 * Variables whose values are no secret: the places and settings every process has (home, user,
 * paths, locale, terminal, zone). A `${HOME}/data` argument must not blank the home folder in
 * everything the server says. Matched whole, case-insensitively (Windows spells them either way).
 */
const NON_SECRET_VARIABLE = /^(?:HOME|USER|USERNAME|LOGNAME|PWD|OLDPWD|PATH|SHELL|TMPDIR|TMP|TEMP|LANG|LANGUAGE|LC_[A-Z]+|TERM|TZ|HOSTNAME|XDG_[A-Z_]+|USERPROFILE|APPDATA|LOCALAPPDATA|SYSTEMROOT|WINDIR|PROGRAMFILES)$/i;

/** Whether `${name}` expands to something that is not a secret (see {@link NON_SECRET_VARIABLE}). */
export function isNonSecretVariable(name: string): boolean {
  return NON_SECRET_VARIABLE.test(name);
}

/**
 * Expands `value`, adding unset names without a default to `missing` and what each reference
 * expanded to (its variable's value, or its default) to `expansions`, unless the variable is a
 * {@link isNonSecretVariable non-secret} one.
 */
function expandTracked(value: string, env: Readonly<Record<string, string | undefined>>, missing: string[], expansions: string[]): string {
  return value.replace(REFERENCE, (_whole, name: string, fallback: string | undefined) => {
    const v = Object.prototype.hasOwnProperty.call(env, name) ? env[name] : undefined;
    const out = v !== undefined && v !== "" ? v : fallback;
    if (out === undefined) {
      missing.push(name);
      return "";
    }
    if (!isNonSecretVariable(name)) expansions.push(out);
    return out;
  });
}

/** Expands `${NAME}` and `${NAME:-default}` from `env`; an unset name without a default is missing. */
export function expandVars(value: string, env: Readonly<Record<string, string | undefined>>): Expanded {
  const missing: string[] = [];
  const out = expandTracked(value, env, missing, []);
  return missing.length ? { ok: false, missing } : { ok: true, value: out };
}

/** A server entry with every reference expanded, ready to start. */
export interface ResolvedServer {
  name: string;
  type: "stdio" | "http";
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  url?: string;
  headers?: Record<string, string>;
  /** Scrubbed from whatever the server prints or returns (see {@link resolveServer}). */
  secrets: string[];
}

/** Thrown when a referenced variable is not set: the message names the variables, never values. */
export class MissingVariableError extends Error {
  constructor(server: string, missing: string[]) {
    super(`server ${server}: ${[...new Set(missing)].map((m) => `\${${m}}`).join(", ")} ${missing.length > 1 ? "are" : "is"} not set in the server's environment`);
    this.name = new.target.name;
  }
}

/** Whether a value is made only of references to non-secret variables (`${HOME}`, `${PATH}`): no literal text. */
function onlyNonSecretReferences(value: string): boolean {
  let secret = false;
  const rest = value.replace(REFERENCE, (_whole, name: string) => {
    if (!isNonSecretVariable(name)) secret = true;
    return "";
  });
  return !secret && rest === "" && value !== "";
}

/** Expands a map's values; each value is a secret (but one made only of non-secret references). */
function expandMap(map: Record<string, string> | undefined, env: Readonly<Record<string, string | undefined>>, missing: string[], secrets: string[]): Record<string, string> | undefined {
  if (!map) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(map)) {
    out[k] = expandTracked(v, env, missing, secrets);
    if (!onlyNonSecretReferences(v)) secrets.push(out[k]);
  }
  return out;
}

/** Shortest value scrubbed from output: shorter ones (`1`, `true`) would blank ordinary text. */
const MIN_SECRET_LENGTH = 6;

/**
 * Expands an entry's command, args, env, url and headers from `env` (the app's environment).
 * The secrets scrubbed from whatever the server prints or returns: every env and header value
 * (literal or expanded; not one made only of non-secret references such as `${HOME}`), and what
 * every `${VAR}` reference anywhere in the entry expanded to — a `--token=${TOKEN}` argument or a
 * `?key=${KEY}` in the URL — except the variables {@link isNonSecretVariable} names.
 * @throws MissingVariableError naming the unset variables.
 */
export function resolveServer(name: string, config: McpServerConfig, env: Readonly<Record<string, string | undefined>>): ResolvedServer {
  const missing: string[] = [];
  const secrets: string[] = [];
  let resolved: ResolvedServer;
  if (isHttpServer(config)) {
    const url = expandTracked(config.url, env, missing, secrets);
    resolved = { name, type: "http", url, headers: expandMap(config.headers, env, missing, secrets), secrets };
  } else {
    const command = expandTracked(config.command, env, missing, secrets);
    const args = (config.args ?? []).map((a) => expandTracked(a, env, missing, secrets));
    resolved = { name, type: "stdio", command, args, env: expandMap(config.env, env, missing, secrets), secrets };
  }
  if (missing.length) throw new MissingVariableError(name, missing);
  // A header like `Bearer <token>` holds the token itself too: scrub it alone as well.
  const parts = secrets.flatMap((s) => s.split(/\s+/)).filter((p) => !/^(?:Bearer|Token|Basic|Bot)$/i.test(p));
  resolved.secrets = [...new Set([...secrets, ...parts])].filter((s) => s.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
  return resolved;
}

/** Replaces every secret value in `text` with `[redacted]`. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s && out.includes(s)) out = out.split(s).join("[redacted]");
  return out;
}

/**
 * Whether a value may be shown as written: only `${NAME}` references (without a default, which
 * could be a literal secret), optionally after an auth scheme word (`Bearer ${TOKEN}`).
 */
export function isShowable(value: string): boolean {
  const rest = value.replace(/\$\{[A-Za-z_][A-Za-z0-9_]*\}/g, "");
  return rest !== value && /^(?:(?:Bearer|Token|Basic|Bot)\s+)?$/i.test(rest);
}

function maskMap(map: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!map) return undefined;
  return Object.fromEntries(Object.entries(map).map(([k, v]) => [k, isShowable(v) ? v : MASK]));
}

/** An entry as the API shows it (without status): env and header values masked unless showable. */
export function maskServer(name: string, config: McpServerConfig): Omit<McpServerView, "status"> {
  if (isHttpServer(config)) return { name, type: "http", url: config.url, ...(config.headers ? { headers: maskMap(config.headers)! } : {}) };
  return { name, type: "stdio", command: config.command, args: config.args ?? [], ...(config.env ? { env: maskMap(config.env)! } : {}) };
}

/**
 * Why a masked value cannot keep a stored one: nothing is stored for its key, or the entry's
 * destination changed (see {@link destinationChange}).
 */
export type MaskedValueReason = "nothing_stored" | "destination_changed";

/** A masked value sent back that keeps nothing: the person must type the value. */
export class MaskedValueError extends Error {
  readonly key: string;
  readonly reason: MaskedValueReason;
  constructor(server: string, key: string, change: string | null = null) {
    super(
      change
        ? `server ${server}: ${key} is sent masked, but the ${change} changed; type the value again: the destination changed, and a stored secret is never sent to a new one`
        : `server ${server}: ${key} is sent masked but no value is stored for it; type the value`,
    );
    this.name = new.target.name;
    this.key = key;
    this.reason = change ? "destination_changed" : "nothing_stored";
  }
}

/** A URL as compared: WHATWG-normalised (`HTTPS://H:443/mcp` is `https://h/mcp`), the fragment (never sent) left out. */
function comparableUrl(url: string): string {
  try {
    const u = new URL(url);
    u.hash = "";
    return u.href;
  } catch {
    // `${BASE}/mcp` is no URL until expanded: compared as written.
    return url;
  }
}

/**
 * What changed of where an entry sends its secrets, or null when nothing did: the kind of entry,
 * an http entry's URL (all of it but the fragment: scheme, host, port, path and query, so a new
 * tenant in the query is a new destination too), or a stdio entry's command or args (a new
 * command line is a new program, which may send its env anywhere). Compared as written, so a
 * `${VAR}` reference compares as the reference.
 */
export function destinationChange(next: McpServerConfig, stored: McpServerConfig): string | null {
  if (isHttpServer(next) !== isHttpServer(stored)) return "type";
  if (isHttpServer(next)) return comparableUrl(next.url) === comparableUrl((stored as typeof next).url) ? null : "url";
  const before = stored as typeof next;
  if (next.command !== before.command) return "command";
  const a = next.args ?? [];
  const b = before.args ?? [];
  return a.length === b.length && a.every((x, i) => x === b[i]) ? null : "args";
}

function keepMasked(server: string, next: Record<string, string> | undefined, stored: Record<string, string> | undefined, change: string | null): Record<string, string> | undefined {
  if (!next) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(next)) {
    if (v !== MASK) out[k] = v;
    else if (change) throw new MaskedValueError(server, k, change);
    else if (stored && Object.prototype.hasOwnProperty.call(stored, k)) out[k] = stored[k]!;
    else throw new MaskedValueError(server, k);
  }
  return out;
}

/**
 * The entry to store when `next` comes from the API: a masked value keeps the stored one for the
 * same key while the destination is the same ({@link destinationChange}); once it changed, every
 * stored secret is dropped and a masked value is refused, never silently kept.
 * @throws MaskedValueError when a masked value has nothing stored to keep, or the destination changed.
 */
export function mergeMasked(name: string, next: McpServerConfig, stored: McpServerConfig | undefined): McpServerConfig {
  const change = stored ? destinationChange(next, stored) : null;
  if (isHttpServer(next)) {
    const headers = keepMasked(name, next.headers, stored && isHttpServer(stored) ? stored.headers : undefined, change);
    return { ...next, ...(headers ? { headers } : {}) };
  }
  const env = keepMasked(name, next.env, stored && !isHttpServer(stored) ? stored.env : undefined, change);
  return { ...next, ...(env ? { env } : {}) };
}

/** How MCP servers are run; each from an environment variable. */
export interface McpLimits {
  /** A server no agent of a conversation used for this long is stopped (`ASTRION_MCP_IDLE_MS`, default 10 minutes). */
  idleMs: number;
  /** The deadline of one tool call (`ASTRION_MCP_CALL_TIMEOUT_MS`, default 60 s). */
  callTimeoutMs: number;
  /** The deadline of a start (initialize) and of a tool listing (`ASTRION_MCP_START_TIMEOUT_MS`, default 30 s). */
  startTimeoutMs: number;
  /** The first back-off after repeated crashes, doubled per crash (`ASTRION_MCP_RESTART_BACKOFF_MS`, default 1 s, at most 60 s). */
  backoffMs: number;
}

function intFrom(env: Readonly<Record<string, string | undefined>>, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  const n = Number(raw);
  return Number.isInteger(n) && n >= min ? n : fallback;
}

/** The limits from the environment. */
export function mcpLimitsFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): McpLimits {
  return {
    idleMs: intFrom(env, "ASTRION_MCP_IDLE_MS", 600_000, 100),
    callTimeoutMs: intFrom(env, "ASTRION_MCP_CALL_TIMEOUT_MS", 60_000, 100),
    startTimeoutMs: intFrom(env, "ASTRION_MCP_START_TIMEOUT_MS", 30_000, 100),
    backoffMs: intFrom(env, "ASTRION_MCP_RESTART_BACKOFF_MS", 1000, 0),
  };
}

/** Longest wait before a restart. */
const MAX_RESTART_DELAY_MS = 60_000;

/**
 * How long after its last crash a server may start again: at once after one crash (the next
 * call reconnects), then `base`, 2×`base`, 4×`base`… up to {@link MAX_RESTART_DELAY_MS}.
 */
export function restartDelay(crashes: number, base: number): number {
  if (crashes <= 1) return 0;
  return Math.min(MAX_RESTART_DELAY_MS, base * 2 ** Math.min(crashes - 2, 20));
}
