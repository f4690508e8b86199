import "server-only";
/**
 * Long-term memory's entries carried by `npm run migrate-data`: the data folder's
 * `memory/entries.json` into PostgreSQL's `memory_entries` (migration 6; one row per entry, in
 * the file's order, each entry's JSON as the file holds it) and back, written as the data folder
 * writes it (lib/memory/memory-files.ts: the seed's JSON style), so a file moved in and out again
 * comes back byte for byte. The search index and the distillation's progress are not moved
 * (derived, and rebuilt; docs/postgresql.md).
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import type { PoolClient } from "pg";
import { MemoryEntriesFileSchema } from "@/lib/memory/schema";
import { describeZodIssues, parseJsonText, toPythonJsonBytes, writeFileAtomicUnlocked } from "@/lib/store";
import { MigrateDataError } from "./report";

function entriesFile(root: string): string {
  return path.join(root, "memory", "entries.json");
}

/**
 * The entries of the folder's entries.json as written (each entry's object with its keys in the
 * file's order), or null when there is none.
 * @throws MigrateDataError for a file that cannot be read or does not fit its schema.
 */
export async function folderMemory(root: string): Promise<unknown[] | null> {
  let text: string;
  try {
    text = await fs.readFile(entriesFile(root), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new MigrateDataError(`memory/entries.json cannot be read: ${(error as Error).message}`);
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const json = parseJsonText(text);
  if (!json.ok) throw new MigrateDataError(`memory/entries.json is not JSON (${json.reason}): repair it first`);
  const parsed = MemoryEntriesFileSchema.safeParse(json.value);
  if (!parsed.success) throw new MigrateDataError(`memory/entries.json does not match its schema (${describeZodIssues(parsed.error)}): repair it first`);
  return (json.value as { entries: unknown[] }).entries;
}

/**
 * Puts `entries` (in their order) in place of the database's memory entries, in the caller's
 * transaction, and moves the version on, so instances running meanwhile load them.
 * @throws MigrateDataError when the database holds entries already and `replace` is not set.
 */
export async function writeMemoryRows(client: PoolClient, entries: readonly unknown[], replace: boolean): Promise<void> {
  await client.query("SELECT version FROM memory_state FOR UPDATE");
  const held = Number((await client.query<{ n: string }>("SELECT count(*) AS n FROM memory_entries")).rows[0]!.n);
  if (held && !replace) throw new MigrateDataError(`the database holds ${held} memory entr${held === 1 ? "y" : "ies"} already: pass --replace to replace them with the folder's`);
  await client.query("DELETE FROM memory_entries");
  // The ids from here, not by `->>`: PostgreSQL refuses a json document holding a \u0000 escape there.
  await client.query("INSERT INTO memory_entries (id, pos, entry) SELECT t.id, nextval('memory_entries_pos'), t.e::json FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS t (id, e, n) ORDER BY t.n", [
    entries.map((e) => (e as { id: string }).id),
    entries.map((e) => JSON.stringify(e)),
  ]);
  await client.query("UPDATE memory_state SET version = version + 1");
}

/**
 * The database's memory entries in their order, read in the caller's transaction, or null when
 * its memory was never written nor moved in (its version never moved on): a folder's own
 * entries.json is then left as it is.
 */
export async function readMemoryRows(client: PoolClient): Promise<unknown[] | null> {
  const version = Number((await client.query<{ version: string }>("SELECT version FROM memory_state")).rows[0]!.version);
  if (version === 0) return null;
  return (await client.query<{ entry: unknown }>("SELECT entry FROM memory_entries ORDER BY pos")).rows.map((r) => r.entry);
}

/** Writes `entries` as the folder's `memory/entries.json`, atomically, as the data folder writes it. */
export async function writeMemoryFile(root: string, entries: readonly unknown[]): Promise<void> {
  await fs.mkdir(path.dirname(entriesFile(root)), { recursive: true });
  await writeFileAtomicUnlocked(entriesFile(root), toPythonJsonBytes({ version: 1, entries }));
}
