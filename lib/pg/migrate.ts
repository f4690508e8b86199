import "server-only";
/**
 * Applies the schema's versioned migrations (./migrations) on start. Safe when several instances
 * start at once: the whole run holds a session advisory lock ({@link MIGRATION_LOCK}), so one
 * instance applies what is missing while the others wait, then find it applied and apply nothing.
 * Each migration runs in one transaction with its row in `schema_migrations` (version, name, a
 * checksum of its SQL), so it is applied exactly once or not at all. A database that has a
 * migration this build does not know (a newer build migrated it), or whose applied migration's
 * SQL differs from this build's, is refused: the schema is not this build's.
 */
import { createHash } from "node:crypto";
import type { Pool } from "pg";
import { MIGRATIONS, type Migration } from "./migrations";

/** The advisory lock key of migrations (any fixed 64-bit number; this one is "astrion" in ASCII, 0x617374726f696e). */
const MIGRATION_LOCK = "27430016714238318";

/** What a {@link migrate} run found and did. */
interface MigrationReport {
  /** The versions this run applied (none when another instance had applied them). */
  applied: number[];
  /** The schema's version afterwards. */
  version: number;
}

function checksum(m: Migration): string {
  return createHash("sha256").update(m.sql).digest("hex");
}

/** Brings the database's schema up to this build's: see the file's header. */
export async function migrate(pool: Pool, migrations: readonly Migration[] = MIGRATIONS): Promise<MigrationReport> {
  const client = await pool.connect();
  let broken: unknown = null;
  // A lost connection fails the query under way; its 'error' event is heard here so it does not end the process.
  const heard = () => undefined;
  client.on("error", heard);
  try {
    await client.query(`SELECT pg_advisory_lock(${MIGRATION_LOCK})`);
    try {
      await client.query(
        "CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())",
      );
      const rows = (await client.query<{ version: number; name: string; checksum: string }>("SELECT version, name, checksum FROM schema_migrations ORDER BY version")).rows;
      const known = new Map(migrations.map((m) => [m.version, m]));
      for (const row of rows) {
        const m = known.get(row.version);
        if (!m) throw new Error(`the database's schema has migration ${row.version} (${row.name}), which this build does not know: it was migrated by a newer build`);
        if (checksum(m) !== row.checksum) throw new Error(`migration ${row.version} (${row.name}) applied to the database differs from this build's: a released migration was edited`);
      }
      const done = new Set(rows.map((r) => r.version));
      const applied: number[] = [];
      for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
        if (done.has(m.version)) continue;
        await client.query("BEGIN");
        try {
          await client.query(m.sql);
          await client.query("INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)", [m.version, m.name, checksum(m)]);
          await client.query("COMMIT");
        } catch (error) {
          await client.query("ROLLBACK").catch(() => undefined);
          throw new Error(`migration ${m.version} (${m.name}) failed: ${(error as Error).message}`, { cause: error });
        }
        applied.push(m.version);
      }
      return { applied, version: Math.max(0, ...rows.map((r) => r.version), ...applied) };
    } finally {
      await client.query(`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`).catch((error: unknown) => (broken = error));
    }
  } finally {
    client.off("error", heard);
    // A connection whose unlock failed may still hold the lock: closed, not pooled.
    client.release(broken instanceof Error ? broken : undefined);
  }
}
