/**
 * Who a request is from, as proxy.ts found it, handed to the route handlers and pages in one
 * request header. The proxy removes whatever a client sent under that name and sets its own, so
 * a handler can trust it; with no configuration (localhost) no header is set and the person at
 * the machine is the owner. Pure.
 */
import { IdentitySchema, OWNER_ID, type Identity } from "@/lib/contracts/people";

/** The cookie of a person's session (Better Auth's, with the `astrion` prefix: lib/people/auth.ts). */
export const SESSION_COOKIE = "astrion.session_token";

/** The request header that carries the identity the proxy found. */
export const IDENTITY_HEADER = "x-astrion-identity";

/** The identity as a header value (base64url JSON: names may hold any character). */
export function encodeIdentity(identity: Identity): string {
  return Buffer.from(JSON.stringify(identity), "utf8").toString("base64url");
}

/** The identity of a header value, or null when absent or not one. */
export function decodeIdentity(value: string | null | undefined): Identity | null {
  if (!value || value.length > 2000) return null;
  try {
    const parsed = IdentitySchema.safeParse(JSON.parse(Buffer.from(value, "base64url").toString("utf8")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * The owner: the person at the machine (`local`) or whoever holds ASTRION_TOKEN (`token`). Named
 * ASTRION_OWNER_NAME, else the operating system's user name (`USER`, `LOGNAME`), else "Owner".
 */
export function ownerIdentity(via: "local" | "token", env: Readonly<Record<string, string | undefined>> = process.env): Identity {
  const name = (env.ASTRION_OWNER_NAME?.trim() || env.USER?.trim() || env.LOGNAME?.trim() || "Owner").slice(0, 80);
  return { id: OWNER_ID, name, role: "owner", via };
}
