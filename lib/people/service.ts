import "server-only";
/**
 * The people of team mode (issue 32): who a request's session belongs to, signing in with a name
 * and password, invitations, roles and removal. Passwords, sessions and cookies are Better Auth's
 * (./auth.ts); this module adds what it does not know: the role of each person (a field of its
 * user table), one owner (whoever holds ASTRION_TOKEN, never a row), the name a person signs in
 * with (their display name, unique regardless of case; the library's e-mail field holds a made-up
 * address nobody sees) and single-use, expiring invitations (./invitations.ts). Where all this is
 * kept is the store's (./store.ts): the data folder's SQLite file, or PostgreSQL on the scaled
 * backend, where every instance reads the same sessions, so a removal on one signs the person out
 * on all at once.
 */
import { randomBytes } from "node:crypto";
import { ConflictError, NotFoundError, AstrionError } from "@/lib/contracts/errors";
import { OWNER_ID, PersonRoleSchema, type Identity, type Person, type PersonRole } from "@/lib/contracts/people";
import { SESSION_COOKIE } from "@/lib/security";
import { openAuth, type Auth } from "./auth";
import { newInvitation, tokenHash } from "./invitations";
import { openSqlitePeopleStore } from "./sqlite-store";
import type { InvitationRow, PeopleStore, UserRow } from "./store";

/** What the service is told at start. */
export interface PeopleConfig {
  /** How long a new invitation works. */
  inviteTtlMs: number;
}

/** Default: an invitation works for 72 hours. */
const DEFAULT_INVITE_TTL_HOURS = 72;

/** Reads ASTRION_INVITE_TTL_HOURS (a positive number of hours; default 72). */
function peopleConfigFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): PeopleConfig {
  const raw = Number(env.ASTRION_INVITE_TTL_HOURS?.trim() || DEFAULT_INVITE_TTL_HOURS);
  const hours = Number.isFinite(raw) && raw > 0 ? raw : DEFAULT_INVITE_TTL_HOURS;
  return { inviteTtlMs: Math.round(hours * 3600_000) };
}

/** What a sign-in or a join hands the route: the Set-Cookie values to send. */
interface SignedIn {
  person: Person;
  cookies: string[];
}

function toPerson(row: UserRow): Person {
  const role = PersonRoleSchema.safeParse(row.role);
  const created = new Date(row.createdAt);
  return { id: row.id, name: row.name, role: role.success ? role.data : "viewer", joined_at: Number.isNaN(created.getTime()) ? null : created.toISOString() };
}

function setCookies(headers: Headers): string[] {
  return headers.getSetCookie();
}

/** The people of one data folder, or of every instance on one PostgreSQL database. */
export class People {
  readonly config: PeopleConfig;
  readonly #store: PeopleStore;
  readonly #auth: Auth;
  /** Names being joined right now in this process (a join awaits the library between its check and its insert; across instances the store's unique name index decides). */
  readonly #joining = new Set<string>();

  private constructor(store: PeopleStore, auth: Auth, config: PeopleConfig) {
    this.#store = store;
    this.#auth = auth;
    this.config = config;
  }

  /** Opens the data folder's people database (made on first use). */
  static async open(root: string, config: PeopleConfig = peopleConfigFromEnv()): Promise<People> {
    return People.over(openSqlitePeopleStore(root), config);
  }

  /** The people of `store` (Better Auth's tables brought up to date first); closing the service closes the store. */
  static async over(store: PeopleStore, config: PeopleConfig = peopleConfigFromEnv()): Promise<People> {
    try {
      return new People(store, await openAuth(store), config);
    } catch (error) {
      await store.close().catch(() => undefined);
      throw error;
    }
  }

  /** Whether `headers` carry a session cookie at all (cheap; {@link identify} checks it). */
  static hasSessionCookie(cookieHeader: string | null): boolean {
    return cookieHeader !== null && cookieHeader.includes(`${SESSION_COOKIE}=`);
  }

  /** The person a request's session cookie belongs to, or null (none, expired, revoked, removed). */
  async identify(headers: Headers): Promise<Identity | null> {
    if (!People.hasSessionCookie(headers.get("cookie"))) return null;
    const found = await this.#auth.api.getSession({ headers: new Headers({ cookie: headers.get("cookie") ?? "" }) }).catch(() => null);
    if (!found) return null;
    const person = toPerson(found.user as unknown as UserRow);
    return { id: person.id, name: person.name, role: person.role, via: "password" };
  }

  /** Signs a person in by display name and password; null when either is wrong. */
  async signIn(name: string, password: string): Promise<SignedIn | null> {
    const row = await this.#store.userByName(name);
    if (!row) {
      // The same work as a real check, so a missing name takes as long as a wrong password.
      await (await this.#auth.$context).password.hash(password).catch(() => undefined);
      return null;
    }
    try {
      const { headers } = await this.#auth.api.signInEmail({ body: { email: row.email, password }, returnHeaders: true });
      return { person: toPerson(row), cookies: setCookies(headers) };
    } catch {
      return null;
    }
  }

  /** Ends the session of `headers` (if any); the Set-Cookie values that clear it in the browser. */
  async signOut(headers: Headers): Promise<string[]> {
    if (!People.hasSessionCookie(headers.get("cookie"))) return [];
    try {
      const { headers: out } = await this.#auth.api.signOut({ headers: new Headers({ cookie: headers.get("cookie") ?? "" }), returnHeaders: true });
      return setCookies(out);
    } catch {
      return [`${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`];
    }
  }

  /** Everyone but the owner, oldest first. */
  async list(): Promise<Person[]> {
    return (await this.#store.users()).map(toPerson);
  }

  /** Invitations still open. */
  async openInvitations(): Promise<InvitationRow[]> {
    return this.#store.openInvitations(Date.now());
  }

  /** A new invitation link's token for `role` (shown once), made by `by`. */
  async invite(role: PersonRole, by: string): Promise<{ row: InvitationRow; token: string }> {
    const { row, token, hash } = newInvitation(role, by, this.config.inviteTtlMs);
    await this.#store.addInvitation(row, hash);
    return { row, token };
  }

  /**
   * Joins with an invitation: the invitee's display name and password make a person of the
   * invitation's role, signed in at once. 404 unknown link, 409 used or expired (`details.reason`)
   * or a name already taken; a failed join gives the invitation back.
   */
  async join(token: string, name: string, password: string): Promise<SignedIn> {
    const key = name.trim().toLowerCase();
    if (this.#joining.has(key) || (await this.#store.userByName(name))) throw nameTaken(name);
    // Checked again: another join of this name may have begun while the lookup awaited.
    if (this.#joining.has(key)) throw nameTaken(name);
    this.#joining.add(key);
    try {
      return await this.#joinAs(token, name, password);
    } finally {
      this.#joining.delete(key);
    }
  }

  async #joinAs(token: string, name: string, password: string): Promise<SignedIn> {
    const taken = await this.#store.takeInvitation(tokenHash(token), Date.now());
    if (!taken.ok) {
      if (taken.reason === "unknown") throw new NotFoundError("This invitation link is not valid.", { reason: "unknown" });
      throw new ConflictError(taken.reason === "used" ? "This invitation link was already used." : "This invitation link has expired.", { reason: taken.reason });
    }
    try {
      const email = `p-${randomBytes(8).toString("hex")}@people.invalid`;
      const { response, headers } = await this.#auth.api.signUpEmail({ body: { email, password, name: name.trim() }, returnHeaders: true });
      const ctx = await this.#auth.$context;
      await ctx.internalAdapter.updateUser(response.user.id, { role: taken.row.role });
      await this.#store.markInvitationUsedBy(taken.row.id, response.user.id);
      const row = await this.#store.userById(response.user.id);
      if (!row) throw new AstrionError("internal", "The new person was not saved.");
      return { person: toPerson(row), cookies: setCookies(headers) };
    } catch (error) {
      await this.#store.giveBackInvitation(taken.row.id);
      if (error instanceof AstrionError) throw error;
      // Another instance made a person of this name meanwhile (the store's unique index refused the second).
      if (await this.#store.userByName(name)) throw nameTaken(name);
      throw new AstrionError("bad_request", `Could not join: ${(error as Error).message}`);
    }
  }

  /** Changes a person's role; it holds from their next request. 404 for nobody. */
  async setRole(id: string, role: PersonRole): Promise<Person> {
    if (id === OWNER_ID) throw new ConflictError("The owner's role cannot change.");
    if (!(await this.#store.userById(id))) throw new NotFoundError(`No person ${id}.`);
    await (await this.#auth.$context).internalAdapter.updateUser(id, { role });
    const row = await this.#store.userById(id);
    if (!row) throw new NotFoundError(`No person ${id}.`);
    return toPerson(row);
  }

  /** Removes a person: every session of theirs ends at once, then their sign-in. 404 for nobody. */
  async remove(id: string): Promise<{ person: Person; sessions: number }> {
    if (id === OWNER_ID) throw new ConflictError("The owner cannot be removed.");
    const row = await this.#store.userById(id);
    if (!row) throw new NotFoundError(`No person ${id}.`);
    const n = await this.#store.sessionCount(id);
    const ctx = await this.#auth.$context;
    await ctx.internalAdapter.deleteUserSessions(id);
    await ctx.internalAdapter.deleteUser(id);
    return { person: toPerson(row), sessions: Number(n) };
  }

  /** Closes the store (tests, shutdown). */
  close(): Promise<void> {
    return this.#store.close();
  }
}

function nameTaken(name: string): ConflictError {
  return new ConflictError(`The name "${name}" is taken; pick another.`, { reason: "name_taken" });
}
