/**
 * Who is asking, for per-client limits (sign-in throttling, SSE streams). The app is served
 * directly (no reverse proxy), so the only address worth trusting is the TCP peer's.
 *
 * Next gives route handlers no socket, and it fills `x-forwarded-for` only when the client did
 * not send one, so that header is whatever a client wants it to be. `scripts/serve.mjs` (what
 * `npm start` runs) therefore stamps every request with the socket's address in
 * {@link CLIENT_ADDRESS_HEADER}, overwriting anything the client sent, and marks the process with
 * {@link CLIENT_ADDRESS_STAMPED_ENV}. Without that mark (e.g. `next dev`) the header is not
 * believed and every client shares one key. Pure.
 */

/** The request header that carries the socket's remote address. */
export const CLIENT_ADDRESS_HEADER = "x-astrion-client-address";

/** Set to `1` by scripts/serve.mjs in its own process: the header above is then its, not a client's. */
const CLIENT_ADDRESS_STAMPED_ENV = "ASTRION_STAMPS_CLIENT_ADDRESS";

/** The key of every client when the address cannot be known. */
export const UNKNOWN_CLIENT = "unknown";

/** An address as a stable key: IPv4-mapped IPv6 (`::ffff:127.0.0.1`) becomes plain IPv4. */
export function normalizeAddress(address: string): string {
  const a = address.trim().toLowerCase();
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(a);
  return mapped ? mapped[1]! : a;
}

/**
 * The client's address as a key: the stamped socket address when this process stamps it, else
 * {@link UNKNOWN_CLIENT}. `x-forwarded-for` is never read.
 */
export function clientAddressOf(
  headers: { get(name: string): string | null },
  env: Readonly<Record<string, string | undefined>> = process.env,
): string {
  if (env[CLIENT_ADDRESS_STAMPED_ENV] !== "1") return UNKNOWN_CLIENT;
  const stamped = headers.get(CLIENT_ADDRESS_HEADER);
  if (!stamped || stamped.length > 100) return UNKNOWN_CLIENT;
  return normalizeAddress(stamped);
}
