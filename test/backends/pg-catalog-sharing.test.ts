/**
 * How the PostgreSQL catalog (lib/pg/catalog.ts) shares the engine storage's conversations, on a
 * throwaway cluster, each instance a backend (lib/pg `createPgBackend`) reaching the server through
 * a proxy of its own: a conversation a run holds is read from the run's memory and changed through
 * the run's single writer (the run sees the change at once, keeps its lease, and its next commit
 * keeps it); what a read or a snapshot shows, and what observers hear, is committed first; a change
 * of a conversation another instance runs is refused, one nobody runs takes the lease for itself
 * only; an import over a conversation is refused while anyone runs it and fences whoever held it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Pool } from "pg";
import { ConflictError } from "@/lib/contracts/errors";
import type { Message } from "@/lib/contracts/on-disk";
import { createPool, FencedError, LeaseHeldError } from "@/lib/pg";
import type { StoreChange } from "@/lib/store";
import { pgBackendThroughProxy, type ProxiedBackend } from "@/test/support/pg-catalog";
import { until } from "@/test/helpers/wait";
import { pgClusterForFile } from "@/test/support/pg-cluster";

const pg = pgClusterForFile();
let cleanup: Array<() => Promise<unknown>> = [];
let project: string;

beforeAll(() => {
  project = mkdtempSync(path.join(os.tmpdir(), "astrion-pg-sharing-project-"));
});
afterAll(() => rmSync(project, { recursive: true, force: true }));
afterEach(async () => {
  for (const fn of cleanup.reverse()) await fn().catch(() => undefined);
  cleanup = [];
});

async function database(): Promise<{ name: string; reader: Pool }> {
  const url = await pg.cluster.createDatabase();
  const reader = createPool(url, { max: 2 });
  cleanup.push(() => reader.end());
  return { name: new URL(url).pathname.slice(1), reader };
}

async function instance(name: string, owner: string, leaseMs?: number): Promise<ProxiedBackend> {
  const made = await pgBackendThroughProxy(pg.cluster, name, owner, leaseMs);
  cleanup.push(() => made.close());
  return made;
}

async function newConversation(i: ProxiedBackend, title = "Shared"): Promise<string> {
  return (await i.backend.catalog.create({ title, project_path: project, model_key: "offline" })).id;
}

const say = (content: string): Message => ({ role: "assistant", content });
const contents = (messages: Message[]) => messages.map((m) => m.content);

async function lease(reader: Pool, id: string): Promise<{ owner: string; epoch: number; expired: boolean }> {
  const row = (await reader.query<{ owner: string; epoch: string; expired: boolean }>("SELECT owner, epoch, expires_at <= now() AS expired FROM leases WHERE conversation_id = $1", [id])).rows[0]!;
  return { owner: row.owner, epoch: Number(row.epoch), expired: row.expired };
}

/** Whether `promise` has settled after a few turns of the event loop (enough for anything answered from memory). */
async function settledSoon(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

describe("the catalog shares the engine storage's conversations", () => {
  it("a held conversation is read from the run's memory, and a change through the catalog goes through the run's writer: seen at once, same lease, kept by the run's next commit", async () => {
    const db = await database();
    const a = await instance(db.name, "instance-a");
    const { storage, catalog } = a.backend;
    const id = await newConversation(a);
    await storage.open(id);
    const held = await lease(db.reader, id);
    await storage.conversations.updateLeaderMessages(id, (f) => ({ ...f, messages: [...f.messages, say("from the run")] }));
    expect(contents((await catalog.readLeaderMessages(id)).messages)).toEqual(["from the run"]);

    expect((await catalog.update(id, { title: "Renamed by a person" })).title).toBe("Renamed by a person");
    // The run's own reads (its memory) show the change at once; it still holds the conversation, with the same lease.
    expect((await storage.conversations.get(id)).title).toBe("Renamed by a person");
    expect((await storage.conversations.readLeaderMessages(id)).title).toBe("Renamed by a person");
    expect(storage.isOpen(id)).toBe(true);
    expect(await lease(db.reader, id)).toEqual(held);

    // The run's next commit carries the person's change instead of writing its old copy over it.
    await storage.conversations.updateLeaderMessages(id, (f) => ({ ...f, messages: [...f.messages, say("after the rename")] }));
    await storage.durability(id)!.whenDurable();
    const row = (await db.reader.query<{ title: string; leader: string }>("SELECT meta ->> 'title' AS title, leader_head ->> 'title' AS leader FROM conversations WHERE id = $1", [id])).rows[0];
    expect(row).toEqual({ title: "Renamed by a person", leader: "Renamed by a person" });
  });

  it("a read or a snapshot of a held conversation, and the observers, wait for the commit of the change they show", async () => {
    const db = await database();
    const a = await instance(db.name, "instance-a");
    const { storage, catalog } = a.backend;
    const id = await newConversation(a);
    await storage.open(id);
    const seen: StoreChange[] = [];
    catalog.observe((change) => seen.push(change));
    const before = catalog.version(id);

    const release = a.proxy.hold();
    // Released before the instance is closed should an expectation fail.
    cleanup.push(async () => release());
    await storage.conversations.updateLeaderMessages(id, (f) => ({ ...f, messages: [...f.messages, say("not committed yet")] }));
    // A cache built before the change knows it is stale at once.
    expect(catalog.version(id)).not.toBe(before);
    const read = catalog.readLeaderMessages(id);
    const snapshot = catalog.snapshotFolder(id, () => true, { bytes: 10_000_000 });
    expect(await settledSoon(read)).toBe(false);
    expect(await settledSoon(snapshot)).toBe(false);
    expect(seen).toEqual([]);

    release();
    expect(contents((await read).messages)).toEqual(["not committed yet"]);
    const leader = JSON.parse(new TextDecoder().decode((await snapshot).get("messages.json"))) as { messages: Message[] };
    expect(contents(leader.messages)).toEqual(["not committed yet"]);
    expect(seen).toContainEqual({ type: "messages", convId: id, agentId: null, at: 0 });
    expect(seen.some((c) => c.type === "conversation" && c.meta.id === id)).toBe(true);
  });

  it("observers hear the run's agents and where each messages file changed, once committed", async () => {
    const db = await database();
    const a = await instance(db.name, "instance-a");
    const { storage, catalog } = a.backend;
    const id = await newConversation(a);
    await storage.open(id);
    const seen: StoreChange[] = [];
    catalog.observe((change) => seen.push(change));
    const files = storage.conversations;
    const durable = () => storage.durability(id)!.whenDurable();

    const agent = await files.createAgent(id, { role_id: "dev", role_name: "Dev" });
    await files.updateAgentMessages(id, agent.agent_id, (f) => ({ ...f, messages: [say("one"), say("two")] }));
    await durable();
    expect(seen).toContainEqual({ type: "agent", convId: id, meta: expect.objectContaining({ agent_id: agent.agent_id, display_name: "Dev_1" }) });
    expect(seen).toContainEqual({ type: "messages", convId: id, agentId: agent.agent_id, at: 0 });

    seen.length = 0;
    await files.updateAgentMessages(id, agent.agent_id, (f) => ({ ...f, messages: [...f.messages, say("three")] }));
    await durable();
    // Only the messages file changed: no agent change is told, and the messages from 2 on are new.
    expect(seen).toEqual([{ type: "messages", convId: id, agentId: agent.agent_id, at: 2 }]);

    seen.length = 0;
    await files.updateAgentMessages(id, agent.agent_id, (f) => ({ ...f, messages: f.messages.slice(0, 1) }));
    await durable();
    expect(seen).toEqual([{ type: "messages", convId: id, agentId: agent.agent_id, at: 1 }]);
  });

  it("a change of a conversation another instance runs is refused (409) while reads answer from its rows; once it is let go, a change takes the lease for itself only, and hands it back", async () => {
    const db = await database();
    const a = await instance(db.name, "instance-a");
    const b = await instance(db.name, "instance-b");
    const id = await newConversation(a);
    await a.backend.storage.open(id);
    await a.backend.storage.conversations.updateLeaderMessages(id, (f) => ({ ...f, messages: [...f.messages, say("run on A")] }));
    await a.backend.storage.durability(id)!.whenDurable();

    const refused = await b.backend.catalog.update(id, { title: "Renamed on B" }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(LeaseHeldError);
    expect(refused).toMatchObject({ status: 409 });
    await expect(b.backend.catalog.remove(id)).rejects.toBeInstanceOf(LeaseHeldError);
    expect(contents((await b.backend.catalog.readLeaderMessages(id)).messages)).toEqual(["run on A"]);
    expect((await b.backend.catalog.get(id)).title).toBe("Shared");

    await a.backend.storage.close(id);
    expect((await b.backend.catalog.update(id, { title: "Renamed on B" })).title).toBe("Renamed on B");
    expect(b.backend.storage.isOpen(id)).toBe(false);
    // Let go again at once, and handed back to A, which ran it last (so whoever runs it next resumes it).
    expect(await lease(db.reader, id)).toMatchObject({ owner: "instance-a", expired: true });
    expect((await a.backend.catalog.get(id)).title).toBe("Renamed on B");
  });

  it("a conversation whose lease this instance lost is read from its rows (the new owner's), not from its stale memory", async () => {
    const db = await database();
    const a = await instance(db.name, "instance-a", 400);
    const b = await instance(db.name, "instance-b");
    const pending = await newConversation(a, "Pending");
    const settled = await newConversation(a, "Settled");
    for (const id of [pending, settled]) await a.backend.storage.open(id);
    await a.backend.storage.conversations.updateLeaderMessages(settled, (f) => ({ ...f, messages: [...f.messages, say("A, committed")] }));
    await a.backend.storage.durability(settled)!.whenDurable();
    // A is cut off past its leases, one conversation with a change in memory, the other with all of it committed.
    const resume = a.proxy.hold();
    cleanup.push(async () => resume());
    await a.backend.storage.conversations.updateLeaderMessages(pending, (f) => ({ ...f, messages: [...f.messages, say("A, cut off")] }));
    await until("A's leases to expire", async () => (await lease(db.reader, pending)).expired && (await lease(db.reader, settled)).expired);
    for (const id of [pending, settled]) {
      await b.backend.storage.open(id);
      await b.backend.storage.conversations.updateLeaderMessages(id, (f) => ({ ...f, messages: [...f.messages, say("B, the new owner")] }));
      await b.backend.storage.durability(id)!.whenDurable();
    }
    resume();
    // A finds out (its commit is refused, its renewal finds the leases taken) but still holds both in memory.
    await until("A to know it lost both", () => a.backend.storage.failure(pending) instanceof FencedError && a.backend.storage.failure(settled) instanceof FencedError);
    expect([a.backend.storage.isOpen(pending), a.backend.storage.isOpen(settled)]).toEqual([true, true]);

    expect(contents((await a.backend.catalog.readLeaderMessages(pending)).messages)).toEqual(["B, the new owner"]);
    expect(contents((await a.backend.catalog.readLeaderMessages(settled)).messages)).toEqual(["A, committed", "B, the new owner"]);
    const files = await a.backend.catalog.snapshotFolder(pending, (rel) => rel === "messages.json", { bytes: 10_000_000 });
    expect(contents((JSON.parse(new TextDecoder().decode(files.get("messages.json"))) as { messages: Message[] }).messages)).toEqual(["B, the new owner"]);
  });

  it("an import over a conversation is refused while any instance runs it, and moves its lease's epoch on, fencing whoever held it", async () => {
    const db = await database();
    const a = await instance(db.name, "instance-a");
    const b = await instance(db.name, "instance-b");
    const id = await newConversation(a, "Before the import");
    await a.backend.storage.conversations.createAgent(id, { role_id: "dev", role_name: "Dev" });
    await a.backend.storage.letGo(id);
    const files = await a.backend.catalog.snapshotFolder(id, () => true, { bytes: 10_000_000 });
    const counted = async () => Number((await db.reader.query<{ n: string }>("SELECT last_value AS n FROM agent_instances")).rows[0]!.n);
    expect(await counted()).toBe(1);
    const imported = () => new Map([...files].map(([rel, data]) => [rel, new TextEncoder().encode(new TextDecoder().decode(data).replaceAll("Before the import", "Imported"))]));

    await a.backend.storage.open(id);
    await expect(a.backend.catalog.installConversation(id, "replace", imported)).rejects.toBeInstanceOf(ConflictError);
    await expect(b.backend.catalog.installConversation(id, "replace", imported)).rejects.toBeInstanceOf(LeaseHeldError);
    const held = await lease(db.reader, id);
    await a.backend.storage.close(id);

    expect((await b.backend.catalog.installConversation(id, "replace", imported)).title).toBe("Imported");
    expect(await lease(db.reader, id)).toEqual({ owner: "instance-a", epoch: held.epoch + 1, expired: true });
    expect((await a.backend.catalog.readLeaderMessages(id)).title).toBe("Imported");
    expect((await a.backend.catalog.list({ status: "all" })).total).toBe(1);
    // The import's sub-agent is counted in the instances' count, as the file store counts it in state.json.
    expect(await counted()).toBe(2);
    expect((await a.backend.catalog.listAgents(id)).agents.map((m) => m.display_name)).toEqual(["Dev_1"]);
  });
});
