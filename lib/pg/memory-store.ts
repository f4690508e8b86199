import "server-only";
/**
 * Long-term memory's entries on PostgreSQL (lib/memory/entries-store.ts `MemoryEntriesStore`;
 * migration 6, ./migrations/0006-memory.ts): a row per entry in entries.json's order, and one
 * version of the whole set that every save moves on in its transaction. A save is based on the
 * version its writer loaded: it locks `memory_state` (`FOR UPDATE`, so saves of two instances
 * take turns) and is refused with `EntriesChangedError` when another save came first; the
 * service then loads the entries again and merges anew, so no instance loses another's entry. The
 * stamp is that version: instances compare it (one row read) to see another's change.
 */
import { createHash } from "node:crypto";
import type { Pool } from "pg";
import { EntriesChangedError, type EntriesLoad, type MemoryEntriesStore } from "@/lib/memory/entries-store";
import { MemoryEntrySchema, type MemoryEntry } from "@/lib/memory/schema";
import { toPythonJsonBytes } from "@/lib/store";

/** What the entries are called in problems and errors. */
const WHERE = "memory entries (PostgreSQL)";

/** SHA-256 of the entries as entries.json would hold them (the saved search index is checked against it). */
function entriesSha(entries: readonly MemoryEntry[]): string {
  return createHash("sha256").update(toPythonJsonBytes({ version: 1, entries })).digest("hex");
}

/** Every entry, in order, and the version they are of, read in one statement (one moment). */
async function readAll(pool: Pool): Promise<EntriesLoad> {
  const rows = (await pool.query<{ version: string; id: string | null; entry: unknown }>("SELECT s.version, e.id, e.entry FROM memory_state s LEFT JOIN memory_entries e ON true ORDER BY e.pos")).rows;
  const entries: MemoryEntry[] = [];
  for (const row of rows) {
    if (row.id === null) continue;
    const parsed = MemoryEntrySchema.safeParse(row.entry);
    // Reported, never written over: the service refuses writes until it is repaired.
    if (!parsed.success || parsed.data.id !== row.id) return { ok: false, reason: `the entry ${row.id} does not match its schema`, keptAs: null };
    entries.push(parsed.data);
  }
  return { ok: true, entries, sha256: entriesSha(entries), stamp: rows[0]!.version };
}

/** The memory entries of every instance, in PostgreSQL (see the file's header). */
export function createPgMemoryEntries(pool: Pool): MemoryEntriesStore {
  return {
    where: WHERE,
    load: () => readAll(pool),
    stamp: async () => (await pool.query<{ version: string }>("SELECT version FROM memory_state")).rows[0]!.version,
    async save(base, change) {
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        await client.query("BEGIN");
        const version = (await client.query<{ version: string }>("SELECT version FROM memory_state FOR UPDATE")).rows[0]!.version;
        if (version !== base) {
          await client.query("ROLLBACK");
          throw new EntriesChangedError(`memory entries changed since version ${base} (now ${version})`);
        }
        if (change.removed.length) await client.query("DELETE FROM memory_entries WHERE id = ANY($1::text[])", [[...change.removed]]);
        if (change.changed.length) {
          // A new entry takes the next place; a changed one keeps its own.
          await client.query(
            "INSERT INTO memory_entries (id, pos, entry) SELECT t.id, nextval('memory_entries_pos'), t.e::json FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS t (id, e, n) ORDER BY t.n ON CONFLICT (id) DO UPDATE SET entry = EXCLUDED.entry",
            [change.changed.map((e) => e.id), change.changed.map((e) => JSON.stringify(e))],
          );
        }
        const next = (await client.query<{ version: string }>("UPDATE memory_state SET version = version + 1 RETURNING version")).rows[0]!.version;
        await client.query("COMMIT");
        return { sha256: entriesSha(change.entries), stamp: next };
      } catch (error) {
        if (!(error instanceof EntriesChangedError)) {
          await client.query("ROLLBACK").catch((again: unknown) => (broken = again as Error));
        }
        throw error;
      } finally {
        client.release(broken);
      }
    },
    brokenCopies: async () => [],
  };
}
