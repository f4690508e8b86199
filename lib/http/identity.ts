import "server-only";
/**
 * Who a request handled by a route is from: the identity proxy.ts put in its header (team mode),
 * else, with no configuration, the owner at the machine. A team-mode request without one never
 * passed the proxy's check, so it is refused rather than taken for the owner.
 */
import { headers } from "next/headers";
import { AstrionError } from "@/lib/contracts/errors";
import type { Author, Identity } from "@/lib/contracts/people";
import { decodeIdentity, guardConfigFromEnv, IDENTITY_HEADER, ownerIdentity } from "@/lib/security";

/** The identity of `request` (see the module comment). */
export function identityOf(request: Request): Identity {
  const found = decodeIdentity(request.headers.get(IDENTITY_HEADER));
  if (found) return found;
  if (guardConfigFromEnv().token) throw new AstrionError("unauthorized", "Sign in first (/signin).");
  return ownerIdentity("local");
}

/** The author of what `request` does: who, without the role. */
export function authorOf(request: Request): Author {
  const { id, name, via } = identityOf(request);
  return { id, name, via };
}

/**
 * Who the page being rendered is for (server components): the proxy's identity, the owner at an
 * unconfigured machine, or null (team mode, nobody signed in: the sign-in and join pages).
 */
export async function pageIdentity(): Promise<Identity | null> {
  const found = decodeIdentity((await headers()).get(IDENTITY_HEADER));
  if (found) return found;
  return guardConfigFromEnv().token ? null : ownerIdentity("local");
}
