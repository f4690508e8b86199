/**
 * `npm run migrate-data` (lib/pg/migrate-data) on a throwaway cluster, over a data folder made by
 * real offline runs whose role library is the real role corpus (test/support/offline-data-folder.ts)
 * plus a conversation with the odd content a move must keep (test/support/data-folder-files.ts):
 * a round trip gives every moved file back byte for byte (long-term memory's entries.json too), in
 * a folder the seed-format check and the file store accept; what changed on PostgreSQL (a
 * conversation, a memory entry) is exactly what differs; the script itself
 * runs; and every refusal is clear and leaves the target as it was: a bad URL, an unreachable
 * server, a folder that is not a data folder, a target that is not empty (without --replace), a
 * database an instance is running, a folder a server holds, a folder with unreadable conversations
 * or a line PostgreSQL cannot hold.
 */
import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net, { type AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPgBackend, createPgMemoryEntries, createPgStorage, createPool, MIGRATIONS } from "@/lib/pg";
import { MemoryService } from "@/lib/memory/service";
import type { CreateMemoryBody } from "@/lib/memory/schema";
import { FileQueues } from "@/lib/store/atomic";
import { main } from "@/lib/pg/migrate-data/cli";
import { newConversationStore } from "@/test/helpers/conversation-store";
import { differing, expectSeedFormat, movedFiles, oddConversation, ODD_ID } from "@/test/support/data-folder-files";
import { demoProject, runOfflineTeams } from "@/test/support/offline-data-folder";
import { pgClusterForFile } from "@/test/support/pg-cluster";

const pg = pgClusterForFile();
const REPO = path.resolve(__dirname, "..", "..");
const temps: string[] = [];
let project: string;
let source: string;
let offline: string[];

function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  temps.push(dir);
  return dir;
}

/** Runs the tool in this process; resolves with its exit code and what it printed. */
async function migrateData(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

async function count(url: string, sql = "SELECT count(*) AS n FROM conversations"): Promise<number> {
  const pool = createPool(url, { max: 1 });
  try {
    return Number((await pool.query<{ n: string }>(sql)).rows[0]!.n);
  } finally {
    await pool.end();
  }
}

beforeAll(async () => {
  project = demoProject();
  temps.push(project);
  source = tempDir("astrion-migrate-source-");
  // The odd conversation first, placed as an import places it; then the offline teams over the same folder.
  const store = newConversationStore(source);
  await store.init();
  await store.installConversation(ODD_ID, "create", () => oddConversation(project));
  await store.closeAll();
  offline = await runOfflineTeams(source, project, ["Review this project, add tests for it and document its structure", "把登录模块的安全问题找出来并修好"]);
  // Long-term memory of odd content, written by the memory service itself (memory/entries.json).
  const memory = new MemoryService(source, { embedder: async () => null, queues: new FileQueues() });
  for (const entry of ODD_MEMORY) await memory.create(entry);
});

/** Memory entries beyond ASCII, with a fractional confidence, a restricted grant and a public preference. */
const ODD_MEMORY: CreateMemoryBody[] = [
  { kind: "fact", statement: "登录模块的会话令牌 🚀 在 30 分钟后过期", subject: "会话令牌", project_path: "/p", level: "project", grant: [], confidence: 0.73 },
  { kind: "preference", statement: "Réponses courtes, avec des exemples de code", subject: "style", project_path: null, level: "public", grant: [], confidence: 1 },
  { kind: "open_issue", statement: "The payment webhook is not idempotent yet", subject: "payment webhook", project_path: "/p", level: "restricted", grant: ["reviewer"], confidence: 0.5 },
] as CreateMemoryBody[];

/** The bytes of a folder's memory/entries.json. */
const memoryFile = (root: string) => readFileSync(path.join(root, "memory", "entries.json"));

afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

describe("npm run migrate-data", () => {
  it("a round trip gives every moved file back byte for byte, in a folder the seed-format check and the file store accept", async () => {
    const before = movedFiles(source);
    expect([...before.keys()].filter((k) => k.includes("/agents/")).length).toBeGreaterThan(2);
    const url = await pg.cluster.createDatabase();
    const moved = await migrateData("--from", source, "--to", url);
    expect(moved).toMatchObject({ code: 0, err: "" });
    expect(moved.out).toMatch(/moved 3 conversation\(s\), [1-9]\d* sub-agent\(s\)/);
    expect(moved.out).toContain("Not moved");
    expect(await count(url, "SELECT max(version) AS n FROM schema_migrations")).toBe(Math.max(...MIGRATIONS.map((m) => m.version)));

    const back = path.join(tempDir("astrion-migrate-back-"), "data");
    expect(await migrateData("--from", url, "--to", back)).toMatchObject({ code: 0, err: "" });
    const after = movedFiles(back);
    expect(differing(before, after)).toEqual([]);
    // The offline runs' distilled entries and the odd ones.
    const entries = (JSON.parse(memoryFile(source).toString()) as { entries: unknown[] }).entries.length;
    expect(entries).toBeGreaterThanOrEqual(ODD_MEMORY.length);
    expect(moved.out).toContain(`moved ${entries} entries of long-term memory`);
    expect(memoryFile(back).equals(memoryFile(source))).toBe(true);
    // Only conversations and memory's entries came back: roles, settings, memory's index and the search indexes were not moved.
    expect(readdirSync(back).sort()).toEqual(["conversations", "memory", "state.json"]);
    expect(readdirSync(path.join(back, "memory"))).toEqual(["entries.json"]);
    expect(movedFiles(source)).toEqual(before); // reading the folder changed none of its moved files
    expectSeedFormat(back);

    const store = newConversationStore(back);
    await store.init();
    try {
      expect(store.problems()).toEqual([]);
      expect(store.indexReport()).toMatchObject({ conversations: 3, rebuilds: [] });
      expect((await store.list({ status: "all" })).items.map((i) => i.id).sort()).toEqual([ODD_ID, ...offline].sort());
      expect((await store.get(ODD_ID)).title).toBe("Réunion: 数据迁移 🚀 e\u0301\u0000té");
    } finally {
      await store.closeAll();
    }
  });

  it("what changed on PostgreSQL is exactly what differs; a new conversation moves state.json on", async () => {
    const url = await pg.cluster.createDatabase();
    expect((await migrateData("--from", source, "--to", url)).code).toBe(0);
    const backend = await createPgBackend({ url, owner: "editor", checkProjectFolder: async (v) => String(v), log: () => undefined });
    try {
      await backend.catalog.update(offline[0]!, { title: "Renamed on PostgreSQL" });
      await backend.storage.conversations.updateAgentMessages(offline[1]!, 1, (f) => ({ ...f, messages: [...f.messages, { role: "assistant", content: "one more" }] }));
      await backend.storage.letGo(offline[1]!);
      // A memory entry edited on PostgreSQL, as an instance's memory service edits it.
      const memoryRoot = tempDir("astrion-migrate-memory-");
      const memory = new MemoryService(memoryRoot, { embedder: async () => null, queues: new FileQueues(), entries: createPgMemoryEntries(backend.storage.pool) });
      const listed = await memory.list({ offset: 0, limit: 100 } as Parameters<MemoryService["list"]>[0]);
      const issue = listed.entries.find((e) => e.statement === ODD_MEMORY[2]!.statement)!;
      await memory.update(issue.id, { statement: "The payment webhook is idempotent now" });
    } finally {
      await backend.close();
    }
    const back = path.join(tempDir("astrion-migrate-changed-"), "data");
    expect((await migrateData("--from", url, "--to", back)).code).toBe(0);
    expect(differing(movedFiles(source), movedFiles(back))).toEqual(
      [`conversations/${offline[0]}/messages.json`, `conversations/${offline[0]}/metadata.json`, `conversations/${offline[1]}/agents/1/messages.json`, "conversations/index.json"].sort(),
    );
    // Memory: the edited entry changed (its text, time and history), in its place; the others are as they were.
    const entriesOf = (root: string) => (JSON.parse(memoryFile(root).toString()) as { entries: Array<{ id: string; statement: string }> }).entries;
    const [was, now] = [entriesOf(source), entriesOf(back)];
    const edited = was.find((e) => e.statement === ODD_MEMORY[2]!.statement)!.id;
    expect(now.map((e) => e.id)).toEqual(was.map((e) => e.id));
    expect(now.filter((e) => e.id !== edited)).toEqual(was.filter((e) => e.id !== edited));
    expect(now.find((e) => e.id === edited)!.statement).toBe("The payment webhook is idempotent now");

    const again = await createPgBackend({ url, owner: "editor", checkProjectFolder: async (v) => String(v), log: () => undefined });
    const created = await again.catalog.create({ title: "Made on PostgreSQL", project_path: project, model_key: "offline" }).finally(() => again.close());
    const third = path.join(tempDir("astrion-migrate-new-"), "data");
    expect((await migrateData("--from", url, "--to", third)).code).toBe(0);
    const state = JSON.parse(movedFiles(third).get("state.json")!.toString()) as { last_conversation_id: string; agent_id_counter: number };
    const sourceState = JSON.parse(movedFiles(source).get("state.json")!.toString()) as { agent_id_counter: number };
    expect(state).toMatchObject({ last_conversation_id: created.id, agent_id_counter: sourceState.agent_id_counter });
    expect(Object.keys(JSON.parse(movedFiles(third).get("conversations/index.json")!.toString()) as object).at(-1)).toBe(created.id);
    expectSeedFormat(third);
  });

  it("runs as the npm script (the bundled tool), exit code 0 and its lines on stdout", async () => {
    const url = await pg.cluster.createDatabase();
    const child = spawn(process.execPath, [path.join(REPO, "scripts", "migrate-data.mjs"), "--from", source, "--to", url], { cwd: REPO, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (err += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect({ code, err }).toEqual({ code: 0, err: "" });
    expect(out).toMatch(/migrate-data: moved 3 conversation\(s\)/);
    expect(await count(url)).toBe(3);
  });
});

describe("npm run migrate-data refuses clearly, and leaves the target as it was", () => {
  it("a bad URL, an unreachable server, a folder that is not a data folder", async () => {
    expect(await migrateData("--from", source, "--to", "postgres://someone:s3cret@127.0.0.1:notaport/db")).toMatchObject({ code: 1, err: expect.stringMatching(/is not a valid URL/) });
    expect((await migrateData("--from", source, "--to", "postgres://someone:s3cret@127.0.0.1:notaport/db")).err).not.toContain("s3cret");
    expect(await migrateData("--from", source, "--to", "mysql://127.0.0.1/db")).toMatchObject({ code: 1, err: expect.stringMatching(/is not a PostgreSQL URL/) });
    expect(await migrateData("--from", source, "--to", `postgresql://127.0.0.1:${pg.cluster.port}`)).toMatchObject({ code: 1, err: expect.stringMatching(/names no database/) });
    const port = await closedPort();
    expect(await migrateData("--from", source, "--to", `postgresql://127.0.0.1:${port}/db`)).toMatchObject({ code: 1, err: expect.stringContaining(`cannot reach PostgreSQL at 127.0.0.1:${port} (ECONNREFUSED)`) });
    const empty = tempDir("astrion-migrate-empty-");
    expect(await migrateData("--from", empty, "--to", pg.cluster.url())).toMatchObject({ code: 1, err: expect.stringMatching(/is not an Astrion data folder: it has neither conversations\/ nor state.json/) });
    expect(await migrateData("--from", path.join(empty, "missing"), "--to", pg.cluster.url())).toMatchObject({ code: 1, err: expect.stringMatching(/does not exist/) });
    expect(await migrateData("--from", empty, "--to", path.join(empty, "b"))).toMatchObject({ code: 2, err: expect.stringMatching(/one of --from and --to must be a PostgreSQL URL/) });
    expect(readdirSync(empty)).toEqual([]);
  });

  it("a database holding conversations unless --replace, and one an instance is running even then", async () => {
    const url = await pg.cluster.createDatabase();
    expect((await migrateData("--from", source, "--to", url)).code).toBe(0);
    expect(await migrateData("--from", source, "--to", url)).toMatchObject({ code: 1, err: expect.stringMatching(/holds 3 conversation\(s\) already: pass --replace/) });
    expect(await migrateData("--from", source, "--to", url, "--replace")).toMatchObject({ code: 0, out: expect.stringContaining("(3 conversation(s) replaced)") });
    expect(await count(url)).toBe(3);

    const running = await createPgStorage({ url, owner: "running-instance", log: () => undefined });
    try {
      await running.open(offline[0]!);
      expect(await migrateData("--from", source, "--to", url, "--replace")).toMatchObject({ code: 1, err: expect.stringMatching(/instances are running 1 conversation\(s\).*stop every instance first/) });
      // Reading out of a database that is running works, and says what may be missing.
      const out = path.join(tempDir("astrion-migrate-running-"), "data");
      expect(await migrateData("--from", url, "--to", out)).toMatchObject({ code: 0, out: expect.stringContaining("note: instances were running 1 conversation(s)") });
    } finally {
      await running.end();
    }
    expect(await count(url)).toBe(3);
  });

  it("a folder that is not empty unless --replace (which keeps what is not moved), and a folder a server holds", async () => {
    const url = await pg.cluster.createDatabase();
    expect((await migrateData("--from", source, "--to", url)).code).toBe(0);
    const target = tempDir("astrion-migrate-target-");
    writeFileSync(path.join(target, "models.json"), "{}");
    expect(await migrateData("--from", url, "--to", target)).toMatchObject({ code: 1, err: expect.stringMatching(/is not empty: pass --replace/) });
    expect(readdirSync(target)).toEqual(["models.json"]);
    expect((await migrateData("--from", url, "--to", target, "--replace")).code).toBe(0);
    expect(readdirSync(target).sort()).toEqual(["conversations", "memory", "models.json", "state.json"]);
    expect(differing(movedFiles(source), movedFiles(target))).toEqual([]);

    // A live server process owns the folder (its lock names it): refused, nothing written.
    const server = spawn("sleep", ["60"], { stdio: "ignore" });
    try {
      writeFileSync(path.join(target, ".astrion.lock"), JSON.stringify({ pid: server.pid, hostname: os.hostname(), started_at: "2026-07-11T21:00:00", cwd: "/" }));
      const before = movedFiles(target);
      expect(await migrateData("--from", url, "--to", target, "--replace")).toMatchObject({ code: 1, err: expect.stringMatching(/already in use by another Astrion Team server \(pid \d+/) });
      expect(movedFiles(target)).toEqual(before);
      // The same as a source: a folder a server has open is not read.
      const other = await pg.cluster.createDatabase();
      expect(await migrateData("--from", target, "--to", other)).toMatchObject({ code: 1, err: expect.stringMatching(/already in use by another Astrion Team server/) });
      expect(await count(other)).toBe(0);
    } finally {
      server.kill("SIGKILL");
    }
  });

  it("a folder with a conversation that cannot be read, or a line PostgreSQL cannot hold: nothing of the folder lands", async () => {
    const url = await pg.cluster.createDatabase();
    const broken = tempDir("astrion-migrate-broken-");
    cpSync(source, broken, { recursive: true });
    rmSync(path.join(broken, ".astrion.lock"), { force: true });
    writeFileSync(path.join(broken, "conversations", offline[1]!, "metadata.json"), "{ not json");
    expect(await migrateData("--from", broken, "--to", url)).toMatchObject({ code: 1, err: expect.stringContaining(`conversations/${offline[1]}/metadata.json`) });
    expect(await count(url)).toBe(0);

    cpSync(path.join(source, "conversations", offline[1]!, "metadata.json"), path.join(broken, "conversations", offline[1]!, "metadata.json"));
    // The odd conversation is the oldest, so the others are written before it fails.
    writeFileSync(path.join(broken, "conversations", ODD_ID, "timeline.jsonl"), "{}\n\u0000\n");
    expect(await migrateData("--from", broken, "--to", url)).toMatchObject({ code: 1, err: expect.stringMatching(new RegExp(`conversations/${ODD_ID}/timeline.jsonl: holds a NUL character`)) });
    expect(await count(url)).toBe(0);
  });
});

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
