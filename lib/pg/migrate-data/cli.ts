import "server-only";
/**
 * `npm run migrate-data -- --from <A> --to <B> [--replace]` (bundled and run by
 * scripts/migrate-data.mjs; docs/postgresql.md): moves a data folder's conversations into
 * PostgreSQL (./into-postgres.ts) or writes a database's back as a data folder in the seed's
 * format (./into-folder.ts), and team mode's people and long-term memory's entries with them
 * either way (./people.ts, ./memory.ts). One side is a `postgres://` or `postgresql://` URL, the other a
 * folder. The schema is migrated first. What it refuses, before touching anything: a bad URL, a
 * server it cannot reach or sign in to, a source folder that is not a data folder, a target that
 * is not empty (unless `--replace`), a folder a server has open, a database an instance is running
 * conversations of. Exit code 0 when moved, 1 when refused or failed, 2 for bad arguments.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import type { Pool } from "pg";
import { migrate } from "../migrate";
import { createPool } from "../pool";
import { checkFolderTarget, postgresIntoFolder } from "./into-folder";
import { folderIntoPostgres } from "./into-postgres";
import { databasePeople, folderHasPeople, peopleIntoPostgres, postgresIntoPeople } from "./people";
import { MigrateDataError, type Report } from "./report";

/** How to call it. */
export const USAGE = [
  "usage: npm run migrate-data -- --from <data folder> --to <postgres URL> [--replace]",
  "       npm run migrate-data -- --from <postgres URL> --to <folder> [--replace]",
].join("\n");

/** What the migration leaves where it was, and why (docs/postgresql.md says more). */
export const NOT_MOVED =
  "Not moved (not conversations): the role library (agents/), models.json, model-keys.json, mcp.json and gateway.json (settings), " +
  "long-term memory's search index and distillation progress (memory/index.json, memory/distilled.jsonl), " +
  "and the search and knowledge indexes (search/, knowledge/: rebuilt from what they index).";

const entriesOf = (n: number) => `${n} entr${n === 1 ? "y" : "ies"}`;

interface Args {
  from: string;
  to: string;
  replace: boolean;
}

/** The arguments, `--help`, or what is wrong with them. */
export function parseArgs(argv: readonly string[]): Args | { help: true } | { error: string } {
  const found: Partial<Record<"from" | "to", string>> = {};
  let replace = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--help" || arg === "-h") return { help: true };
    if (arg === "--replace") {
      replace = true;
      continue;
    }
    const m = /^--(from|to)(?:=(.*))?$/.exec(arg);
    if (!m) return { error: `unknown argument ${arg}` };
    const key = m[1] as "from" | "to";
    const value = m[2] ?? argv[++i];
    if (!value) return { error: `--${key} needs a value` };
    if (found[key] !== undefined) return { error: `--${key} is given twice` };
    found[key] = value;
  }
  if (!found.from || !found.to) return { error: "both --from and --to are needed" };
  return { from: found.from, to: found.to, replace };
}

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

/** The URL as it may be shown: its password left out. */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.href;
  } catch {
    return url.replace(/:[^:@/]*@/, ":***@");
  }
}

/** @throws MigrateDataError for a URL that is not a PostgreSQL one. */
function checkUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new MigrateDataError(`${shownUrl(url)} is not a valid URL (postgresql://user:password@host:port/database)`);
  }
  if (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:") throw new MigrateDataError(`${shownUrl(url)} is not a PostgreSQL URL: it must start with postgres:// or postgresql://`);
  if (!parsed.pathname.replace(/^\//, "")) throw new MigrateDataError(`${shownUrl(url)} names no database (postgresql://host:port/database)`);
}

/** A pool on `url` whose first connection worked. @throws MigrateDataError saying why none could be made. */
async function connect(url: string): Promise<Pool> {
  // No idle-in-transaction limit: the migration's transaction waits on the folder between its statements.
  const pool = createPool(url, { applicationName: "astrion-migrate-data", max: 2, idleInTransactionMs: 0, connectTimeoutMs: 10_000 });
  try {
    await pool.query("SELECT 1");
    return pool;
  } catch (error) {
    await pool.end().catch(() => undefined);
    const e = error as { code?: string; message: string };
    const u = new URL(url);
    const where = `${u.hostname || "localhost"}:${u.port || "5432"}`;
    if (e.code === "28P01" || e.code === "28000") throw new MigrateDataError(`PostgreSQL at ${where} refused the sign-in: ${e.message}`);
    if (e.code === "3D000") throw new MigrateDataError(`${e.message} on ${where}: create it first (createdb)`);
    if (e.code && /^[0-9A-Z]{5}$/.test(e.code)) throw new MigrateDataError(`PostgreSQL at ${where} refused the connection: ${e.message}`);
    throw new MigrateDataError(`cannot reach PostgreSQL at ${where} (${e.code ?? e.message}): is the server running, and is the address right?`);
  }
}

/** @throws MigrateDataError when `root` is not a data folder (a folder with conversations/ or state.json). */
async function checkDataFolder(root: string): Promise<void> {
  const stat = await fs.stat(root).catch(() => null);
  if (!stat) throw new MigrateDataError(`${root} does not exist`);
  if (!stat.isDirectory()) throw new MigrateDataError(`${root} is a file, not a data folder`);
  const conversations = await fs.stat(path.join(root, "conversations")).catch(() => null);
  const state = await fs.stat(path.join(root, "state.json")).catch(() => null);
  if (!conversations?.isDirectory() && !state?.isFile()) throw new MigrateDataError(`${root} is not an Astrion data folder: it has neither conversations/ nor state.json`);
}

function summary(report: Report): string {
  return `${report.conversations} conversation(s), ${report.agents} sub-agent(s), ${report.messages} message(s), ${report.lines} timeline, context and journal line(s)`;
}

/** Runs the tool; resolves with its exit code. `io` is where its lines go. */
export async function main(argv: readonly string[], io: { out: (line: string) => void; err: (line: string) => void } = { out: console.log, err: console.error }): Promise<number> {
  const args = parseArgs(argv);
  if ("help" in args) {
    io.out(USAGE);
    return 0;
  }
  if ("error" in args) {
    io.err(`migrate-data: ${args.error}\n${USAGE}`);
    return 2;
  }
  const fromDatabase = SCHEME.test(args.from);
  if (fromDatabase === SCHEME.test(args.to)) {
    io.err(`migrate-data: one of --from and --to must be a PostgreSQL URL, the other a folder\n${USAGE}`);
    return 2;
  }
  const url = fromDatabase ? args.from : args.to;
  const folder = path.resolve(fromDatabase ? args.to : args.from);
  let pool: Pool | null = null;
  try {
    checkUrl(url);
    if (fromDatabase) await checkFolderTarget(folder, args.replace);
    else await checkDataFolder(folder);
    pool = await connect(url);
    await migrate(pool).catch((error: unknown) => {
      throw new MigrateDataError(`the database's schema could not be brought up to date: ${(error as Error).message}`);
    });
    if (fromDatabase) {
      const report = await postgresIntoFolder(pool, folder);
      io.out(`migrate-data: wrote ${summary(report)} from ${shownUrl(url)} into ${folder}${report.replaced ? " (its conversations replaced)" : ""}`);
      if (report.running) io.out(`migrate-data: note: instances were running ${report.running} conversation(s): what they had not committed yet is not in the folder`);
      const people = await postgresIntoPeople(pool, folder);
      if (people !== null) io.out(`migrate-data: wrote ${people} person(s), their sessions and open invitations into ${path.join(folder, "people")}`);
      if (report.memoryEntries !== null) io.out(`migrate-data: wrote ${entriesOf(report.memoryEntries)} of long-term memory into ${path.join(folder, "memory", "entries.json")}`);
    } else {
      const carryPeople = folderHasPeople(folder);
      // Refused before anything moves, so a refusal never leaves the conversations moved without the people.
      if (carryPeople && !args.replace && (await databasePeople(pool))) throw new MigrateDataError("the database holds people already: pass --replace to replace them with the folder's");

      const report = await folderIntoPostgres(folder, pool, { replace: args.replace });
      io.out(`migrate-data: moved ${summary(report)} from ${folder} into ${shownUrl(url)}${report.replaced ? ` (${report.replaced} conversation(s) replaced)` : ""}`);
      if (carryPeople) io.out(`migrate-data: moved ${await peopleIntoPostgres(folder, pool, { replace: args.replace })} person(s), their sessions and open invitations`);
      if (report.memoryEntries !== null) io.out(`migrate-data: moved ${entriesOf(report.memoryEntries)} of long-term memory`);
    }
    io.out(`migrate-data: ${NOT_MOVED}`);
    return 0;
  } catch (error) {
    io.err(`migrate-data: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    await pool?.end().catch(() => undefined);
  }
}
