import "server-only";
/**
 * `npm run migrate-data -- --from <PostgreSQL URL> --to <folder>`: the database's conversations
 * written as a data folder in the seed's exact format (lib/pg/seed-folder.ts writes each file as
 * the file store does), with its index.json and state.json (./folder-state.ts). Every row is read
 * in one REPEATABLE READ transaction, so the folder is the database at one moment. The
 * conversations are written into a staging folder beside, each file synced, then renamed into
 * place, so the target never shows half of them; state.json comes last. The folder is locked as a
 * server locks it, so no server on it writes meanwhile. With `--replace`, the folder's
 * `conversations/` and `state.json` are replaced and everything else in it is kept (roles,
 * models.json, mcp.json, memory's index: what the migration does not move); long-term memory's
 * entries, read in the same transaction, are written as `memory/entries.json` last (./memory.ts).
 */
import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import type { Pool } from "pg";
import {
  acquireDataRootLock,
  conversationsDir,
  fsyncDir,
  stateFile,
  toPythonJsonBytes,
  writeFileAtomicUnlocked,
  writeNewFileDurable,
  type ConversationMetadata,
  type IndexFile,
  type StateFile,
} from "@/lib/store";
import { writeFolderFiles } from "@/lib/store/folder-files";
import { readDocs } from "../catalog-rows";
import { folderFromDocs } from "../seed-folder";
import { indexFor, stateFor } from "./folder-state";
import { readMemoryRows, writeMemoryFile } from "./memory";
import { MigrateDataError, type Report } from "./report";

/** Writes the conversations of the database of `pool` (migrated already) as the data folder `root` (checked by {@link checkFolderTarget} first). */
export async function postgresIntoFolder(pool: Pool, root: string): Promise<Report & { running: number }> {
  await fs.mkdir(root, { recursive: true });
  const lock = await acquireDataRootLock(root).catch((error: unknown) => {
    throw new MigrateDataError((error as Error).message);
  });
  const staging = path.join(root, `.migrating-${randomBytes(6).toString("hex")}`);
  const client = await pool.connect();
  try {
    await fs.mkdir(path.join(staging, "conversations"), { recursive: true });
    const report: Report & { running: number } = { conversations: 0, agents: 0, messages: 0, lines: 0, replaced: 0, memoryEntries: null, running: 0 };
    let memory: unknown[] | null;
    let index: IndexFile;
    let state: StateFile;
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    try {
      report.running = Number((await client.query<{ n: string }>("SELECT count(*) AS n FROM leases WHERE expires_at > now()")).rows[0]!.n);
      const ids = (await client.query<{ id: string }>("SELECT id FROM conversations ORDER BY id")).rows.map((r) => r.id);
      const metas: ConversationMetadata[] = [];
      for (const id of ids) {
        const docs = await readDocs(client, id);
        await writeFolderFiles(path.join(staging, "conversations", id), folderFromDocs(docs));
        metas.push(docs.meta);
        report.conversations++;
        report.agents += docs.agents.length;
        report.messages += docs.leader.messages.length + docs.agents.reduce((n, a) => n + a.messages.messages.length, 0);
        report.lines += [...docs.lines.values()].reduce((n, l) => n + l.length, 0);
      }
      const stored = new Map((await client.query<{ name: string; doc: unknown }>("SELECT name, doc FROM data_folder_files")).rows.map((r) => [r.name, r.doc]));
      const agentCount = Number((await client.query<{ n: string }>("SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS n FROM agent_instances")).rows[0]!.n);
      const storedIndex = (stored.get("conversations/index.json") as IndexFile | undefined) ?? null;
      index = indexFor(storedIndex, metas);
      state = stateFor({ state: (stored.get("state.json") as StateFile | undefined) ?? null, index: storedIndex }, metas, agentCount);
      memory = await readMemoryRows(client);
    } finally {
      await client.query("ROLLBACK").catch(() => undefined);
    }
    await writeNewFileDurable(path.join(staging, "conversations", "index.json"), toPythonJsonBytes(index));
    await fsyncDir(path.join(staging, "conversations"));

    const target = conversationsDir(root);
    const aside = path.join(root, `.replaced-conversations-${randomBytes(4).toString("hex")}`);
    const moved = await fs.rename(target, aside).then(
      () => true,
      (error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") return false;
        throw error;
      },
    );
    report.replaced = moved ? 1 : 0;
    await fs.rename(path.join(staging, "conversations"), target);
    await fsyncDir(root);
    await writeFileAtomicUnlocked(stateFile(root), toPythonJsonBytes(state));
    if (moved) await fs.rm(aside, { recursive: true, force: true });
    if (memory) await writeMemoryFile(root, memory);
    report.memoryEntries = memory?.length ?? null;
    return report;
  } finally {
    client.release();
    await fs.rm(staging, { recursive: true, force: true }).catch(() => undefined);
    await lock.release().catch(() => undefined);
  }
}

/** Whether `root` may be written: missing or empty, or anything with `replace`. @throws MigrateDataError otherwise, or when it is not a folder. */
export async function checkFolderTarget(root: string, replace: boolean): Promise<void> {
  const stat = await fs.stat(root).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return null;
    throw error;
  });
  if (!stat) return;
  if (!stat.isDirectory()) throw new MigrateDataError(`${root} is a file, not a folder`);
  const entries = await fs.readdir(root);
  if (entries.length && !replace) throw new MigrateDataError(`${root} is not empty: pass --replace to replace its conversations, state.json, people and memory entries (its roles and settings are kept)`);
}
