import "server-only";
/**
 * Team mode's people carried by `npm run migrate-data` (docs/people.md): the data folder's
 * `people/people.sqlite` (Better Auth's `user`, `account`, `session`, `verification` and
 * `astrion_invitation`) and `people/secret` into PostgreSQL (the same Better Auth tables,
 * `people_invitations`, `people_secret`), or back. Rows are copied as they are, so passwords,
 * open invitations and even signed-in sessions keep working on the other side (the cookie secret
 * goes with them). Better Auth's tables on the target are made by the people store itself (its
 * own migrations), then filled in one transaction. The two stores differ only in how values are
 * typed: SQLite keeps dates as ISO text and booleans as 0/1, PostgreSQL as timestamptz and boolean.
 */
import { randomBytes } from "node:crypto";
import { existsSync, promises as fs } from "node:fs";
import path from "node:path";
import { DatabaseSync, type SQLInputValue } from "node:sqlite";
import type { Pool, PoolClient } from "pg";
import { openSqlitePeopleStore } from "@/lib/people/sqlite-store";
import { People } from "@/lib/people/service";
import { createPgPeopleStore } from "../people-store";
import { MigrateDataError } from "./report";

/** Better Auth's tables, parents first, then the invitations: the folder's name and the database's. */
const TABLES = [
  { folder: "user", database: "user" },
  { folder: "account", database: "account" },
  { folder: "session", database: "session" },
  { folder: "verification", database: "verification" },
  { folder: "astrion_invitation", database: "people_invitations" },
] as const;

/** A placeholder signing secret: the stores are opened only to make their tables, never to sign. */
const UNUSED_SECRET = "migrate-data-makes-tables-only-000000";

const q = (name: string) => `"${name.replace(/"/g, '""')}"`;

function sqlitePath(root: string): string {
  return path.join(root, "people", "people.sqlite");
}

/** Whether the folder has people to carry. */
export function folderHasPeople(root: string): boolean {
  return existsSync(sqlitePath(root));
}

/** How many people the database holds (0 before Better Auth's tables exist). */
export async function databasePeople(pool: Pool | PoolClient): Promise<number> {
  const made = (await pool.query<{ t: string | null }>("SELECT to_regclass('public.user')::text AS t")).rows[0]?.t;
  if (!made) return 0;
  return Number((await pool.query<{ n: string }>('SELECT count(*) AS n FROM "user"')).rows[0]!.n);
}

/**
 * Copies the folder's people into the database (migrated already): refused when it holds people
 * unless `replace`. Resolves with how many people were moved.
 */
export async function peopleIntoPostgres(root: string, pool: Pool, options: { replace: boolean }): Promise<number> {
  await (await People.over(await createPgPeopleStore(pool, UNUSED_SECRET))).close();
  const source = new DatabaseSync(sqlitePath(root), { readOnly: true });
  const client = await pool.connect();
  try {
    const booleans = new Set((await client.query<{ c: string }>("SELECT table_name || '.' || column_name AS c FROM information_schema.columns WHERE table_schema = 'public' AND data_type = 'boolean'")).rows.map((r) => r.c));
    await client.query("BEGIN");
    try {
      await client.query('LOCK TABLE "user" IN EXCLUSIVE MODE');
      const held = (await databasePeople(client)) + Number((await client.query<{ n: string }>("SELECT count(*) AS n FROM people_invitations")).rows[0]!.n);
      if (held && !options.replace) throw new MigrateDataError(`the database holds people or invitations already: pass --replace to replace them with the folder's`);
      for (const t of [...TABLES].reverse()) await client.query(`DELETE FROM ${q(t.database)}`);
      for (const t of TABLES) {
        for (const row of source.prepare(`SELECT * FROM ${q(t.folder)}`).all()) {
          const columns = Object.keys(row);
          const values = columns.map((c) => (booleans.has(`${t.database}.${c}`) && row[c] !== null ? Boolean(row[c]) : row[c]));
          await client.query(`INSERT INTO ${q(t.database)} (${columns.map(q).join(", ")}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(", ")})`, values);
        }
      }
      const secret = await fs.readFile(path.join(root, "people", "secret"), "utf8").then((s) => s.trim(), () => "");
      if (secret.length >= 32) await client.query("INSERT INTO people_secret (secret) VALUES ($1) ON CONFLICT (only_row) DO UPDATE SET secret = EXCLUDED.secret", [secret]);
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    }
    return Number((source.prepare('SELECT count(*) AS n FROM "user"').get() as { n: number }).n);
  } finally {
    client.release();
    source.close();
  }
}

/** A database value as node:sqlite stores it the way Better Auth's SQLite dialect writes it. */
function forSqlite(value: unknown): SQLInputValue {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "boolean") return value ? 1 : 0;
  return value as SQLInputValue;
}

/**
 * Writes the database's people as the folder's `people/` (replacing one there): made in a staging
 * folder beside, then renamed into place. Resolves with how many were written, or null when the
 * database has neither people nor invitations (nothing is written).
 */
export async function postgresIntoPeople(pool: Pool, root: string): Promise<number | null> {
  const client = await pool.connect();
  const staging = path.join(root, `.migrating-people-${randomBytes(6).toString("hex")}`);
  try {
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    try {
      const people = await databasePeople(client);
      const invitations = Number((await client.query<{ n: string }>("SELECT count(*) AS n FROM people_invitations")).rows[0]!.n);
      if (!people && !invitations) return null;
      const secret = (await client.query<{ secret: string }>("SELECT secret FROM people_secret")).rows[0]?.secret;
      await fs.mkdir(path.join(staging, "people"), { recursive: true, mode: 0o700 });
      if (secret) await fs.writeFile(path.join(staging, "people", "secret"), `${secret}\n`, { mode: 0o600 });
      // The folder's store makes its tables (and the secret when the database had none) as a server would.
      await (await People.over(openSqlitePeopleStore(staging, {}))).close();
      const target = new DatabaseSync(sqlitePath(staging));
      try {
        target.exec("BEGIN");
        for (const t of TABLES) {
          for (const row of (await client.query<Record<string, unknown>>(`SELECT * FROM ${q(t.database)}`)).rows) {
            const columns = Object.keys(row);
            const values = columns.map((c) => (t.folder === "astrion_invitation" && /_at$/.test(c) && row[c] !== null ? Number(row[c]) : forSqlite(row[c])));
            target.prepare(`INSERT INTO ${q(t.folder)} (${columns.map(q).join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`).run(...values);
          }
        }
        target.exec("COMMIT");
      } finally {
        target.close();
      }
      await fs.rm(path.join(root, "people"), { recursive: true, force: true });
      await fs.rename(path.join(staging, "people"), path.join(root, "people"));
      return people;
    } finally {
      await client.query("ROLLBACK").catch(() => undefined);
    }
  } catch (error) {
    if (error instanceof MigrateDataError) throw error;
    throw new MigrateDataError(`the people could not be written into ${root}: ${(error as Error).message}`);
  } finally {
    client.release();
    await fs.rm(staging, { recursive: true, force: true }).catch(() => undefined);
  }
}
