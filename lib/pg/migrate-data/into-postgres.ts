import "server-only";
/**
 * `npm run migrate-data -- --from <data folder> --to <PostgreSQL URL>`: a data folder's
 * conversations into PostgreSQL, in one transaction (a failure leaves the database as it was).
 * The folder is read through the file store itself (lib/store ConversationStore), holding the
 * folder's lock so no server writes it meanwhile: each conversation is opened as a server opens
 * it (what a crash left in its step log is replayed) and read as an export reads it, at one
 * moment; every file is checked against its schema. Moved: metadata, the leader's and the
 * sub-agents' messages and metadata (token statistics are in them), the timeline, context reports,
 * action journal and shared context, the folder's state.json and index.json as they were
 * (./folder-state.ts writes them back), and long-term memory's entries (./memory.ts) in the same
 * transaction. Not moved: what is neither (docs/postgresql.md).
 */
import type { Pool, PoolClient } from "pg";
import { acquireDataRootLock, ConversationStore, FileQueues, IndexFileSchema, JsonLineFiles, readJsonFile, StateFileSchema, indexFile, stateFile, type IndexFile, type StateFile } from "@/lib/store";
import { writeDocs } from "../catalog-rows";
import { docsFromFolder } from "../seed-folder";
import { folderMemory, writeMemoryRows } from "./memory";
import { MigrateDataError, type Report } from "./report";

/** What the folder's conversation files are (the export's layout; the step log and temp files are not). */
const LAYOUT = /^(metadata\.json|messages\.json|shared_context\.json|timeline\.jsonl|context\.jsonl|actions\.jsonl|agents\/[1-9]\d{0,15}\/(metadata|messages)\.json)$/;

async function readOptional<T>(read: () => Promise<T>): Promise<T | null> {
  return read().catch(() => null);
}

/** Every conversation id of the folder's store, newest first (the list pages through them). */
async function allIds(store: ConversationStore): Promise<string[]> {
  const ids: string[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await store.list({ status: "all", offset, limit: 100 });
    ids.push(...page.items.map((i) => i.id));
    if (page.items.length < 100) return ids;
  }
}

/**
 * Empties the database's conversations for `--replace`, or refuses: a database holding
 * conversations without it, and one an instance runs conversations of (a live lease) either way.
 * Runs in the migration's transaction, with the conversations table locked against every writer.
 */
async function clearTarget(client: PoolClient, replace: boolean): Promise<number> {
  await client.query("LOCK TABLE conversations IN EXCLUSIVE MODE");
  const held = Number((await client.query<{ n: string }>("SELECT count(*) AS n FROM leases WHERE expires_at > now()")).rows[0]!.n);
  if (held) throw new MigrateDataError(`instances are running ${held} conversation(s) of this database now (their leases are live): stop every instance first`);
  const count = Number((await client.query<{ n: string }>("SELECT count(*) AS n FROM conversations")).rows[0]!.n);
  if (count && !replace) throw new MigrateDataError(`the database holds ${count} conversation(s) already: pass --replace to replace them with the folder's`);
  await client.query("DELETE FROM conversations");
  await client.query("DELETE FROM data_folder_files");
  return count;
}

/** Moves the conversations of the data folder `root` into the database of `pool` (migrated already). */
export async function folderIntoPostgres(root: string, pool: Pool, options: { replace: boolean }): Promise<Report> {
  const lock = await acquireDataRootLock(root).catch((error: unknown) => {
    throw new MigrateDataError((error as Error).message);
  });
  const store = new ConversationStore(root, { checkProjectFolder: async (value) => String(value), queues: new FileQueues(), lines: new JsonLineFiles() });
  const client = await pool.connect();
  try {
    await store.init();
    const ids = await allIds(store);
    const broken = store.problems().filter((p) => p.file.startsWith("conversations/conv_"));
    if (broken.length) throw new MigrateDataError(`the folder has conversation files that cannot be read, which would not be moved: ${broken.map((p) => `${p.file} (${p.message})`).join("; ")}. Repair or remove them first.`);
    const state: StateFile | null = await readOptional(() => readJsonFile(stateFile(store.root), StateFileSchema));
    const index: IndexFile | null = await readOptional(() => readJsonFile(indexFile(store.root), IndexFileSchema));
    const memory = await folderMemory(store.root);
    const report: Report = { conversations: 0, agents: 0, messages: 0, lines: 0, replaced: 0, memoryEntries: memory?.length ?? null };
    await client.query("BEGIN");
    try {
      report.replaced = await clearTarget(client, options.replace);
      let agents = 0;
      for (const id of ids) {
        const files = await store.snapshotFolder(id, (rel) => LAYOUT.test(rel), { bytes: Number.POSITIVE_INFINITY });
        await store.closeConversation(id);
        const docs = docsFromFolder(id, files);
        await writeDocs(client, docs);
        report.conversations++;
        report.agents += docs.agents.length;
        report.messages += docs.leader.messages.length + docs.agents.reduce((n, a) => n + a.messages.messages.length, 0);
        report.lines += [...docs.lines.values()].reduce((n, l) => n + l.length, 0);
        agents += new Set([...docs.meta.agent_ids, ...docs.agents.map((a) => a.meta.agent_id)]).size;
      }
      // The count of sub-agent instances goes on from the folder's (state.json's agent_id_counter).
      const counter = Math.max(state?.agent_id_counter ?? 0, state ? 0 : agents);
      await client.query(counter > 0 ? "SELECT setval('agent_instances', $1)" : "SELECT setval('agent_instances', 1, false)", counter > 0 ? [counter] : []);
      if (state) await client.query("INSERT INTO data_folder_files (name, doc) VALUES ('state.json', $1::json)", [JSON.stringify(state)]);
      if (index) await client.query("INSERT INTO data_folder_files (name, doc) VALUES ('conversations/index.json', $1::json)", [JSON.stringify(index)]);
      if (memory) await writeMemoryRows(client, memory, options.replace);
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    }
    return report;
  } finally {
    client.release();
    await store.closeAll().catch(() => undefined);
    await lock.release().catch(() => undefined);
  }
}
