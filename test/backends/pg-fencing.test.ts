/**
 * Leases and fencing of the PostgreSQL store (lib/pg/leases.ts, `astrion_fence()`), on a
 * throwaway cluster: two storage objects over one database stand for two instances. An instance
 * cut off past its lease is taken over, and once the takeover committed none of its writes lands;
 * a shared-context change is fenced like every other write; a takeover waits for the old owner's transaction under way; an old owner paused inside a
 * transaction does not hold a takeover back; a renewed lease is not taken; a released one is.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Pool } from "pg";
import { createPool, FencedError, LeaseHeldError, Leases, type PgEngineStorage } from "@/lib/pg";
import type { Message } from "@/lib/contracts/on-disk";
import type { SharedContextFile } from "@/lib/shared-context/schema";
import { until } from "@/test/helpers/wait";
import { pgClusterForFile } from "@/test/support/pg-cluster";
import { crashGeneration, endGeneration, pgGeneration, type PgGeneration } from "@/test/support/pg-storage";

const pg = pgClusterForFile();
let cleanup: Array<() => Promise<unknown>> = [];

afterEach(async () => {
  for (const fn of cleanup.reverse()) await fn().catch(() => undefined);
  cleanup = [];
});

/** A fresh database, a reader pool on it, and its name. */
async function database(): Promise<{ url: string; name: string; reader: Pool }> {
  const url = await pg.cluster.createDatabase();
  const reader = createPool(url, { max: 3 });
  cleanup.push(() => reader.end());
  return { url, name: new URL(url).pathname.slice(1), reader };
}

async function instance(name: string, owner: string, leaseMs: number, ids: string[] = []): Promise<PgGeneration> {
  const g = await pgGeneration(pg.cluster, name, owner, ids, leaseMs);
  cleanup.push(() => crashGeneration(g));
  return g;
}

async function newConversation(storage: PgEngineStorage): Promise<string> {
  return (await storage.createConversation({ title: "Leased", project_path: "/nonexistent-pg-project", model_key: "model-a", run_mode: "fast" })).id;
}

const say = (content: string): Message => ({ role: "assistant", content });
const append = (storage: PgEngineStorage, id: string, content: string) => storage.conversations.updateLeaderMessages(id, (f) => ({ ...f, messages: [...f.messages, say(content)] }));

async function lease(reader: Pool, id: string): Promise<{ owner: string; epoch: number; expired: boolean }> {
  const row = (await reader.query<{ owner: string; epoch: string; expired: boolean }>("SELECT owner, epoch, expires_at <= now() AS expired FROM leases WHERE conversation_id = $1", [id])).rows[0]!;
  return { owner: row.owner, epoch: Number(row.epoch), expired: row.expired };
}

async function leaderRows(reader: Pool, id: string): Promise<string[]> {
  return (await reader.query<{ content: string }>("SELECT message ->> 'content' AS content FROM messages WHERE conversation_id = $1 AND agent_id = 0 ORDER BY idx", [id])).rows.map((r) => r.content);
}

/** The shared context with its `plan` entry set to `value` (a plain mutator: arbitration is not the storage's). */
function note(doc: SharedContextFile, value: string): SharedContextFile {
  const at = new Date().toISOString();
  return { ...doc, entries: { ...doc.entries, plan: { key: "plan", value, version: (doc.entries.plan?.version ?? 0) + 1, author: "tester", author_role: "leader", updated_at: at } } };
}

/** The `plan` value of a conversation's `shared_contexts` row, as committed. */
async function sharedRow(reader: Pool, id: string): Promise<string | null> {
  const row = (await reader.query<{ doc: SharedContextFile }>("SELECT doc FROM shared_contexts WHERE conversation_id = $1", [id])).rows[0];
  return row?.doc.entries.plan?.value ?? null;
}

describe("leases and fencing", () => {
  it("an instance cut off past its lease is taken over; once the takeover committed, none of its writes lands", async () => {
    const db = await database();
    const a = await instance(db.name, "instance-a", 400);
    const id = await newConversation(a.storage);
    await a.storage.open(id);
    await append(a.storage, id, "a1");
    await a.storage.durability(id)!.whenDurable();
    const b = await instance(db.name, "instance-b", 60_000);
    // While A's lease is live, B cannot run the conversation.
    await expect(b.storage.open(id)).rejects.toBeInstanceOf(LeaseHeldError);

    // A is cut off (paused, partitioned): its change is made in memory, its commit and renewals wait.
    const resume = a.proxy.hold();
    await append(a.storage, id, "a2 (cut off)");
    const aDurable = a.storage.durability(id)!.whenDurable();
    aDurable.catch(() => undefined);
    await until("A's lease to expire", async () => (await lease(db.reader, id)).expired);

    await b.storage.open(id);
    expect(await lease(db.reader, id)).toMatchObject({ owner: "instance-b", epoch: 2, expired: false });
    // B resumes from what was committed: A's uncommitted change is not there.
    expect((await b.storage.conversations.readLeaderMessages(id)).messages.map((m) => m.content)).toEqual(["a1"]);
    await append(b.storage, id, "b1");
    await b.storage.durability(id)!.whenDurable();

    resume();
    const refused = await aDurable.then(() => null, (e: unknown) => e);
    expect(refused).toBeInstanceOf(FencedError);
    expect((refused as FencedError).message).toContain(id);
    expect(refused).toMatchObject({ conversationId: id, heldEpoch: 1, current: { owner: "instance-b", epoch: 2 } });
    // A takes no further change of it, and nothing of A's landed after the takeover.
    await expect(append(a.storage, id, "a3 (after the takeover)")).rejects.toBeInstanceOf(FencedError);
    await expect(a.storage.conversations.update(id, { title: "A's late title" })).rejects.toBeInstanceOf(FencedError);
    await b.storage.conversations.update(id, { phase: "ENGAGED" });
    await b.storage.durability(id)!.whenDurable();
    expect(await leaderRows(db.reader, id)).toEqual(["a1", "b1"]);
    const meta = (await db.reader.query<{ title: string; phase: string }>("SELECT meta ->> 'title' AS title, meta ->> 'phase' AS phase FROM conversations WHERE id = $1", [id])).rows[0];
    expect(meta).toEqual({ title: "Leased", phase: "ENGAGED" });
    // A letting it go releases nothing of B's.
    await a.storage.close(id);
    expect(await lease(db.reader, id)).toMatchObject({ owner: "instance-b", epoch: 2, expired: false });
  });

  it("a shared-context change of a stale epoch is refused: the old owner's cut-off write never lands, the new owner's does", async () => {
    const db = await database();
    const a = await instance(db.name, "instance-a", 400);
    const id = await newConversation(a.storage);
    await a.storage.open(id);
    await a.storage.conversations.updateSharedContext(id, (doc) => note(doc, "a1"));
    await a.storage.durability(id)!.whenDurable();
    expect(await sharedRow(db.reader, id)).toBe("a1");
    const resume = a.proxy.hold();
    // Applied in A's memory, its commit held back while A's lease runs out.
    await a.storage.conversations.updateSharedContext(id, (doc) => note(doc, "a2 (cut off)"));
    const aDurable = a.storage.durability(id)!.whenDurable();
    aDurable.catch(() => undefined);
    await until("A's lease to expire", async () => (await lease(db.reader, id)).expired);
    const b = await instance(db.name, "instance-b", 60_000);
    await b.storage.open(id);
    expect((await b.storage.conversations.readSharedContext(id)).entries.plan!.value).toBe("a1");
    await b.storage.conversations.updateSharedContext(id, (doc) => note(doc, "b1"));
    await b.storage.durability(id)!.whenDurable();
    resume();
    await expect(aDurable).rejects.toBeInstanceOf(FencedError);
    await expect(a.storage.conversations.updateSharedContext(id, (doc) => note(doc, "a3 (after the takeover)"))).rejects.toBeInstanceOf(FencedError);
    expect(await sharedRow(db.reader, id)).toBe("b1");
  });

  it("a takeover waits for the old owner's transaction under way; after it, the old epoch is refused by PostgreSQL", async () => {
    const db = await database();
    const g = await instance(db.name, "setup", 60_000);
    const id = await newConversation(g.storage);
    const leases = new Leases(db.reader);
    const old = await leases.acquire(id, "instance-a", 200);
    const a = await db.reader.connect();
    cleanup.push(async () => a.release(true));
    await a.query("BEGIN");
    await a.query("SELECT astrion_fence($1, $2::text[], $3::bigint[])", ["instance-a", [id], [old]]);
    await a.query("INSERT INTO conversation_lines (conversation_id, file, seq, line) VALUES ($1, 'timeline.jsonl', 1, 'from a')", [id]);
    await until("A's lease to expire", async () => (await lease(db.reader, id)).expired);

    const takeover = leases.acquire(id, "instance-b", 60_000);
    // B's UPDATE of the lease row waits on the row A's transaction holds FOR SHARE.
    await until("the takeover to wait for A's transaction", async () => {
      const waiting = await db.reader.query("SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO leases%'");
      return waiting.rowCount === 1;
    });
    await a.query("COMMIT");
    expect(await takeover).toBe(old + 1);
    // What A committed before the takeover is kept; its next transaction is refused and lands nothing.
    await a.query("BEGIN");
    const refused = await a.query("SELECT astrion_fence($1, $2::text[], $3::bigint[])", ["instance-a", [id], [old]]).then(() => null, (e: unknown) => e);
    expect(refused).toMatchObject({ code: "AS001" });
    expect(JSON.parse((refused as { detail: string }).detail)).toEqual([{ id, held: old, owner: "instance-b", epoch: old + 1 }]);
    await a.query("ROLLBACK");
    const lines = (await db.reader.query<{ line: string }>("SELECT line FROM conversation_lines WHERE conversation_id = $1", [id])).rows.map((r) => r.line);
    expect(lines).toEqual(["from a"]);
  });

  it("an owner paused inside a transaction does not hold a takeover back: the server ends its idle session", async () => {
    const db = await database();
    const g = await instance(db.name, "setup", 60_000);
    const id = await newConversation(g.storage);
    const leases = new Leases(db.reader);
    const old = await leases.acquire(id, "instance-a", 200);
    const paused = createPool(db.url, { max: 1, idleInTransactionMs: 300 });
    paused.on("error", () => undefined);
    cleanup.push(() => paused.end());
    const a = await paused.connect();
    a.on("error", () => undefined);
    await a.query("BEGIN");
    await a.query("SELECT astrion_fence($1, $2::text[], $3::bigint[])", ["instance-a", [id], [old]]);
    // A sends nothing more (SIGSTOP). Without the session timeout the takeover would wait forever.
    await until("A's lease to expire", async () => (await lease(db.reader, id)).expired);
    expect(await leases.acquire(id, "instance-b", 60_000)).toBe(old + 1);
    await expect(a.query("COMMIT")).rejects.toThrow();
    a.release(true);
  });

  it("a renewed lease is not taken over; a released one is, with the next epoch", async () => {
    const db = await database();
    const a = await instance(db.name, "instance-a", 300);
    const id = await newConversation(a.storage);
    await a.storage.open(id);
    const expiry = async () => (await db.reader.query<{ at: Date }>("SELECT expires_at AS at FROM leases WHERE conversation_id = $1", [id])).rows[0]!.at.getTime();
    const first = await expiry();
    await until("A to renew its lease twice", async () => (await expiry()) > first + 150);
    const b = await instance(db.name, "instance-b", 60_000);
    await expect(b.storage.open(id)).rejects.toBeInstanceOf(LeaseHeldError);
    await append(a.storage, id, "a1");
    await a.storage.close(id);
    expect((await lease(db.reader, id)).expired).toBe(true);
    await b.storage.open(id);
    expect(await lease(db.reader, id)).toMatchObject({ owner: "instance-b", epoch: 2 });
    expect((await b.storage.conversations.readLeaderMessages(id)).messages.map((m) => m.content)).toEqual(["a1"]);
  });

  it("a restarted instance with the same owner id takes its leases back at once, fencing its old self", async () => {
    const db = await database();
    const before = await instance(db.name, "instance-a", 60_000);
    const id = await newConversation(before.storage);
    await before.storage.open(id);
    await append(before.storage, id, "kept");
    await before.storage.durability(id)!.whenDurable();
    const hold = before.proxy.hold();
    await append(before.storage, id, "lost");
    const lost = before.storage.durability(id)!.whenDurable();
    lost.catch(() => undefined);
    const after = await instance(db.name, "instance-a", 60_000, [id]);
    expect(await lease(db.reader, id)).toMatchObject({ owner: "instance-a", epoch: 2 });
    hold();
    await expect(lost).rejects.toBeInstanceOf(FencedError);
    expect((await after.storage.conversations.readLeaderMessages(id)).messages.map((m) => m.content)).toEqual(["kept"]);
    expect(await leaderRows(db.reader, id)).toEqual(["kept"]);
    await endGeneration(after);
  });
});
