/**
 * The people service over a real people database (Better Auth on node:sqlite in a temporary data
 * folder): an invitation works once and expires, only its hash is kept, a join signs the person
 * in, a name signs in with its password only, a role change holds on the next lookup, and removal
 * ends every session at once.
 */
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { People } from "./service";

const opened: People[] = [];

async function open(config = { inviteTtlMs: 3600_000 }): Promise<{ people: People; root: string }> {
  const root = mkdtempSync(path.join(os.tmpdir(), "astrion-people-"));
  const people = await People.open(root, config);
  opened.push(people);
  return { people, root };
}

afterEach(() => {
  for (const p of opened.splice(0)) void p.close();
});

/** The request headers of a browser holding the cookies a sign-in set. */
function browser(setCookies: string[]): Headers {
  return new Headers({ cookie: setCookies.map((c) => c.split(";")[0]).join("; ") });
}

describe("invitations", () => {
  it("work once: a second join with the same link is refused, and the first person is signed in", async () => {
    const { people } = await open();
    const { token } = (await people.invite("editor", "owner"));
    const joined = await people.join(token, "Ada", "correct-horse-1");
    expect(joined.person).toMatchObject({ name: "Ada", role: "editor" });
    expect(await people.identify(browser(joined.cookies))).toMatchObject({ id: joined.person.id, name: "Ada", role: "editor", via: "password" });
    await expect(people.join(token, "Bob", "correct-horse-2")).rejects.toMatchObject({ code: "conflict", details: { reason: "used" } });
    expect((await people.list()).map((p) => p.name)).toEqual(["Ada"]);
    expect((await people.openInvitations())).toEqual([]);
  });

  it("expire: a link past its time lets nobody in", async () => {
    const { people } = await open({ inviteTtlMs: 1 });
    const { token } = (await people.invite("viewer", "owner"));
    await new Promise((r) => setTimeout(r, 5));
    await expect(people.join(token, "Late", "correct-horse-3")).rejects.toMatchObject({ code: "conflict", details: { reason: "expired" } });
    await expect(people.join("not-a-token-at-all-000000", "Nobody", "correct-horse-4")).rejects.toMatchObject({ code: "not_found" });
    expect((await people.list())).toEqual([]);
  });

  it("keep only a hash of the token, and a taken name gives the invitation back", async () => {
    const { people, root } = await open();
    const first = (await people.invite("viewer", "owner"));
    await people.join(first.token, "Ada", "correct-horse-1");
    const second = (await people.invite("approver", "owner"));
    await expect(people.join(second.token, "ADA", "correct-horse-2")).rejects.toMatchObject({ code: "conflict", details: { reason: "name_taken" } });
    // Not used up by the refused join: the same link still works with another name.
    expect((await people.join(second.token, "Grace", "correct-horse-2")).person.role).toBe("approver");
    const file = path.join(root, "people", "people.sqlite");
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      const rows = db.prepare("SELECT token_hash FROM astrion_invitation").all() as Array<{ token_hash: string }>;
      expect(rows.map((r) => r.token_hash)).not.toContain(first.token);
      expect(rows.every((r) => /^[0-9a-f]{64}$/.test(r.token_hash))).toBe(true);
    } finally {
      db.close();
    }
    expect(readFileSync(file).includes(Buffer.from(first.token))).toBe(false);
    expect(statSync(path.join(root, "people", "secret")).mode & 0o777).toBe(0o600);
  });
});

describe("signing in", () => {
  it("takes the display name (any case) with its own password only", async () => {
    const { people } = await open();
    await people.join((await people.invite("editor", "owner")).token, "Ada Lovelace", "correct-horse-1");
    expect(await people.signIn("Ada Lovelace", "wrong-password-1")).toBeNull();
    expect(await people.signIn("Nobody", "correct-horse-1")).toBeNull();
    const signed = await people.signIn("ada lovelace", "correct-horse-1");
    expect(signed?.person.name).toBe("Ada Lovelace");
    expect(signed?.cookies.join(";")).toMatch(/astrion\.session_token=/);
    const headers = browser(signed!.cookies);
    expect((await people.identify(headers))?.name).toBe("Ada Lovelace");
    // Signing out ends that session: its cookie names nobody any more.
    await people.signOut(headers);
    expect(await people.identify(headers)).toBeNull();
  });
});

describe("roles and removal", () => {
  it("a role change holds from the next lookup", async () => {
    const { people } = await open();
    const { person, cookies } = await people.join((await people.invite("viewer", "owner")).token, "Ada", "correct-horse-1");
    expect((await people.identify(browser(cookies)))?.role).toBe("viewer");
    await people.setRole(person.id, "approver");
    expect((await people.identify(browser(cookies)))?.role).toBe("approver");
    await expect(people.setRole("owner", "viewer")).rejects.toMatchObject({ code: "conflict" });
    await expect(people.setRole("nobody", "viewer")).rejects.toMatchObject({ code: "not_found" });
  });

  it("removal ends every session of the person at once, and only theirs", async () => {
    const { people } = await open();
    const ada = await people.join((await people.invite("editor", "owner")).token, "Ada", "correct-horse-1");
    const grace = await people.join((await people.invite("editor", "owner")).token, "Grace", "correct-horse-2");
    const laptop = browser(ada.cookies);
    const phone = browser((await people.signIn("Ada", "correct-horse-1"))!.cookies);
    expect(await people.identify(phone)).not.toBeNull();
    const removed = await people.remove(ada.person.id);
    expect(removed.sessions).toBe(2);
    expect(await people.identify(laptop)).toBeNull();
    expect(await people.identify(phone)).toBeNull();
    expect(await people.signIn("Ada", "correct-horse-1")).toBeNull();
    expect((await people.identify(browser(grace.cookies)))?.name).toBe("Grace");
    expect((await people.list()).map((p) => p.name)).toEqual(["Grace"]);
  });
});
