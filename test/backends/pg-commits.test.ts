/**
 * How the PostgreSQL store writes (lib/pg/flusher.ts, lib/pg/rows.ts), on a throwaway cluster:
 * every conversation changed in a tick is committed by one transaction (the rows' `xmin` says
 * which transaction wrote them); a change writes only the message rows it changed; a commit cut
 * off by a lost connection fails its conversation's durability, and nothing of it lands; a change
 * of a conversation that is not open takes its lease until `letGo`; the list of active
 * conversations leaves out those another instance runs; text is kept as it was written.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Pool } from "pg";
import { CorruptFileError } from "@/lib/contracts/errors";
import { startTrace } from "@/lib/contracts/envelope";
import type { Message } from "@/lib/contracts/on-disk";
import { timelineRecord } from "@/lib/contracts/timeline-record";
import { createPool, Leases, StorageFailedError, type PgEngineStorage } from "@/lib/pg";
import { pgClusterForFile } from "@/test/support/pg-cluster";
import { crashGeneration, endGeneration, pgGeneration, type PgGeneration } from "@/test/support/pg-storage";

const pg = pgClusterForFile();
let cleanup: Array<() => Promise<unknown>> = [];

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

async function instance(name: string, owner = "instance-a", ids: string[] = []): Promise<PgGeneration> {
  const g = await pgGeneration(pg.cluster, name, owner, ids);
  cleanup.push(() => crashGeneration(g));
  return g;
}

async function newConversation(storage: PgEngineStorage, title = "Commits"): Promise<string> {
  return (await storage.createConversation({ title, project_path: "/nonexistent-pg-project", model_key: "model-a", run_mode: "fast" })).id;
}

const say = (content: string): Message => ({ role: "assistant", content });
const record = (action: string) => timelineRecord(startTrace("user", "leader", { content: action }), { action });

/** The transaction id that wrote each of a conversation's leader message rows, by index. */
async function leaderXmins(reader: Pool, id: string): Promise<string[]> {
  return (await reader.query<{ x: string }>("SELECT xmin::text AS x FROM messages WHERE conversation_id = $1 AND agent_id = 0 ORDER BY idx", [id])).rows.map((r) => r.x);
}

describe("grouped commits", () => {
  it("everything changed in one tick, in every conversation, is committed by one transaction", async () => {
    const db = await database();
    const a = await instance(db.name);
    const one = await newConversation(a.storage, "One");
    const two = await newConversation(a.storage, "Two");
    for (const id of [one, two]) await a.storage.open(id);
    const files = a.storage.conversations;
    // One tick: no await between the calls.
    const made = [
      files.updateLeaderMessages(one, (f) => ({ ...f, messages: [...f.messages, say("one")] })),
      files.updateLeaderMessages(two, (f) => ({ ...f, messages: [...f.messages, say("two")] })),
      a.storage.appendTimeline(one, record("step one")),
      a.storage.appendTimeline(two, record("step two")),
      a.storage.appendContextReport(two, JSON.stringify({ report: 2 })),
      files.createAgent(one, { role_id: "dev", role_name: "Dev" }),
      files.createAgent(two, { role_id: "dev", role_name: "Dev" }),
      a.storage.journal(one).started("key", { ordered: true }),
    ];
    await Promise.all(made);
    await Promise.all([one, two].map((id) => a.storage.durability(id)!.whenDurable()));
    const xmins = await db.reader.query<{ x: string }>(
      `SELECT xmin::text AS x FROM conversations WHERE id = ANY ($1) UNION SELECT xmin::text FROM messages WHERE conversation_id = ANY ($1)
       UNION SELECT xmin::text FROM agents WHERE conversation_id = ANY ($1) UNION SELECT xmin::text FROM conversation_lines WHERE conversation_id = ANY ($1)`,
      [[one, two]],
    );
    expect(xmins.rows).toHaveLength(1);
    // Both agents are counted in the storage's count of sub-agent instances (state.json's agent_id_counter).
    expect((await db.reader.query<{ n: string }>("SELECT last_value AS n FROM agent_instances")).rows[0]!.n).toBe("2");
  });

  it("a change writes only the message rows it changed: appends add rows, an edit rewrites its row, a cut deletes the rest", async () => {
    const db = await database();
    const a = await instance(db.name);
    const id = await newConversation(a.storage);
    await a.storage.open(id);
    const files = a.storage.conversations;
    const durable = () => a.storage.durability(id)!.whenDurable();
    await files.updateLeaderMessages(id, (f) => ({ ...f, messages: [say("m0"), say("m1")] }));
    await durable();
    const [x0, x1] = await leaderXmins(db.reader, id);
    expect(x0).toBe(x1);
    // The mutator keeps the objects of the messages it keeps: their rows are not written again.
    await files.updateLeaderMessages(id, (f) => ({ ...f, messages: [...f.messages, say("m2")] }));
    await durable();
    const afterAppend = await leaderXmins(db.reader, id);
    expect(afterAppend.slice(0, 2)).toEqual([x0, x1]);
    expect(afterAppend[2]).not.toBe(x0);
    await files.updateLeaderMessages(id, (f) => ({ ...f, messages: f.messages.map((m, i) => (i === 1 ? { ...m, content: "m1 edited" } : m)) }));
    await durable();
    const afterEdit = await leaderXmins(db.reader, id);
    expect([afterEdit[0], afterEdit[2]]).toEqual([x0, afterAppend[2]]);
    expect(afterEdit[1]).not.toBe(x1);
    await files.updateLeaderMessages(id, (f) => ({ ...f, messages: f.messages.slice(0, 1) }));
    await durable();
    expect(await leaderXmins(db.reader, id)).toEqual([x0]);
    await endGeneration(a);
    const b = await instance(db.name, "instance-a", [id]);
    expect((await b.storage.conversations.readLeaderMessages(id)).messages.map((m) => m.content)).toEqual(["m0"]);
  });

  it("a commit cut off by a lost connection fails its conversation's durability and later changes; nothing of it lands", async () => {
    const db = await database();
    const a = await instance(db.name);
    const id = await newConversation(a.storage);
    await a.storage.open(id);
    await a.storage.appendTimeline(id, record("kept"));
    await a.storage.durability(id)!.whenDurable();
    a.proxy.hold();
    await a.storage.appendTimeline(id, record("cut off"));
    const waited = a.storage.durability(id)!.whenDurable();
    waited.catch(() => undefined);
    await a.proxy.close();
    const failure = await waited.then(() => null, (e: unknown) => e);
    expect(failure).toBeInstanceOf(StorageFailedError);
    expect((failure as Error).message).toContain(id);
    await expect(a.storage.appendTimeline(id, record("after"))).rejects.toBeInstanceOf(StorageFailedError);
    // The engine lets it go; a restart resumes from what was committed.
    await a.storage.close(id);
    const lines = await db.reader.query<{ line: string }>("SELECT line FROM conversation_lines WHERE conversation_id = $1 ORDER BY seq", [id]);
    expect(lines.rows.map((r) => (JSON.parse(r.line) as { action: string }).action)).toEqual(["kept"]);
    const b = await instance(db.name, "instance-a", [id]);
    await b.storage.appendTimeline(id, record("next"));
    await b.storage.durability(id)!.whenDurable();
    const after = await db.reader.query<{ seq: string }>("SELECT seq FROM conversation_lines WHERE conversation_id = $1 ORDER BY seq", [id]);
    expect(after.rows.map((r) => Number(r.seq))).toEqual([1, 2]);
  });

  it("a change of a conversation that is not open takes its lease, and letGo releases it unless the engine holds it", async () => {
    const db = await database();
    const a = await instance(db.name);
    const id = await newConversation(a.storage);
    const held = await newConversation(a.storage, "Held");
    const expired = async (conv: string) => (await db.reader.query<{ e: boolean }>("SELECT expires_at <= now() AS e FROM leases WHERE conversation_id = $1", [conv])).rows[0]?.e;
    expect(a.storage.durability(id)).toBeNull();
    expect(await expired(id)).toBeUndefined();
    await a.storage.appendTimeline(id, record("distilled"));
    expect(await expired(id)).toBe(false);
    await a.storage.durability(id)!.whenDurable();
    await a.storage.letGo(id);
    expect(await expired(id)).toBe(true);
    expect(a.storage.durability(id)).toBeNull();
    expect((await db.reader.query("SELECT 1 FROM conversation_lines WHERE conversation_id = $1", [id])).rowCount).toBe(1);
    await a.storage.open(held);
    await a.storage.appendTimeline(held, record("held"));
    await a.storage.letGo(held);
    expect(await expired(held)).toBe(false);
  });
});

describe("an abandoned storage", () => {
  it("ends at once with changes it never committed: nothing is waited for, nothing lands", async () => {
    const db = await database();
    const a = await instance(db.name);
    const id = await newConversation(a.storage);
    await a.storage.open(id);
    // Applied, not durable: abandoned in the same tick, before any commit of it began.
    await a.storage.conversations.updateLeaderMessages(id, (f) => ({ ...f, messages: [...f.messages, say("never committed")] }));
    a.storage.abandon();
    // It would wait forever for a commit the stopped flusher never makes.
    await expect(Promise.race([a.storage.end().then(() => "ended"), new Promise((r) => setTimeout(() => r("still waiting"), 10_000))])).resolves.toBe("ended");
    expect(await leaderXmins(db.reader, id)).toEqual([]);
  });
});

describe("rows", () => {
  it("lists the active conversations this instance may run, a page at a time", async () => {
    const db = await database();
    const a = await instance(db.name);
    const [free, archived, elsewhere, last] = [await newConversation(a.storage, "Free"), await newConversation(a.storage, "Archived"), await newConversation(a.storage, "Elsewhere"), await newConversation(a.storage, "Last")];
    await a.storage.conversations.update(archived, { status: "archived" });
    await a.storage.close(archived);
    const leases = new Leases(db.reader);
    const other = await leases.acquire(elsewhere, "instance-b", 60_000);
    expect(await a.storage.listActive({ offset: 0, limit: 10 })).toEqual({ ids: [free, last], total: 2 });
    await leases.release(elsewhere, "instance-b", other);
    expect(await a.storage.listActive({ offset: 0, limit: 10 })).toEqual({ ids: [free, elsewhere, last], total: 3 });
    expect(await a.storage.listActive({ offset: 1, limit: 1 })).toEqual({ ids: [elsewhere], total: 3 });
    expect(await a.storage.listActive({ offset: 5, limit: 1 })).toEqual({ ids: [], total: 3 });
  });

  it("conversations made at once by two instances get distinct ids", async () => {
    const db = await database();
    const a = await instance(db.name);
    const b = await instance(db.name, "instance-b");
    const ids = await Promise.all([a, b, a, b].map((g) => newConversation(g.storage)));
    expect(new Set(ids).size).toBe(4);
  });

  it("keeps a message's text and key order as written: NUL, a lone surrogate, emoji, keys out of order", async () => {
    const db = await database();
    const a = await instance(db.name);
    const id = await newConversation(a.storage);
    await a.storage.open(id);
    const odd = { role: "tool", tool_call_id: "call_1", content: "a\u0000b \ud800 \u{1F600} \\ \"q\"", zeta: 1, alpha: [2, { y: 1, b: 2 }] } as Message;
    await a.storage.conversations.updateLeaderMessages(id, (f) => ({ ...f, messages: [odd] }));
    await endGeneration(a);
    const b = await instance(db.name, "instance-a", [id]);
    const [back] = (await b.storage.conversations.readLeaderMessages(id)).messages;
    expect(back).toEqual(odd);
    expect(JSON.stringify(back)).toBe(JSON.stringify(odd));
  });

  it("refuses to open a conversation whose message rows have a gap, naming the file", async () => {
    const db = await database();
    const a = await instance(db.name);
    const id = await newConversation(a.storage);
    await a.storage.open(id);
    await a.storage.conversations.updateLeaderMessages(id, (f) => ({ ...f, messages: [say("m0"), say("m1")] }));
    await endGeneration(a);
    await db.reader.query("DELETE FROM messages WHERE conversation_id = $1 AND idx = 0", [id]);
    const b = await instance(db.name);
    const refused = await b.storage.open(id).then(() => null, (e: unknown) => e);
    expect(refused).toBeInstanceOf(CorruptFileError);
    expect((refused as Error).message).toContain(`conversations/${id}/messages.json`);
    // Nothing is left holding it.
    expect((await db.reader.query<{ e: boolean }>("SELECT expires_at <= now() AS e FROM leases WHERE conversation_id = $1", [id])).rows[0]!.e).toBe(true);
  });
});
