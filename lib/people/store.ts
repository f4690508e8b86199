/**
 * The seam between the people service (./service.ts) and where people are kept: one async
 * interface, two implementations. The data folder's is node:sqlite `people/people.sqlite`
 * (./sqlite-store.ts); the scaled backend's is PostgreSQL (lib/pg/people-store.ts), so every
 * instance sees the same people, sessions and invitations. Better Auth drives either database
 * itself through `database`; the store adds the reads the library has no API for and the
 * invitations. Types only: no I/O here.
 */
import type { BetterAuthOptions } from "better-auth";
import type { PersonRole } from "@/lib/contracts/people";

/** A user row as Better Auth keeps it (the fields read here; `createdAt` is a Date on PostgreSQL). */
export interface UserRow {
  id: string;
  name: string;
  email: string;
  role: string | null;
  createdAt: string | number | Date;
}

/** An invitation as stored (times in epoch milliseconds). */
export interface InvitationRow {
  id: string;
  role: PersonRole;
  created_by: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
  used_by: string | null;
}

/** Why a token does not let anyone in. */
type InvitationRefusal = "unknown" | "used" | "expired";

/** What taking an invitation's token gave. */
export type TakenInvitation = { ok: true; row: InvitationRow } | { ok: false; reason: InvitationRefusal };

/** Where the people of a server are kept. Every method may be called by several instances at once. */
export interface PeopleStore {
  /** `data folder` or `PostgreSQL`: named in errors and logs. */
  readonly kind: "sqlite" | "postgresql";
  /** Better Auth's `database` option: the library reads and writes its own tables through it. */
  readonly database: BetterAuthOptions["database"];
  /** The secret that signs session cookies; one per data folder, or one per database (so a cookie made by one instance is good on every other). */
  readonly secret: string;
  /** Better Auth's tables brought up to date (its own migrations), safe when instances start at once. */
  migrateAuth(run: () => Promise<void>): Promise<void>;
  /** Everyone, oldest first. */
  users(): Promise<UserRow[]>;
  /** The user whose display name is `name` regardless of (ASCII) case. */
  userByName(name: string): Promise<UserRow | undefined>;
  userById(id: string): Promise<UserRow | undefined>;
  /** How many sessions a user has now. */
  sessionCount(userId: string): Promise<number>;
  /** Stores a new invitation: only the hash of its token. */
  addInvitation(row: InvitationRow, tokenHash: string): Promise<void>;
  /** Invitations neither used nor expired at `now`, newest first. */
  openInvitations(now: number): Promise<InvitationRow[]>;
  /** Takes the invitation of `tokenHash` for good, in one conditional write, so it is taken once even by two instances at once. */
  takeInvitation(tokenHash: string, now: number): Promise<TakenInvitation>;
  /** Gives a taken invitation back (the sign-up after taking it failed). */
  giveBackInvitation(id: string): Promise<void>;
  /** Records who joined with a taken invitation. */
  markInvitationUsedBy(id: string, personId: string): Promise<void>;
  /** Lets the database go (a pool the backend owns is left to it). */
  close(): Promise<void>;
}
