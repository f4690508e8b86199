import "server-only";
/**
 * Migration 5 (renumber freely until released: the version is only the constant below): the
 * people of team mode on PostgreSQL (lib/pg/people-store.ts; docs/people.md). Better Auth's own
 * tables (`user`, `session`, `account`, `verification`) are not made here: the library makes and
 * updates them with its own migrations, run by the people store under an advisory lock. Here is
 * what the service keeps beside them:
 *
 * - `people_invitations`: as the data folder's `astrion_invitation` (only the SHA-256 of a token;
 *   times in epoch milliseconds, as there), so migrate-data can carry rows either way unchanged.
 * - `people_secret`: the one secret that signs session cookies for every instance (a data folder
 *   keeps its own in `people/secret`; instances with their own folders must share one, or a
 *   cookie made by one would be refused by the others). Made by the first instance to start.
 */
import type { Migration } from "./types";

/** This migration's version; the only place it is written. */
const VERSION = 5;

const SQL = String.raw`
CREATE TABLE people_invitations (
  id text PRIMARY KEY,
  token_hash text NOT NULL UNIQUE,
  role text NOT NULL,
  created_by text NOT NULL,
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  used_at bigint,
  used_by text
);

CREATE TABLE people_secret (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  secret text NOT NULL CHECK (length(secret) >= 32)
);
`;

export const PEOPLE: Migration = { version: VERSION, name: "people", sql: SQL };
