import "server-only";
/**
 * Migration 6: long-term memory's entries on PostgreSQL (lib/pg/memory-store.ts;
 * docs/postgresql.md), shared by every instance; the search index stays derived by each one.
 *
 * - `memory_entries`: one row per entry, its JSON as written (`json` keeps the text, key order
 *   included, so entries.json moved in comes back byte for byte); `pos` is its place in
 *   entries.json (a new entry takes the next value of `memory_entries_pos`, a changed one keeps
 *   its own), so the rows read by `pos` are the file's list.
 * - `memory_state`: one row, the entries' `version`, moved on by every save in the save's
 *   transaction. A save locks it (`FOR UPDATE`) and is refused when it is not the version the
 *   writer loaded; that writer loads the entries again and merges anew, so no instance's entry is
 *   lost. Instances compare it at most once a second to see another's change.
 */
import type { Migration } from "./types";

/** This migration's version; the only place it is written. */
const VERSION = 6;

const SQL = String.raw`
CREATE SEQUENCE memory_entries_pos;

CREATE TABLE memory_entries (
  id text PRIMARY KEY,
  pos bigint NOT NULL UNIQUE,
  entry json NOT NULL
);

CREATE TABLE memory_state (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  version bigint NOT NULL
);
INSERT INTO memory_state (version) VALUES (0);
`;

export const MEMORY: Migration = { version: VERSION, name: "memory", sql: SQL };
