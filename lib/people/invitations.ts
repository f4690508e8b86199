import "server-only";
/**
 * Invitations to a team, in the people database beside Better Auth's tables. A link works once
 * and expires; only the SHA-256 of its token is stored, so the link is shown once, when made, and
 * a copy of the database gives nobody a way in. Using one is a single conditional UPDATE
 * (`used_at IS NULL AND expires_at > now`): node:sqlite is synchronous, so two people opening the
 * same link at once cannot both get in.
 */
import { createHash, randomBytes } from "node:crypto";
import type { DatabaseSync } from "node:sqlite";
import type { PersonRole } from "@/lib/contracts/people";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS astrion_invitation(
  id TEXT PRIMARY KEY,
  token_hash TEXT NOT NULL UNIQUE,
  role TEXT NOT NULL,
  created_by TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at INTEGER,
  used_by TEXT
);
`;

/** An invitation as stored (times in epoch milliseconds). */
export interface InvitationRow {
  id: string;
  role: PersonRole;
  created_by: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
  used_by: string | null;
}

/** Why a token does not let anyone in. */
export type InvitationRefusal = "unknown" | "used" | "expired";

function hashOf(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/** The invitations table of one people database. */
export class Invitations {
  readonly #db: DatabaseSync;

  constructor(db: DatabaseSync) {
    this.#db = db;
    db.exec(SCHEMA);
  }

  /** A new invitation for `role`, working for `ttlMs`; the token is returned this once. */
  create(role: PersonRole, createdBy: string, ttlMs: number, now = Date.now()): { row: InvitationRow; token: string } {
    const token = randomBytes(24).toString("base64url");
    const row: InvitationRow = { id: `inv_${randomBytes(6).toString("hex")}`, role, created_by: createdBy, created_at: now, expires_at: now + ttlMs, used_at: null, used_by: null };
    this.#db
      .prepare("INSERT INTO astrion_invitation(id, token_hash, role, created_by, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)")
      .run(row.id, hashOf(token), role, createdBy, row.created_at, row.expires_at);
    return { row, token };
  }

  /** Invitations neither used nor expired, newest first. */
  open(now = Date.now()): InvitationRow[] {
    return this.#db.prepare("SELECT id, role, created_by, created_at, expires_at, used_at, used_by FROM astrion_invitation WHERE used_at IS NULL AND expires_at > ? ORDER BY created_at DESC").all(now) as unknown as InvitationRow[];
  }

  /**
   * Takes the invitation of `token` for good: its row, or why not. Nothing awaits between the
   * check and the write, so it is taken once.
   */
  take(token: string, now = Date.now()): { ok: true; row: InvitationRow } | { ok: false; reason: InvitationRefusal } {
    const hash = hashOf(token);
    const taken = this.#db.prepare("UPDATE astrion_invitation SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?").run(now, hash, now);
    const row = this.#db.prepare("SELECT id, role, created_by, created_at, expires_at, used_at, used_by FROM astrion_invitation WHERE token_hash = ?").get(hash) as unknown as InvitationRow | undefined;
    if (Number(taken.changes) === 1 && row) return { ok: true, row };
    if (!row) return { ok: false, reason: "unknown" };
    return { ok: false, reason: row.used_at !== null ? "used" : "expired" };
  }

  /** Gives a taken invitation back (the sign-up after taking it failed, e.g. a name in use). */
  giveBack(id: string): void {
    this.#db.prepare("UPDATE astrion_invitation SET used_at = NULL WHERE id = ? AND used_by IS NULL").run(id);
  }

  /** Records who joined with a taken invitation. */
  markUsedBy(id: string, personId: string): void {
    this.#db.prepare("UPDATE astrion_invitation SET used_by = ? WHERE id = ?").run(personId, id);
  }
}
