import "server-only";
/**
 * Better Auth over the data folder's `people/people.sqlite` (Node's built-in `node:sqlite`, which
 * Better Auth's Kysely adapter drives directly: no native addon, no ORM). It does what an
 * authentication library should own: hashing passwords (scrypt), the user, account and session
 * tables, the signed session cookie and looking a session up on every request. Its HTTP handler
 * is never mounted: the routes call its server API, so no endpoint of it (open sign-up, say) can
 * be reached from outside.
 *
 * The cookie secret is made once per data folder (`people/secret`, mode 0600) unless
 * BETTER_AUTH_SECRET is set. Sessions are never cached in a cookie, so a revoked session is
 * refused on its very next request.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { betterAuth, type BetterAuthOptions } from "better-auth";
import { getMigrations } from "better-auth/db/migration";
import { SESSION_COOKIE } from "@/lib/security";

/** The session cookie's name prefix, so the cookie Better Auth sets is the one the proxy looks for (`astrion.session_token`). */
const COOKIE_PREFIX = SESSION_COOKIE.slice(0, SESSION_COOKIE.indexOf("."));

/** How long a session lasts without use (Better Auth refreshes it once a day while used). */
const SESSION_SECONDS = 7 * 24 * 3600;

function optionsFor(db: DatabaseSync, secret: string): BetterAuthOptions {
  return {
    database: db,
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

/** The secret that signs session cookies: BETTER_AUTH_SECRET, else the data folder's own. */
function secretOf(dir: string, env: Readonly<Record<string, string | undefined>>): string {
  if (env.BETTER_AUTH_SECRET && env.BETTER_AUTH_SECRET.length >= 32) return env.BETTER_AUTH_SECRET;
  const file = path.join(dir, "secret");
  if (existsSync(file)) {
    const kept = readFileSync(file, "utf8").trim();
    if (kept.length >= 32) return kept;
  }
  const made = randomBytes(32).toString("base64url");
  writeFileSync(file, `${made}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return made;
}

/** Better Auth's instance with the options above (its type names the additional `role`). */
function makeAuth(db: DatabaseSync, secret: string) {
  return betterAuth(optionsFor(db, secret) as BetterAuthOptions & { user: { additionalFields: { role: { type: "string"; required: false; defaultValue: "viewer"; input: false } } } });
}

/** The authentication library's instance. */
export type Auth = ReturnType<typeof makeAuth>;

/** The opened database and Better Auth over it. */
export interface OpenedAuth {
  db: DatabaseSync;
  auth: Auth;
}

/**
 * Opens (creating when missing) `<root>/people/people.sqlite`, brings Better Auth's tables up to
 * date with its own migrations, and returns the instance.
 */
export async function openAuth(root: string, env: Readonly<Record<string, string | undefined>> = process.env): Promise<OpenedAuth> {
  const dir = path.join(root, "people");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const secret = secretOf(dir, env);
  const db = new DatabaseSync(path.join(dir, "people.sqlite"), { timeout: 5000 });
  db.exec("PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON;");
  const options = optionsFor(db, secret);
  const { runMigrations } = await getMigrations(options);
  await runMigrations();
  return { db, auth: makeAuth(db, secret) };
}
