import "server-only";
/**
 * Invitations to a team: what a link is made of, whichever store keeps it (./store.ts). A link
 * works once and expires; only the SHA-256 of its token is stored, so the link is shown once,
 * when made, and a copy of the database gives nobody a way in. Taking one is the store's single
 * conditional write (`used_at IS NULL AND expires_at > now`), so two people opening the same link
 * at once, on one instance or two, cannot both get in.
 */
import { createHash, randomBytes } from "node:crypto";
import type { PersonRole } from "@/lib/contracts/people";
import type { InvitationRow } from "./store";

/** The stored form of a token. */
export function tokenHash(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/** A new invitation for `role`, working for `ttlMs`: its row, its token (shown this once) and the token's hash (stored). */
export function newInvitation(role: PersonRole, createdBy: string, ttlMs: number, now = Date.now()): { row: InvitationRow; token: string; hash: string } {
  const token = randomBytes(24).toString("base64url");
  const row: InvitationRow = { id: `inv_${randomBytes(6).toString("hex")}`, role, created_by: createdBy, created_at: now, expires_at: now + ttlMs, used_at: null, used_by: null };
  return { row, token, hash: tokenHash(token) };
}
