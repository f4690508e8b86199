/**
 * `npm run migrate-data` carries team mode's people both ways (lib/pg/migrate-data/people.ts), on
 * a throwaway cluster: a data folder's people, with a password, a signed-in session and an open
 * invitation, moved into PostgreSQL work there as they did (the password signs in, the session's
 * cookie still names its person, the invitation still lets one person in); written back into a
 * new folder they work on the data folder again, and the folder's store opens it as its own. A
 * database holding people refuses a second move without --replace, before any conversation moves.
 */
import { mkdirSync, mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Pool } from "pg";
import { createPgPeopleStore, createPool } from "@/lib/pg";
import { main } from "@/lib/pg/migrate-data/cli";
import { People } from "@/lib/people/service";
import { pgClusterForFile } from "@/test/support/pg-cluster";
import { browser } from "../conformance/people-store";

const pg = pgClusterForFile();
const pools: Pool[] = [];
const PASSWORD = "correct-horse-1";

afterAll(async () => {
  await Promise.all(pools.map((p) => p.end()));
});

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

function dataFolder(): string {
  const root = mkdtempSync(path.join(os.tmpdir(), "astrion-migrate-people-"));
  mkdirSync(path.join(root, "conversations"));
  return root;
}

describe("migrate-data carries people", () => {
  it("folder → PostgreSQL → folder: passwords, sessions and open invitations keep working on each side", async () => {
    const from = dataFolder();
    const folder = await People.open(from);
    const ada = await folder.join((await folder.invite("approver", "owner")).token, "Ada", PASSWORD);
    const { token } = await folder.invite("viewer", "owner");
    await folder.close();

    const url = await pg.cluster.createDatabase();
    const moved = await run("--from", from, "--to", url);
    expect(moved.code, moved.err).toBe(0);
    expect(moved.out).toMatch(/moved 1 person\(s\)/);
    const pool = createPool(url, { max: 4 });
    pools.push(pool);
    const onPg = await People.over(await createPgPeopleStore(pool));
    try {
      // The session made on the folder is good on PostgreSQL: the row and the secret came along.
      expect(await onPg.identify(browser(ada.cookies))).toMatchObject({ id: ada.person.id, name: "Ada", role: "approver" });
      expect((await onPg.signIn("ada", PASSWORD))?.person.id).toBe(ada.person.id);
      expect(await onPg.signIn("ada", "wrong-password-9")).toBeNull();
      expect((await onPg.list()).map((p) => [p.name, p.role, p.joined_at])).toEqual((await reopened(from)).map((p) => [p.name, p.role, p.joined_at]));
      expect((await onPg.openInvitations()).map((i) => i.role)).toEqual(["viewer"]);
    } finally {
      await onPg.close();
    }

    // A second move into a database holding people is refused without --replace, with nothing moved.
    const again = await run("--from", from, "--to", url);
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/holds people already: pass --replace/);
    expect(again.out).toBe("");

    const back = path.join(mkdtempSync(path.join(os.tmpdir(), "astrion-migrate-people-back-")), "folder");
    const written = await run("--from", url, "--to", back);
    expect(written.code, written.err).toBe(0);
    expect(written.out).toMatch(/wrote 1 person\(s\)/);
    const onFolder = await People.open(back);
    try {
      expect(await onFolder.identify(browser(ada.cookies))).toMatchObject({ id: ada.person.id, role: "approver" });
      expect((await onFolder.signIn("Ada", PASSWORD))?.person.name).toBe("Ada");
      const joined = await onFolder.join(token, "Grace", "correct-horse-2");
      expect(joined.person.role).toBe("viewer");
      await expect(onFolder.join(token, "Eve", "correct-horse-3")).rejects.toMatchObject({ details: { reason: "used" } });
    } finally {
      await onFolder.close();
    }
  });
});

/** The people of a data folder, read by a fresh service. */
async function reopened(root: string) {
  const people = await People.open(root);
  try {
    return await people.list();
  } finally {
    await people.close();
  }
}
