import "server-only";
/**
 * The data folder's people store: `<root>/people/people.sqlite` (Node's built-in `node:sqlite`,
 * which Better Auth's Kysely adapter drives directly: no native addon) holding Better Auth's
 * tables and `astrion_invitation`, and `<root>/people/secret` (mode 0600), the cookie secret
 * made once per data folder unless BETTER_AUTH_SECRET is set. node:sqlite is synchronous, so
 * nothing awaits between an invitation's check and its write. Its WAL is single-host: the
 * scaled backend keeps people in PostgreSQL instead (lib/pg/people-store.ts).
 */
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { secretFromEnv } from "./auth";
import type { InvitationRow, PeopleStore, TakenInvitation, UserRow } from "./store";

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

const INVITATION_COLUMNS = "id, role, created_by, created_at, expires_at, used_at, used_by";
const USER_COLUMNS = 'id, name, email, role, createdAt FROM "user"';

/** The secret that signs session cookies: BETTER_AUTH_SECRET, else the data folder's own. */
function secretOf(dir: string, env: Readonly<Record<string, string | undefined>>): string {
  const given = secretFromEnv(env);
  if (given) return given;
  const file = path.join(dir, "secret");
  if (existsSync(file)) {
    const kept = readFileSync(file, "utf8").trim();
    if (kept.length >= 32) return kept;
  }
  const made = randomBytes(32).toString("base64url");
  writeFileSync(file, `${made}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return made;
}

class SqlitePeopleStore implements PeopleStore {
  readonly kind = "sqlite";
  readonly #db: DatabaseSync;
  readonly secret: string;

  constructor(db: DatabaseSync, secret: string) {
    this.#db = db;
    this.secret = secret;
    db.exec(SCHEMA);
  }

  get database() {
    return this.#db;
  }

  async migrateAuth(run: () => Promise<void>): Promise<void> {
    // One server owns a data folder (its lock), so nobody else migrates it at the same time.
    await run();
  }

  async users(): Promise<UserRow[]> {
    return this.#db.prepare(`SELECT ${USER_COLUMNS} ORDER BY createdAt, id`).all() as unknown as UserRow[];
  }

  async userByName(name: string): Promise<UserRow | undefined> {
    return this.#db.prepare(`SELECT ${USER_COLUMNS} WHERE name = ? COLLATE NOCASE`).get(name.trim()) as unknown as UserRow | undefined;
  }

  async userById(id: string): Promise<UserRow | undefined> {
    return this.#db.prepare(`SELECT ${USER_COLUMNS} WHERE id = ?`).get(id) as unknown as UserRow | undefined;
  }

  async sessionCount(userId: string): Promise<number> {
    const { n } = this.#db.prepare('SELECT count(*) AS n FROM "session" WHERE userId = ?').get(userId) as { n: number };
    return Number(n);
  }

  async addInvitation(row: InvitationRow, tokenHash: string): Promise<void> {
    this.#db
      .prepare("INSERT INTO astrion_invitation(id, token_hash, role, created_by, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)")
      .run(row.id, tokenHash, row.role, row.created_by, row.created_at, row.expires_at);
  }

  async openInvitations(now: number): Promise<InvitationRow[]> {
    return this.#db.prepare(`SELECT ${INVITATION_COLUMNS} FROM astrion_invitation WHERE used_at IS NULL AND expires_at > ? ORDER BY created_at DESC`).all(now) as unknown as InvitationRow[];
  }

  async takeInvitation(hash: string, now: number): Promise<TakenInvitation> {
    const taken = this.#db.prepare("UPDATE astrion_invitation SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?").run(now, hash, now);
    const row = this.#db.prepare(`SELECT ${INVITATION_COLUMNS} FROM astrion_invitation WHERE token_hash = ?`).get(hash) as unknown as InvitationRow | undefined;
    if (Number(taken.changes) === 1 && row) return { ok: true, row };
    if (!row) return { ok: false, reason: "unknown" };
    return { ok: false, reason: row.used_at !== null ? "used" : "expired" };
  }

  async giveBackInvitation(id: string): Promise<void> {
    this.#db.prepare("UPDATE astrion_invitation SET used_at = NULL WHERE id = ? AND used_by IS NULL").run(id);
  }

  async markInvitationUsedBy(id: string, personId: string): Promise<void> {
    this.#db.prepare("UPDATE astrion_invitation SET used_by = ? WHERE id = ?").run(personId, id);
  }

  async close(): Promise<void> {
    if (this.#db.isOpen) this.#db.close();
  }
}

/** Opens (creating when missing) `<root>/people/people.sqlite` and the folder's cookie secret. */
export function openSqlitePeopleStore(root: string, env: Readonly<Record<string, string | undefined>> = process.env): PeopleStore {
  const dir = path.join(root, "people");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const secret = secretOf(dir, env);
  const db = new DatabaseSync(path.join(dir, "people.sqlite"), { timeout: 5000 });
  db.exec("PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON;");
  return new SqlitePeopleStore(db, secret);
}
