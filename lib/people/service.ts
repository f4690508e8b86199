import "server-only";
/**
 * The people of team mode (issue 32): who a request's session belongs to, signing in with a name
 * and password, invitations, roles and removal. Passwords, sessions and cookies are Better Auth's
 * (./auth.ts); this module adds what it does not know: the role of each person (a field of its
 * user table), one owner (whoever holds ASTRION_TOKEN, never a row), the name a person signs in
 * with (their display name, unique regardless of case; the library's e-mail field holds a made-up
 * address nobody sees) and single-use, expiring invitations (./invitations.ts).
 */
import { randomBytes } from "node:crypto";
import { ConflictError, NotFoundError, AstrionError } from "@/lib/contracts/errors";
import { OWNER_ID, PersonRoleSchema, type Identity, type Person, type PersonRole } from "@/lib/contracts/people";
import { SESSION_COOKIE } from "@/lib/security";
import { openAuth, type Auth } from "./auth";
import { Invitations, type InvitationRow } from "./invitations";
import type { DatabaseSync } from "node:sqlite";

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

/** A user row as Better Auth keeps it (the fields read here). */
interface UserRow {
  id: string;
  name: string;
  email: string;
  role: string | null;
  createdAt: string | number;
}

/** What a sign-in or a join hands the route: the Set-Cookie values to send. */
interface SignedIn {
  person: Person;
  cookies: string[];
}

function toPerson(row: UserRow): Person {
  const role = PersonRoleSchema.safeParse(row.role);
  const created = typeof row.createdAt === "number" ? new Date(row.createdAt) : new Date(row.createdAt);
  return { id: row.id, name: row.name, role: role.success ? role.data : "viewer", joined_at: Number.isNaN(created.getTime()) ? null : created.toISOString() };
}

function setCookies(headers: Headers): string[] {
  return headers.getSetCookie();
}

/** The people of one data folder. */
export class People {
  readonly config: PeopleConfig;
  readonly #db: DatabaseSync;
  readonly #auth: Auth;
  readonly #invitations: Invitations;
  /** Names being joined right now (a join awaits the library between its check and its insert). */
  readonly #joining = new Set<string>();

  private constructor(db: DatabaseSync, auth: Auth, config: PeopleConfig) {
    this.#db = db;
    this.#auth = auth;
    this.#invitations = new Invitations(db);
    this.config = config;
  }

  /** Opens the data folder's people database (made on first use). */
  static async open(root: string, config: PeopleConfig = peopleConfigFromEnv()): Promise<People> {
    const { db, auth } = await openAuth(root);
    return new People(db, auth, config);
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
    const row = this.#userByName(name);
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
  list(): Person[] {
    return (this.#db.prepare('SELECT id, name, email, role, createdAt FROM "user" ORDER BY createdAt, id').all() as unknown as UserRow[]).map(toPerson);
  }

  /** Invitations still open. */
  openInvitations(): InvitationRow[] {
    return this.#invitations.open();
  }

  /** A new invitation link's token for `role` (shown once), made by `by`. */
  invite(role: PersonRole, by: string): { row: InvitationRow; token: string } {
    return this.#invitations.create(role, by, this.config.inviteTtlMs);
  }

  /**
   * Joins with an invitation: the invitee's display name and password make a person of the
   * invitation's role, signed in at once. 404 unknown link, 409 used or expired (`details.reason`)
   * or a name already taken; a failed join gives the invitation back.
   */
  async join(token: string, name: string, password: string): Promise<SignedIn> {
    const key = name.trim().toLowerCase();
    if (this.#userByName(name) || this.#joining.has(key)) throw new ConflictError(`The name "${name}" is taken; pick another.`, { reason: "name_taken" });
    const taken = this.#invitations.take(token);
    if (!taken.ok) {
      if (taken.reason === "unknown") throw new NotFoundError("This invitation link is not valid.", { reason: "unknown" });
      throw new ConflictError(taken.reason === "used" ? "This invitation link was already used." : "This invitation link has expired.", { reason: taken.reason });
    }
    this.#joining.add(key);
    try {
      const email = `p-${randomBytes(8).toString("hex")}@people.invalid`;
      const { response, headers } = await this.#auth.api.signUpEmail({ body: { email, password, name: name.trim() }, returnHeaders: true });
      const ctx = await this.#auth.$context;
      await ctx.internalAdapter.updateUser(response.user.id, { role: taken.row.role });
      this.#invitations.markUsedBy(taken.row.id, response.user.id);
      const row = this.#userById(response.user.id);
      if (!row) throw new AstrionError("internal", "The new person was not saved.");
      return { person: toPerson(row), cookies: setCookies(headers) };
    } catch (error) {
      this.#invitations.giveBack(taken.row.id);
      throw error instanceof AstrionError ? error : new AstrionError("bad_request", `Could not join: ${(error as Error).message}`);
    } finally {
      this.#joining.delete(key);
    }
  }

  /** Changes a person's role; it holds from their next request. 404 for nobody. */
  async setRole(id: string, role: PersonRole): Promise<Person> {
    if (id === OWNER_ID) throw new ConflictError("The owner's role cannot change.");
    if (!this.#userById(id)) throw new NotFoundError(`No person ${id}.`);
    await (await this.#auth.$context).internalAdapter.updateUser(id, { role });
    return toPerson(this.#userById(id)!);
  }

  /** Removes a person: every session of theirs ends at once, then their sign-in. 404 for nobody. */
  async remove(id: string): Promise<{ person: Person; sessions: number }> {
    if (id === OWNER_ID) throw new ConflictError("The owner cannot be removed.");
    const row = this.#userById(id);
    if (!row) throw new NotFoundError(`No person ${id}.`);
    const { n } = this.#db.prepare('SELECT count(*) AS n FROM "session" WHERE userId = ?').get(id) as { n: number };
    const ctx = await this.#auth.$context;
    await ctx.internalAdapter.deleteUserSessions(id);
    await ctx.internalAdapter.deleteUser(id);
    return { person: toPerson(row), sessions: Number(n) };
  }

  /** Closes the database (tests, shutdown). */
  close(): void {
    if (this.#db.isOpen) this.#db.close();
  }

  #userByName(name: string): UserRow | undefined {
    return this.#db.prepare('SELECT id, name, email, role, createdAt FROM "user" WHERE name = ? COLLATE NOCASE').get(name.trim()) as unknown as UserRow | undefined;
  }

  #userById(id: string): UserRow | undefined {
    return this.#db.prepare('SELECT id, name, email, role, createdAt FROM "user" WHERE id = ?').get(id) as unknown as UserRow | undefined;
  }
}
