/**
 * The people store's conformance suite (lib/people/store.ts), run through the people service on
 * every implementation: the data folder's SQLite file (people-sqlite.test.ts) and PostgreSQL
 * (test/backends/pg-people.test.ts, a real cluster). "Instances" are two services over one store's
 * database, as two servers are on the scaled backend: what one does holds on the other at its very
 * next lookup. An invitation works once (even taken on two instances at once) and expires, only
 * its hash is kept, a name is taken regardless of case, a name signs in with its own password only,
 * a role change holds from the next lookup, and removal ends every session of the person at once
 * on every instance.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { People } from "@/lib/people/service";

/** One fresh store's database, and services over it. */
interface PeopleWorld {
  /** A service over this world's database (call twice: two instances). */
  open(config?: { inviteTtlMs: number }): Promise<People>;
  /** Every stored invitation's token hash, read from the database itself. */
  tokenHashes(): Promise<string[]>;
}

/** What the suite is told about an implementation. */
export interface PeopleStoreSubject {
  name: string;
  /** A new, empty world. */
  world(): Promise<PeopleWorld>;
  /** Whether two instances racing to join with one name are told apart by the store itself (PostgreSQL); a data folder has one server. */
  racingInstances: boolean;
}

const PASSWORD = "correct-horse-1";
const DEFAULT = { inviteTtlMs: 3600_000 };

/** The request headers of a browser holding the cookies a sign-in set. */
export function browser(setCookies: string[]): Headers {
  return new Headers({ cookie: setCookies.map((c) => c.split(";")[0]).join("; ") });
}

/** Registers the suite for `subject`. */
export function describePeopleStore(subject: PeopleStoreSubject): void {
  const opened: People[] = [];
  async function two(config = DEFAULT): Promise<{ a: People; b: People; world: PeopleWorld }> {
    const world = await subject.world();
    const a = await world.open(config);
    const b = await world.open(config);
    opened.push(a, b);
    return { a, b, world };
  }

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((p) => p.close()));
  });

  describe(`people store: ${subject.name}`, () => {
    it("an invitation made on A is taken on B once: the person is signed in on both, a second join is refused", async () => {
      const { a, b } = await two();
      const { token } = await a.invite("editor", "owner");
      expect((await b.openInvitations()).map((i) => i.role)).toEqual(["editor"]);
      const joined = await b.join(token, "Ada", PASSWORD);
      expect(joined.person).toMatchObject({ name: "Ada", role: "editor" });
      for (const p of [a, b]) expect(await p.identify(browser(joined.cookies))).toMatchObject({ id: joined.person.id, name: "Ada", role: "editor", via: "password" });
      await expect(a.join(token, "Bob", "correct-horse-2")).rejects.toMatchObject({ code: "conflict", details: { reason: "used" } });
      expect((await a.list()).map((p) => p.name)).toEqual(["Ada"]);
      expect(await a.openInvitations()).toEqual([]);
    });

    it("one link taken on two instances at the same moment lets exactly one person in", async () => {
      const { a, b } = await two();
      const { token } = await a.invite("viewer", "owner");
      const results = await Promise.allSettled([a.join(token, "First", PASSWORD), b.join(token, "Second", PASSWORD)]);
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      expect(results.find((r) => r.status === "rejected")).toMatchObject({ reason: { code: "conflict", details: { reason: "used" } } });
      expect(await a.list()).toHaveLength(1);
    });

    it("a link past its time lets nobody in, an unknown one is 404, and only token hashes are stored", async () => {
      const { a, world } = await two({ inviteTtlMs: 1 });
      const { token } = await a.invite("viewer", "owner");
      await new Promise((r) => setTimeout(r, 5));
      await expect(a.join(token, "Late", PASSWORD)).rejects.toMatchObject({ code: "conflict", details: { reason: "expired" } });
      await expect(a.join("not-a-token-at-all-000000", "Nobody", PASSWORD)).rejects.toMatchObject({ code: "not_found" });
      expect(await a.list()).toEqual([]);
      const hashes = await world.tokenHashes();
      expect(hashes).toHaveLength(1);
      expect(hashes).not.toContain(token);
      expect(hashes.every((h) => /^[0-9a-f]{64}$/.test(h))).toBe(true);
    });

    it("a name is taken regardless of case, on the other instance too, and the refused join gives its link back", async () => {
      const { a, b } = await two();
      await a.join((await a.invite("viewer", "owner")).token, "Ada", PASSWORD);
      const second = await b.invite("approver", "owner");
      await expect(b.join(second.token, "ADA", "correct-horse-2")).rejects.toMatchObject({ code: "conflict", details: { reason: "name_taken" } });
      expect((await b.join(second.token, "Grace", "correct-horse-2")).person.role).toBe("approver");
    });

    // Registered only where two instances can exist: a data folder has one server (its lock).
    if (subject.racingInstances) it("two instances joining one name at the same moment let exactly one in, and the other's link still works", async () => {
      const { a, b } = await two();
      const [x, y] = [await a.invite("viewer", "owner"), await b.invite("viewer", "owner")];
      const results = await Promise.allSettled([a.join(x.token, "Same", PASSWORD), b.join(y.token, "same", PASSWORD)]);
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      expect(results.find((r) => r.status === "rejected")).toMatchObject({ reason: { code: "conflict", details: { reason: "name_taken" } } });
      expect((await a.list()).map((p) => p.name.toLowerCase())).toEqual(["same"]);
      expect(await a.openInvitations()).toHaveLength(1);
    });

    it("a name signs in with its own password only, on either instance, and signing out on one ends the session on both", async () => {
      const { a, b } = await two();
      await a.join((await a.invite("editor", "owner")).token, "Ada Lovelace", PASSWORD);
      expect(await b.signIn("Ada Lovelace", "wrong-password-1")).toBeNull();
      expect(await b.signIn("Nobody", PASSWORD)).toBeNull();
      const signed = await b.signIn("ada lovelace", PASSWORD);
      expect(signed?.person.name).toBe("Ada Lovelace");
      expect(signed?.cookies.join(";")).toMatch(/astrion\.session_token=/);
      const headers = browser(signed!.cookies);
      expect((await a.identify(headers))?.name).toBe("Ada Lovelace");
      await a.signOut(headers);
      expect(await b.identify(headers)).toBeNull();
    });

    it("a role change on A holds on B from the next lookup; the owner and nobody cannot be changed", async () => {
      const { a, b } = await two();
      const { person, cookies } = await a.join((await a.invite("viewer", "owner")).token, "Ada", PASSWORD);
      expect((await b.identify(browser(cookies)))?.role).toBe("viewer");
      expect((await a.setRole(person.id, "approver")).role).toBe("approver");
      expect((await b.identify(browser(cookies)))?.role).toBe("approver");
      expect((await b.list())[0]?.role).toBe("approver");
      await expect(a.setRole("owner", "viewer")).rejects.toMatchObject({ code: "conflict" });
      await expect(a.setRole("nobody", "viewer")).rejects.toMatchObject({ code: "not_found" });
    });

    it("removal on A ends every session of the person on A and B at once, and only theirs", async () => {
      const { a, b } = await two();
      const ada = await a.join((await a.invite("editor", "owner")).token, "Ada", PASSWORD);
      const grace = await b.join((await b.invite("editor", "owner")).token, "Grace", "correct-horse-2");
      const laptop = browser(ada.cookies);
      const phone = browser((await b.signIn("Ada", PASSWORD))!.cookies);
      expect(await b.identify(laptop)).not.toBeNull();
      expect(await a.identify(phone)).not.toBeNull();
      const removed = await a.remove(ada.person.id);
      expect(removed.sessions).toBe(2);
      for (const p of [a, b]) {
        expect(await p.identify(laptop)).toBeNull();
        expect(await p.identify(phone)).toBeNull();
      }
      expect(await b.signIn("Ada", PASSWORD)).toBeNull();
      expect((await b.identify(browser(grace.cookies)))?.name).toBe("Grace");
      expect((await b.list()).map((p) => p.name)).toEqual(["Grace"]);
      await expect(b.remove(ada.person.id)).rejects.toMatchObject({ code: "not_found" });
    });
  });
}
