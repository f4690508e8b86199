/**
 * The people store on PostgreSQL (lib/pg/people-store.ts), on a throwaway cluster: the people
 * store's conformance suite (test/conformance/people-store.ts), each world a fresh database with
 * the schema migrated and two services on their own pools standing for two instances; and what
 * only the scaled backend has: instances starting at once on a fresh database all get Better
 * Auth's tables (its migrations run under an advisory lock) and one shared cookie secret, so a
 * session made through one is good on the other.
 */
import { afterAll, describe, expect, it } from "vitest";
import type { Pool } from "pg";
import { createPgPeopleStore, createPool, migrate } from "@/lib/pg";
import { People } from "@/lib/people/service";
import { pgClusterForFile } from "@/test/support/pg-cluster";
import { browser, describePeopleStore } from "../conformance/people-store";

const pg = pgClusterForFile();
const pools: Pool[] = [];

afterAll(async () => {
  await Promise.all(pools.map((p) => p.end()));
});

function poolOn(url: string): Pool {
  const pool = createPool(url, { max: 4 });
  pools.push(pool);
  return pool;
}

describePeopleStore({
  name: "PostgreSQL",
  racingInstances: true,
  async world() {
    const url = await pg.cluster.createDatabase();
    const admin = poolOn(url);
    await migrate(admin);
    return {
      open: async (config) => People.over(await createPgPeopleStore(poolOn(url)), config),
      tokenHashes: async () => (await admin.query<{ token_hash: string }>("SELECT token_hash FROM people_invitations")).rows.map((r) => r.token_hash),
    };
  },
});

describe("people on PostgreSQL, instances starting at once", () => {
  it("three instances opening a fresh database at the same moment all start, make Better Auth's tables once and share one cookie secret", async () => {
    const url = await pg.cluster.createDatabase();
    const instances = [poolOn(url), poolOn(url), poolOn(url)];
    const people = await Promise.all(
      instances.map(async (pool) => {
        await migrate(pool);
        return People.over(await createPgPeopleStore(pool));
      }),
    );
    try {
      const tables = (await instances[0]!.query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name")).rows.map((r) => r.table_name);
      expect(tables).toEqual(expect.arrayContaining(["account", "people_invitations", "people_secret", "session", "user", "verification"]));
      expect(Number((await instances[0]!.query<{ n: string }>("SELECT count(*) AS n FROM people_secret")).rows[0]!.n)).toBe(1);
      const [a, b, c] = people as [People, People, People];
      const joined = await a.join((await b.invite("editor", "owner")).token, "Ada", "correct-horse-1");
      expect((await c.identify(browser(joined.cookies)))?.name).toBe("Ada");
    } finally {
      await Promise.all(people.map((p) => p.close()));
    }
  });

  it("BETTER_AUTH_SECRET, when given, signs instead of the database's secret: a cookie of one secret is nobody under another", async () => {
    const url = await pg.cluster.createDatabase();
    await migrate(poolOn(url));
    const given = "a-secret-given-by-the-operator-0123456789";
    const a = await People.over(await createPgPeopleStore(poolOn(url), given));
    const b = await People.over(await createPgPeopleStore(poolOn(url)));
    try {
      const joined = await a.join((await a.invite("viewer", "owner")).token, "Ada", "correct-horse-1");
      expect((await a.identify(browser(joined.cookies)))?.name).toBe("Ada");
      expect(await b.identify(browser(joined.cookies))).toBeNull();
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
