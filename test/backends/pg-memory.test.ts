/**
 * Long-term memory's entries on PostgreSQL (lib/pg/memory-store.ts, migration 6), on a throwaway
 * cluster: two memory services, each with its own pool and data folder, stand for two instances
 * on one database. An entry made on one is recalled and listed on the other within the issue's
 * 2 s; a write on one sees what the other made a moment before; writes made at once on both
 * lose none of each other's entries, nor of one entry's edits (a save based on a version
 * another moved on is refused and merged anew); a stale save is refused by the store itself;
 * entries keep their order; a row that does not fit its schema is reported and never written over.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Pool } from "pg";
import { createPgMemoryEntries, createPool, migrate } from "@/lib/pg";
import { EntriesChangedError } from "@/lib/memory/entries-store";
import { MemoryService } from "@/lib/memory/service";
import type { CreateMemoryBody } from "@/lib/memory/schema";
import { FileQueues } from "@/lib/store/atomic";
import { until } from "@/test/helpers/wait";
import { pgClusterForFile } from "@/test/support/pg-cluster";

const pg = pgClusterForFile();
const pools: Pool[] = [];
const folders: string[] = [];

afterAll(async () => {
  await Promise.all(pools.map((p) => p.end()));
  await Promise.all(folders.map((f) => fs.rm(f, { recursive: true, force: true })));
});

function poolOn(url: string): Pool {
  const pool = createPool(url, { max: 4 });
  pools.push(pool);
  return pool;
}

/** A fresh database with the schema migrated. */
async function database(): Promise<string> {
  const url = await pg.cluster.createDatabase();
  await migrate(poolOn(url));
  return url;
}

/** One instance's memory: its own pool and data folder, the entries in the database at `url`. */
async function instance(url: string): Promise<MemoryService> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), "astrion-pgmem-"));
  folders.push(root);
  const memory = new MemoryService(root, { embedder: async () => null, queues: new FileQueues(), entries: createPgMemoryEntries(poolOn(url)) });
  await memory.ready();
  return memory;
}

function body(statement: string, over: Partial<CreateMemoryBody> = {}): CreateMemoryBody {
  return { kind: "fact", statement, subject: "", project_path: "/p", level: "project", grant: [], confidence: 0.8, ...over } as CreateMemoryBody;
}

const reader = { project_path: "/p", role_id: "leader" };
const listAll = (m: MemoryService) => m.list({ offset: 0, limit: 100 } as Parameters<MemoryService["list"]>[0]);

describe("memory entries on PostgreSQL", () => {
  it("an entry made on one instance is recalled and listed on the other within 2 s, and so are its edit and removal; nothing is written to memory/entries.json", async () => {
    const url = await database();
    const [a, b] = [await instance(url), await instance(url)];
    expect((await listAll(b)).total).toBe(0);
    const made = await a.create(body("The billing service retries webhooks three times", { subject: "billing webhooks" }));
    expect(made.action).toBe("added");
    const hit = await until("B to recall A's entry", async () => (await b.recall({ text: "billing webhook retries", reader }))[0], 2_000);
    expect(hit.entry).toEqual(made.entry);
    const edited = await b.update(made.entry.id, { statement: "The billing service retries webhooks five times" });
    await until("A to see B's edit", async () => (await a.get(made.entry.id)).statement === edited.statement, 2_000);
    await a.remove(made.entry.id);
    await until("B to see A's removal", async () => (await listAll(b)).total === 0, 2_000);
    for (const m of [a, b]) await expect(fs.access(path.join(m.root, "memory", "entries.json"))).rejects.toThrow();
  });

  it("writes made at once on two instances lose none of each other's entries, and both end with the same entries", async () => {
    const url = await database();
    const [a, b] = [await instance(url), await instance(url)];
    const topics = ["kafka", "redis", "nginx", "grafana", "vault", "consul", "etcd", "minio"];
    await Promise.all(
      topics.flatMap((t, i) => [
        a.create(body(`Instance A notes that ${t} runs on port ${4000 + i}`, { subject: `${t} on A` })),
        b.create(body(`Instance B records the ${t} owner as team ${i}`, { subject: `${t} on B` })),
      ]),
    );
    const statements = (list: Awaited<ReturnType<typeof listAll>>) => list.entries.map((e) => e.statement).sort();
    const fresh = await instance(url);
    const all = await listAll(fresh);
    expect(all.total).toBe(16);
    await until("both instances to list all 16", async () => (await listAll(a)).total === 16 && (await listAll(b)).total === 16, 2_000);
    expect(statements(await listAll(a))).toEqual(statements(all));
    expect(statements(await listAll(b))).toEqual(statements(all));
  });

  it("a write sees the other instance's entries at once, without a read first: an entry made on A a moment ago is edited on B", async () => {
    const url = await database();
    const [a, b] = [await instance(url), await instance(url)];
    // B reads once now, so its next reads would not ask the store again within the second.
    expect((await listAll(b)).total).toBe(0);
    const made = (await a.create(body("Deploys are frozen on Fridays", { subject: "deploy freeze" }))).entry;
    const edited = await b.update(made.id, { statement: "Deploys are frozen on Fridays after noon" });
    expect(edited).toMatchObject({ id: made.id, statement: "Deploys are frozen on Fridays after noon" });
    await until("A to see B's edit", async () => (await a.get(made.id)).statement === edited.statement, 2_000);
  });

  it("edits of one entry made at once on two instances both hold: neither is based on the entry as it was before the other", async () => {
    const url = await database();
    const [a, b] = [await instance(url), await instance(url)];
    const made = (await a.create(body("The cache is flushed nightly", { subject: "cache" }))).entry;
    await until("B to hold the entry", async () => (await listAll(b)).total === 1, 2_000);
    for (let round = 0; round < 5; round++) {
      await Promise.all([a.update(made.id, { statement: `The cache is flushed nightly, round ${round}` }), b.update(made.id, { subject: `cache, round ${round}` })]);
      const stored = await instance(url).then((m) => m.get(made.id));
      expect(stored).toMatchObject({ statement: `The cache is flushed nightly, round ${round}`, subject: `cache, round ${round}` });
    }
  });

  it("the store refuses a save based on a version another save moved on, and keeps entries in the order they were made", async () => {
    const url = await database();
    const store = createPgMemoryEntries(poolOn(url));
    const first = await store.load();
    if (!first.ok) throw new Error("a fresh database's memory is not broken");
    const m = await instance(url);
    const one = (await m.create(body("First statement about queues", { subject: "one" }))).entry;
    const two = (await m.create(body("Second statement about caches", { subject: "two" }))).entry;
    await expect(store.save(first.stamp, { entries: [], changed: [], removed: [one.id] })).rejects.toBeInstanceOf(EntriesChangedError);
    const now = await store.load();
    expect(now.ok && now.entries.map((e) => e.id)).toEqual([one.id, two.id]);
    // A changed entry keeps its place; a new one goes last.
    await m.update(one.id, { statement: "First statement about message queues" });
    const three = (await m.create(body("Third statement about logs", { subject: "three" }))).entry;
    const after = await store.load();
    expect(after.ok && after.entries.map((e) => e.id)).toEqual([one.id, two.id, three.id]);
    expect(after.ok && after.entries[0]!.statement).toBe("First statement about message queues");
  });

  it("a row that does not fit its schema is reported and never written over", async () => {
    const url = await database();
    const m = await instance(url);
    const kept = (await m.create(body("A statement to keep", { subject: "kept" }))).entry;
    const admin = poolOn(url);
    await admin.query("UPDATE memory_entries SET entry = $2::json WHERE id = $1", [kept.id, JSON.stringify({ id: kept.id, kind: "not a kind" })]);
    const broken = await instance(url);
    expect(broken.notices().map((n) => n.message).join("\n")).toContain(`the entry ${kept.id} does not match its schema`);
    expect(broken.size).toBe(0);
    await expect(broken.create(body("A statement that must not land", { subject: "refused" }))).rejects.toThrow(/broken/);
    expect((await admin.query("SELECT count(*)::int AS n FROM memory_entries")).rows[0].n).toBe(1);
  });
});
