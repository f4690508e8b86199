import "server-only";
/**
 * Migration 2: the conversation catalog (lib/pg/catalog.ts; docs/postgresql.md). The list sorts
 * newest first by `updated_at`, then by id as the file store orders ids (the date-time part, then
 * the sequence as a number), and filters by status and by a case-insensitive search of the title
 * or the project folder, without reading any conversation's messages:
 *
 * - `list_key`: `updated_at`, a space, the id's date-time part and its sequence padded to six
 *   digits, in the C collation, so one text order is the list's order; indexed alone and after
 *   `status`, so a page is an index scan that stops at its end.
 * - `title_lower` and `path_lower`: the title and the project folder lower-cased (JavaScript's
 *   rules, as the file store's list matches them; PostgreSQL's lower() leaves non-ASCII letters
 *   alone under the C locale). Null for rows written before this migration, until the catalog
 *   fills them in at start.
 *
 * The application writes these columns with `meta`, and `status` too from now on: migration 1
 * generated `status` from `meta`, but PostgreSQL's `->>` refuses a whole document that holds a
 * `\u0000` escape anywhere (a title may hold one, and `json` keeps it as written), so no column
 * may be computed from `meta` by the database. Rows of migration 1 cannot hold one (their
 * `status` could not have been generated), so `list_key` is filled for them here.
 *
 * Also what a data folder holds beside the engine's rows, so `npm run migrate-data` gives it back
 * as it was: a conversation's shared_context.json (`shared_contexts`) and the folder's own
 * state.json and conversations/index.json as they were moved in (`data_folder_files`).
 */
import type { Migration } from "./types";

const SQL = String.raw`
ALTER TABLE conversations ALTER COLUMN status DROP EXPRESSION;
ALTER TABLE conversations
  ADD COLUMN list_key text COLLATE "C",
  ADD COLUMN title_lower text,
  ADD COLUMN path_lower text;
UPDATE conversations SET list_key = (meta ->> 'updated_at') || ' ' || left(id, 20) || lpad(substr(id, 22), 6, '0');
ALTER TABLE conversations ALTER COLUMN list_key SET NOT NULL, ALTER COLUMN status SET NOT NULL;
CREATE INDEX conversations_list ON conversations (list_key DESC);
CREATE INDEX conversations_list_by_status ON conversations (status, list_key DESC);

-- conversations/<id>/shared_context.json, kept whole as it was moved in or imported.
CREATE TABLE shared_contexts (
  conversation_id text PRIMARY KEY REFERENCES conversations (id) ON DELETE CASCADE,
  doc json NOT NULL
);

-- The data folder's own files as npm run migrate-data found them: written back with what changed since brought up to date.
CREATE TABLE data_folder_files (
  name text PRIMARY KEY CHECK (name IN ('state.json', 'conversations/index.json')),
  doc json NOT NULL
);
`;

export const CATALOG: Migration = { version: 2, name: "catalog", sql: SQL };
