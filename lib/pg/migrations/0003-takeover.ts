import "server-only";
/**
 * Migration 3: taking over a dead instance's runs (issue 31, "Leases"; docs/postgresql.md).
 *
 * - `leases_orphaned`: the leases that expired without being released are what every instance's
 *   takeover scan looks for (lib/pg/leases.ts `orphaned`). A release sets `expires_at` to
 *   '-infinity', a dead instance leaves a finite time behind; the partial index holds only the
 *   finite ones, ordered by expiry, so a scan is a range scan of the expired ones and does not
 *   grow with the conversations ever released.
 * - `conversation_lines.epoch`: the lease epoch a line (timeline, context report, journal) was
 *   committed under, so anyone can check from the rows that nothing an old owner wrote landed
 *   after a takeover (along a file's `seq`, epochs never go down). Null for lines written before
 *   this migration and for lines moved in by `npm run migrate-data` or an import.
 */
import type { Migration } from "./types";

const SQL = String.raw`
CREATE INDEX leases_orphaned ON leases (expires_at) WHERE expires_at > '-infinity';
ALTER TABLE conversation_lines ADD COLUMN epoch bigint;
`;

export const TAKEOVER: Migration = { version: 3, name: "takeover", sql: SQL };
