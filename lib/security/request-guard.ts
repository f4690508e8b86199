/**
 * The localhost safety rules, as pure functions of a request's method, path and headers, so
 * `proxy.ts` stays a thin adapter and every rule is unit-tested without a server.
 *
 * - Host allowlist: only localhost / 127.0.0.1 / [::1] (any port) and ASTRION_ALLOWED_HOSTS.
 *   A DNS-rebinding page reaches us with its own host name in `Host`, so it gets 403.
 * - State-changing requests must be `application/json` (a cross-site HTML form can only send
 *   `text/plain`, urlencoded or multipart without a CORS preflight) and, when they carry an
 *   `Origin`, it must be an allowed host.
 * - ASTRION_TOKEN, when set, is required on every API request (bearer or cookie).
 */

/** Methods that never change state. */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** The cookie the sign-in page sets. */
export const TOKEN_COOKIE = "astrion_token";

/** Paths reachable without the token, so a person can sign in. */
const PUBLIC_PATHS = new Set(["/signin", "/api/auth/signin", "/api/health"]);

export interface GuardConfig {
  /** Extra host names (no port) allowed besides the loopback names. */
  allowedHosts: readonly string[];
  /** The access token, or undefined when none is required. */
  token?: string;
}

export interface GuardRequest {
  method: string;
  pathname: string;
  host: string | null;
  origin: string | null;
  contentType: string | null;
  authorization: string | null;
  tokenCookie: string | null;
}

export type GuardVerdict =
  | { ok: true }
  | { ok: false; status: 401 | 403 | 415; code: string; message: string; redirectToSignIn?: boolean };

/** Reads ASTRION_ALLOWED_HOSTS (comma separated) and ASTRION_TOKEN. */
export function guardConfigFromEnv(env: Record<string, string | undefined> = process.env): GuardConfig {
  const allowedHosts = (env.ASTRION_ALLOWED_HOSTS ?? "")
    .split(",")
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean)
    .map(hostName);
  const token = env.ASTRION_TOKEN ? env.ASTRION_TOKEN : undefined;
  return { allowedHosts, token };
}

/** The host name of a `Host` header value without its port: `[::1]:3000` → `[::1]`. */
export function hostName(hostHeader: string): string {
  const h = hostHeader.trim().toLowerCase();
  if (h.startsWith("[")) {
    const end = h.indexOf("]");
    return end === -1 ? h : h.slice(0, end + 1);
  }
  const colon = h.indexOf(":");
  return colon === -1 ? h : h.slice(0, colon);
}

/** True when `hostHeader` names this machine or an explicitly allowed host. */
export function isAllowedHost(hostHeader: string | null, config: GuardConfig): boolean {
  if (!hostHeader) return false;
  const name = hostName(hostHeader);
  if (!/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d{1,5})?$/.test(hostHeader.trim().toLowerCase())) return false;
  if (name === "localhost" || name === "127.0.0.1" || name === "[::1]") return true;
  return config.allowedHosts.includes(name);
}

/** True when an `Origin` header names an allowed host over http(s). `null` origins are refused. */
export function isAllowedOrigin(origin: string, config: GuardConfig): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  return isAllowedHost(url.host, config);
}

/** Constant-time string comparison, so the token cannot be guessed a character at a time. */
export function safeEqual(a: string, b: string): boolean {
  const len = Math.max(a.length, b.length);
  let diff = a.length ^ b.length;
  for (let i = 0; i < len; i++) diff |= (a.charCodeAt(i) || 0) ^ (b.charCodeAt(i) || 0);
  return diff === 0;
}

function presentedToken(req: GuardRequest): string | null {
  const auth = req.authorization?.trim();
  if (auth && /^bearer\s+/i.test(auth)) return auth.replace(/^bearer\s+/i, "");
  return req.tokenCookie;
}

/** Decides whether a request may go on. The first failing rule answers. */
export function checkRequest(req: GuardRequest, config: GuardConfig): GuardVerdict {
  if (!isAllowedHost(req.host, config)) {
    return {
      ok: false,
      status: 403,
      code: "forbidden",
      message: `Host "${req.host ?? ""}" is not allowed. Open Astrion Team at http://127.0.0.1 or localhost, or add the host to ASTRION_ALLOWED_HOSTS.`,
    };
  }
  const method = req.method.toUpperCase();
  const isApi = req.pathname === "/api" || req.pathname.startsWith("/api/");
  if (!SAFE_METHODS.has(method)) {
    if (req.origin !== null && !isAllowedOrigin(req.origin, config)) {
      return { ok: false, status: 403, code: "forbidden", message: `Origin "${req.origin}" may not change anything here.` };
    }
    const type = (req.contentType ?? "").split(";")[0]!.trim().toLowerCase();
    if (type !== "application/json") {
      return {
        ok: false,
        status: 415,
        code: "unsupported_media_type",
        message: "State-changing requests must have content-type application/json.",
      };
    }
  }
  if (config.token && !PUBLIC_PATHS.has(req.pathname)) {
    const given = presentedToken(req);
    if (given === null || !safeEqual(given, config.token)) {
      return {
        ok: false,
        status: 401,
        code: "unauthorized",
        message: "This server requires an access token (Authorization: Bearer …, or sign in at /signin).",
        redirectToSignIn: !isApi && SAFE_METHODS.has(method),
      };
    }
  }
  return { ok: true };
}
