import "server-only";
/**
 * Better Auth over the people store's database (./store.ts): node:sqlite `people/people.sqlite`
 * on the data folder, a `pg` Pool on PostgreSQL (the library's documented PostgreSQL support;
 * Kysely drives both, no ORM). It does what an authentication library should own: hashing
 * passwords (scrypt), the user, account and session tables, the signed session cookie and looking
 * a session up on every request. Its HTTP handler is never mounted: the routes call its server
 * API, so no endpoint of it (open sign-up, say) can be reached from outside.
 *
 * Sessions are never cached in a cookie (nor in a secondary store), so a revoked session is
 * refused on its very next request, on whichever instance it arrives: every lookup reads the
 * store's session table.
 */
import { betterAuth, type BetterAuthOptions } from "better-auth";
import { getMigrations } from "better-auth/db/migration";
import { SESSION_COOKIE } from "@/lib/security";
import type { PeopleStore } from "./store";

/** The session cookie's name prefix, so the cookie Better Auth sets is the one the proxy looks for (`astrion.session_token`). */
const COOKIE_PREFIX = SESSION_COOKIE.slice(0, SESSION_COOKIE.indexOf("."));

/** How long a session lasts without use (Better Auth refreshes it once a day while used). */
const SESSION_SECONDS = 7 * 24 * 3600;

function optionsFor(database: BetterAuthOptions["database"], secret: string): BetterAuthOptions {
  return {
    database,
    secret,
    // Only used to build links Better Auth sends itself (none here); cookies follow the request.
    baseURL: "http://127.0.0.1",
    emailAndPassword: { enabled: true, minPasswordLength: 10, maxPasswordLength: 200, autoSignIn: true },
    user: { additionalFields: { role: { type: "string", required: false, defaultValue: "viewer", input: false } } },
    session: { expiresIn: SESSION_SECONDS, updateAge: 24 * 3600, cookieCache: { enabled: false } },
    advanced: { cookiePrefix: COOKIE_PREFIX, useSecureCookies: false },
    telemetry: { enabled: false },
    logger: { level: "error" },
  };
}

/** BETTER_AUTH_SECRET when set and long enough: then every store signs with it instead of its own. */
export function secretFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): string | null {
  return env.BETTER_AUTH_SECRET && env.BETTER_AUTH_SECRET.length >= 32 ? env.BETTER_AUTH_SECRET : null;
}

/** Better Auth's instance with the options above (its type names the additional `role`). */
function makeAuth(database: BetterAuthOptions["database"], secret: string) {
  return betterAuth(optionsFor(database, secret) as BetterAuthOptions & { user: { additionalFields: { role: { type: "string"; required: false; defaultValue: "viewer"; input: false } } } });
}

/** The authentication library's instance. */
export type Auth = ReturnType<typeof makeAuth>;

/**
 * Better Auth over `store`, its tables first brought up to date with its own migrations
 * (`getMigrations`), which the store runs under its lock (PostgreSQL: an advisory lock, so two
 * instances starting at once do not both create a table).
 */
export async function openAuth(store: PeopleStore): Promise<Auth> {
  const options = optionsFor(store.database, store.secret);
  await store.migrateAuth(async () => {
    const { runMigrations } = await getMigrations(options);
    await runMigrations();
  });
  return makeAuth(store.database, store.secret);
}
