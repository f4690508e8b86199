import "server-only";
/**
 * The people store on PostgreSQL (lib/people/store.ts; docs/people.md): every instance of the
 * scaled backend reads and writes the same people, sessions and invitations, whatever data folder
 * it has. Better Auth drives its own tables through the pool (its documented PostgreSQL support:
 * a `pg` Pool as `database`); its migrations run under a session advisory lock
 * ({@link PEOPLE_LOCK}) so instances starting at once do not both create a table, and under the
 * same lock a unique index on the lower-cased display name is made, so two instances cannot both
 * let one name join. Invitations and the cookie secret are migration 5's tables
 * (./migrations/0005-people.ts). Sessions are looked up in the database on every request (never
 * cached), so deleting a person's sessions signs them out on every instance at once.
 */
import { randomBytes } from "node:crypto";
import type { Pool } from "pg";
import type { InvitationRow, PeopleStore, TakenInvitation, UserRow } from "@/lib/people/store";

/** The advisory lock key of Better Auth's migrations (any fixed 64-bit number, not the schema's: "people" in ASCII). */
const PEOPLE_LOCK = "112247711245413";

const INVITATION_COLUMNS = "id, role, created_by, created_at, expires_at, used_at, used_by";
const USER_COLUMNS = 'id, name, email, role, "createdAt" FROM "user"';

/** A row of `people_invitations` as `pg` gives it (bigint as text). */
type InvitationRecord = Omit<InvitationRow, "created_at" | "expires_at" | "used_at"> & { created_at: string; expires_at: string; used_at: string | null };

function invitationOf(r: InvitationRecord): InvitationRow {
  return { ...r, created_at: Number(r.created_at), expires_at: Number(r.expires_at), used_at: r.used_at === null ? null : Number(r.used_at) };
}

class PgPeopleStore implements PeopleStore {
  readonly kind = "postgresql";
  readonly #pool: Pool;
  readonly secret: string;

  constructor(pool: Pool, secret: string) {
    this.#pool = pool;
    this.secret = secret;
  }

  get database() {
    return this.#pool;
  }

  async migrateAuth(run: () => Promise<void>): Promise<void> {
    const client = await this.#pool.connect();
    let broken: unknown = null;
    try {
      await client.query(`SELECT pg_advisory_lock(${PEOPLE_LOCK})`);
      try {
        await run();
        await this.#pool.query('CREATE UNIQUE INDEX IF NOT EXISTS people_user_name_lower ON "user" (lower(name))');
      } finally {
        await client.query(`SELECT pg_advisory_unlock(${PEOPLE_LOCK})`).catch((error: unknown) => (broken = error));
      }
    } finally {
      // A connection whose unlock failed may still hold the lock: closed, not pooled.
      client.release(broken instanceof Error ? broken : undefined);
    }
  }

  async users(): Promise<UserRow[]> {
    return (await this.#pool.query<UserRow>(`SELECT ${USER_COLUMNS} ORDER BY "createdAt", id`)).rows;
  }

  async userByName(name: string): Promise<UserRow | undefined> {
    // lower() of the C locale folds ASCII only, as SQLite's NOCASE does on the data folder.
    return (await this.#pool.query<UserRow>(`SELECT ${USER_COLUMNS} WHERE lower(name) = lower($1)`, [name.trim()])).rows[0];
  }

  async userById(id: string): Promise<UserRow | undefined> {
    return (await this.#pool.query<UserRow>(`SELECT ${USER_COLUMNS} WHERE id = $1`, [id])).rows[0];
  }

  async sessionCount(userId: string): Promise<number> {
    return Number((await this.#pool.query<{ n: string }>('SELECT count(*) AS n FROM "session" WHERE "userId" = $1', [userId])).rows[0]?.n ?? 0);
  }

  async addInvitation(row: InvitationRow, tokenHash: string): Promise<void> {
    await this.#pool.query("INSERT INTO people_invitations (id, token_hash, role, created_by, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)", [
      row.id,
      tokenHash,
      row.role,
      row.created_by,
      row.created_at,
      row.expires_at,
    ]);
  }

  async openInvitations(now: number): Promise<InvitationRow[]> {
    const { rows } = await this.#pool.query<InvitationRecord>(`SELECT ${INVITATION_COLUMNS} FROM people_invitations WHERE used_at IS NULL AND expires_at > $1 ORDER BY created_at DESC`, [now]);
    return rows.map(invitationOf);
  }

  async takeInvitation(hash: string, now: number): Promise<TakenInvitation> {
    // One statement: the row lock of the UPDATE makes a second taker wait, then find it used.
    const taken = await this.#pool.query<InvitationRecord>(
      `UPDATE people_invitations SET used_at = $2 WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2 RETURNING ${INVITATION_COLUMNS}`,
      [hash, now],
    );
    if (taken.rows[0]) return { ok: true, row: invitationOf(taken.rows[0]) };
    const found = (await this.#pool.query<InvitationRecord>(`SELECT ${INVITATION_COLUMNS} FROM people_invitations WHERE token_hash = $1`, [hash])).rows[0];
    if (!found) return { ok: false, reason: "unknown" };
    return { ok: false, reason: found.used_at !== null ? "used" : "expired" };
  }

  async giveBackInvitation(id: string): Promise<void> {
    await this.#pool.query("UPDATE people_invitations SET used_at = NULL WHERE id = $1 AND used_by IS NULL", [id]);
  }

  async markInvitationUsedBy(id: string, personId: string): Promise<void> {
    await this.#pool.query("UPDATE people_invitations SET used_by = $2 WHERE id = $1", [id, personId]);
  }

  async close(): Promise<void> {
    // The pool is the backend's: it ends it at shutdown.
  }
}

/**
 * The people store on `pool` (migrated: migration 5 applied). The cookie secret is `secret` when
 * given (BETTER_AUTH_SECRET), else the database's, made by the first instance to ask.
 */
export async function createPgPeopleStore(pool: Pool, secret: string | null = null): Promise<PeopleStore> {
  if (!secret) {
    await pool.query("INSERT INTO people_secret (secret) VALUES ($1) ON CONFLICT DO NOTHING", [randomBytes(32).toString("base64url")]);
    secret = (await pool.query<{ secret: string }>("SELECT secret FROM people_secret")).rows[0]!.secret;
  }
  return new PgPeopleStore(pool, secret);
}
