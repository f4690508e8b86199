/**
 * The PostgreSQL store's migrations (lib/pg/migrate.ts) on a throwaway cluster: instances that
 * start at once on a fresh database all succeed and each migration is applied exactly once; a
 * second start applies nothing; a failed migration leaves nothing behind; a database migrated by
 * a newer build, or with an edited migration, is refused.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Pool } from "pg";
import { createPool, migrate, MIGRATIONS, type Migration } from "@/lib/pg";
import { pgClusterForFile } from "@/test/support/pg-cluster";

const pg = pgClusterForFile();
let pools: Pool[] = [];

/** `n` pools on one fresh database: `n` instances starting. */
async function instances(n: number): Promise<Pool[]> {
  const url = await pg.cluster.createDatabase();
  const made = Array.from({ length: n }, (_, i) => createPool(url, { applicationName: `instance-${i}`, max: 2 }));
  pools.push(...made);
  return made;
}

afterEach(async () => {
  await Promise.all(pools.map((p) => p.end()));
  pools = [];
});

async function applied(pool: Pool): Promise<Array<{ version: number; name: string }>> {
  return (await pool.query<{ version: number; name: string }>("SELECT version, name FROM schema_migrations ORDER BY version")).rows;
}

async function tables(pool: Pool): Promise<string[]> {
  return (await pool.query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name")).rows.map((r) => r.table_name);
}

/** The build's own migrations' versions, and the next one, which the test's migrations take. */
const OURS = MIGRATIONS.map((m) => m.version);
const NEXT = Math.max(...OURS) + 1;
const ourRows = MIGRATIONS.map((m) => ({ version: m.version, name: m.name }));

// A migration after the build's that takes a while, so instances starting at once are inside it
// together unless the lock keeps them apart (without it, the second CREATE TABLE fails, or both record it).
const SLOW: Migration = { version: NEXT, name: "slow", sql: "CREATE TABLE slow_table (a integer); SELECT pg_sleep(0.3);" };

describe("migrations", () => {
  it("four instances starting at once on a fresh database all succeed, and each migration is applied once", async () => {
    const all = await instances(4);
    const reports = await Promise.all(all.map((p) => migrate(p, [...MIGRATIONS, SLOW])));
    expect(reports.map((r) => r.version)).toEqual([NEXT, NEXT, NEXT, NEXT]);
    // Exactly one instance applied the migrations; the others found them applied.
    expect(reports.map((r) => r.applied).sort((a, b) => b.length - a.length)).toEqual([[...OURS, NEXT], [], [], []]);
    expect(await applied(all[0]!)).toEqual([...ourRows, { version: NEXT, name: "slow" }]);
    expect(await tables(all[0]!)).toEqual(["agents", "conversation_lines", "conversations", "data_folder_files", "leases", "memory_entries", "memory_state", "messages", "people_invitations", "people_secret", "schema_migrations", "shared_contexts", "slow_table"]);
  });

  it("a later start applies only what is new, and nothing when nothing is", async () => {
    const [pool] = await instances(1);
    expect(await migrate(pool!, MIGRATIONS.slice(0, 1))).toEqual({ applied: [1], version: 1 });
    expect(await migrate(pool!, MIGRATIONS.slice(0, 1))).toEqual({ applied: [], version: 1 });
    expect(await migrate(pool!)).toEqual({ applied: OURS.slice(1), version: NEXT - 1 });
    expect(await migrate(pool!, [...MIGRATIONS, SLOW])).toEqual({ applied: [NEXT], version: NEXT });
  });

  it("a migration that fails leaves nothing of itself and is not recorded; the next start applies it once fixed", async () => {
    const [pool] = await instances(1);
    const broken: Migration = { version: NEXT, name: "broken", sql: "CREATE TABLE half_made (a integer); SELECT 1 / 0;" };
    await expect(migrate(pool!, [...MIGRATIONS, broken])).rejects.toThrow(new RegExp(`migration ${NEXT} \\(broken\\) failed: division by zero`));
    expect(await applied(pool!)).toEqual(ourRows);
    expect(await tables(pool!)).not.toContain("half_made");
    const fixed: Migration = { ...broken, sql: "CREATE TABLE half_made (a integer);" };
    expect(await migrate(pool!, [...MIGRATIONS, fixed])).toEqual({ applied: [NEXT], version: NEXT });
  });

  it("refuses a database migrated by a newer build, and one whose applied migration was edited", async () => {
    const [pool] = await instances(1);
    await migrate(pool!, [...MIGRATIONS, SLOW]);
    await expect(migrate(pool!)).rejects.toThrow(new RegExp(`migration ${NEXT} \\(slow\\), which this build does not know`));
    const edited: Migration = { ...SLOW, sql: `${SLOW.sql} -- edited` };
    await expect(migrate(pool!, [...MIGRATIONS, edited])).rejects.toThrow(new RegExp(`migration ${NEXT} \\(slow\\) applied to the database differs from this build's`));
    // Neither refusal left the lock held: a good start still goes through.
    expect(await migrate(pool!, [...MIGRATIONS, SLOW])).toEqual({ applied: [], version: NEXT });
  });
});
