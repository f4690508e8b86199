/**
 * Where the sign-in page may send a person afterwards. Only a path of this origin is allowed, so
 * `/signin?next=…` can never become an open redirect. Pure: shared by the sign-in page (server),
 * the sign-in form (browser) and `POST /api/auth/signin`.
 *
 * Browsers forgive a lot in a URL: they drop tabs and newlines anywhere, trim spaces and C0
 * controls at the ends, read `\` as `/`, and treat `//host` (and `/\host`, `/\t/host`) as another
 * host. So the value is refused when it holds any of those, before or after percent-decoding,
 * and it must survive a parse against a dummy origin without the origin changing.
 */

/** Where to go when `next` is missing or not a same-origin path. */
const DEFAULT_NEXT = "/";

/** A dummy origin: a value that resolves elsewhere changes it. `.invalid` never resolves (RFC 6761). */
const PROBE_ORIGIN = "http://x.invalid";

/** Longest `next` accepted; a real path of this app is far shorter. */
const MAX_NEXT_LENGTH = 2048;

/**
 * C0 and C1 controls, DEL, every Unicode space or invisible separator, and backslashes: none has
 * a place in a path we link to, and each can change how a browser reads the URL.
 */
const FORBIDDEN = /[\u0000-\u0020\u007f-\u00a0\u00ad\u1680\u180e\u2000-\u200f\u2028-\u202f\u205f-\u2064\u3000\ufeff\\]/;

function isSafeText(text: string): boolean {
  return !FORBIDDEN.test(text) && text.startsWith("/") && !text.startsWith("//");
}

/**
 * `next` when it is a path of this origin (normalized: `/a/../b` → `/b`), else {@link DEFAULT_NEXT}.
 * The sign-in page itself is not a target (it would only show the form again).
 */
export function safeNextPath(next: unknown): string {
  if (typeof next !== "string" || next.length === 0 || next.length > MAX_NEXT_LENGTH) return DEFAULT_NEXT;
  if (!isSafeText(next)) return DEFAULT_NEXT;
  let url: URL;
  try {
    url = new URL(next, PROBE_ORIGIN);
  } catch {
    return DEFAULT_NEXT;
  }
  if (url.origin !== PROBE_ORIGIN) return DEFAULT_NEXT;
  const target = `${url.pathname}${url.search}${url.hash}`;
  if (!isSafeText(target)) return DEFAULT_NEXT;
  // `/%2F/evil` or `/%09/evil` is harmless to a browser but may be decoded once more by a proxy
  // or a later redirect; no path of this app looks like that, so refusing it costs nothing.
  let decodedPath: string;
  try {
    decodedPath = decodeURIComponent(url.pathname);
  } catch {
    return DEFAULT_NEXT; // malformed percent-encoding
  }
  if (!isSafeText(decodedPath)) return DEFAULT_NEXT;
  if (url.pathname === "/signin" || url.pathname.startsWith("/signin/")) return DEFAULT_NEXT;
  return target;
}
