/**
 * The localhost safety rules, as pure functions of a request's method, path and headers, so
 * `proxy.ts` stays a thin adapter and every rule is unit-tested without a server.
 *
 * - Host allowlist: only localhost / 127.0.0.1 / [::1] (any port) and ASTRION_ALLOWED_HOSTS.
 *   A DNS-rebinding page reaches us with its own host name in `Host`, so it gets 403.
 * - State-changing requests must be `application/json` (a cross-site HTML form can only send
 *   `text/plain`, urlencoded or multipart without a CORS preflight), or for an upload route one of
 *   its {@link RAW_BODY_TYPES}, and, when they carry an `Origin`, it must be an allowed host.
 * - A path with malformed percent-encoding is refused here (400 on the API, 404 for pages), before
 *   Next's router tries to decode it into route params and answers 500.
 * - ASTRION_TOKEN, when set, is required on every API request and page (bearer or cookie), or a
 *   person's session (team mode: proxy.ts checks the session), except the sign-in and join pages
 *   and what they need to load: their scripts, styles and fonts (`/_next/static/`) and icons,
 *   which are build output and hold no data.
 */

/**
 * Routes that take a raw body of another type than JSON (an uploaded file), with the types they
 * take. None of them is a type an HTML form or a "simple" cross-site request can send (those are
 * text/plain, urlencoded and multipart), so a cross-site page still needs a CORS preflight, which
 * is never granted: the CSRF protection of the JSON-only rule holds.
 */
const RAW_BODY_TYPES: Readonly<Record<string, readonly string[]>> = {
  "/api/conversations/import": ["application/zip"],
};

/** Methods that never change state. */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** The cookie the sign-in page sets. */
export const TOKEN_COOKIE = "astrion_token";

/**
 * Paths reachable without the token, so a person can sign in (and out). `/api/health` answers
 * only "up" without the token (the route checks it again).
 */
const PUBLIC_PATHS = new Set(["/signin", "/api/auth/signin", "/api/auth/signout", "/api/health", "/join", "/api/people/join"]);

/** Whether a request needs no sign-in: the sign-in and join pages and what they call, and build assets. */
export function isPublicRequest(method: string, pathname: string): boolean {
  return PUBLIC_PATHS.has(pathname) || isPublicAsset(method, pathname);
}

/** Icons a browser asks for on its own (`app/icon.*`, `app/apple-icon.*` conventions and favicon). */
const ICON_PATH = /^\/(?:favicon\.ico|(?:apple-)?icon(?:[.-][A-Za-z0-9._-]{0,60})?)$/;

/**
 * Build output every page (the sign-in page included) needs: scripts, styles, fonts under
 * `/_next/static/`, and icons. Read-only, and never routed to an API handler or a page. The
 * pathname is the normalized one (`..` already resolved), so `/_next/static/../api` is not here.
 */
export function isPublicAsset(method: string, pathname: string): boolean {
  const m = method.toUpperCase();
  if (m !== "GET" && m !== "HEAD") return false;
  if (pathname.startsWith("/_next/static/")) return !/%2f|%5c|\\/i.test(pathname);
  return ICON_PATH.test(pathname);
}

/** True when some segment of `pathname` is not valid percent-encoded UTF-8 (`%FF`, `%C0%AE`, `%E0%A4%A`). */
export function hasMalformedEncoding(pathname: string): boolean {
  if (!pathname.includes("%")) return false;
  try {
    decodeURIComponent(pathname);
    return false;
  } catch {
    return true;
  }
}

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
  /**
   * The request carries a person's session cookie (team mode, issue 32): it may go on without the
   * token, and proxy.ts then checks the session itself.
   */
  sessionCookie?: boolean;
}

export type GuardVerdict =
  | { ok: true }
  | {
      ok: false;
      status: 400 | 401 | 403 | 415;
      code: string;
      message: string;
      /** A page request without the token: send the browser to the sign-in page. */
      redirectToSignIn?: boolean;
      /** A page request for a path that cannot name anything: show the not-found page. */
      notFoundPage?: boolean;
    };

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

function presentedToken(req: Pick<GuardRequest, "authorization" | "tokenCookie">): string | null {
  const auth = req.authorization?.trim();
  if (auth && /^bearer\s+/i.test(auth)) return auth.replace(/^bearer\s+/i, "");
  return req.tokenCookie;
}

/** True when no token is configured, or the request carries the right one (bearer or cookie). */
export function hasValidToken(req: Pick<GuardRequest, "authorization" | "tokenCookie">, config: GuardConfig): boolean {
  if (!config.token) return true;
  const given = presentedToken(req);
  return given !== null && safeEqual(given, config.token);
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
    const raw = Object.hasOwn(RAW_BODY_TYPES, req.pathname) ? RAW_BODY_TYPES[req.pathname]! : [];
    if (type !== "application/json" && !(method === "POST" && raw.includes(type))) {
      return {
        ok: false,
        status: 415,
        code: "unsupported_media_type",
        message: raw.length
          ? `This request must have content-type ${raw.join(" or ")}.`
          : "State-changing requests must have content-type application/json.",
      };
    }
  }
  if (hasMalformedEncoding(req.pathname)) {
    return {
      ok: false,
      status: 400,
      code: "bad_request",
      message: "The URL path has malformed percent-encoding (it is not valid UTF-8).",
      notFoundPage: !isApi,
    };
  }
  if (config.token && !PUBLIC_PATHS.has(req.pathname) && !isPublicAsset(method, req.pathname)) {
    if (!hasValidToken(req, config) && !req.sessionCookie) {
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
