/**
 * A person's command reaches the run wherever it is leased (issue 31), with real engines on one
 * throwaway PostgreSQL and one redis-server (test/support/scaled-instance.ts): a message sent to
 * instance B runs on instance A, which holds the run, with its author; the holder's answer and its
 * errors come back as they are; a holder that keeps its lease but does not answer is a 503; a
 * holder that died is waited for until its lease expires and the command then runs here; and
 * commands sent by two instances at once all reach the holder, each sender's in its order; one
 * that reaches the holder after its sender stopped waiting is not run there. A person's
 * interventions (issue 32) travel the same way to the holder's running team.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Author } from "@/lib/contracts/people";
import type { RoleLibrary } from "@/lib/roles/library";
import { newRoleLibrary } from "@/test/helpers/role-library";
import { pgClusterForFile } from "@/test/support/pg-cluster";
import { PgProxy } from "@/test/support/pg-proxy";
import { startRedis, type TestRedis } from "@/test/support/redis-server";
import { startScaledInstance, type ScaledInstance, type ScaledSetup } from "@/test/support/scaled-instance";
import { ScriptedModel } from "@/test/support/scripted-model";
import { until } from "../helpers/wait";

const ROLES_DIR = fileURLToPath(new URL("../../agents", import.meta.url));
const pg = pgClusterForFile();
let redis: TestRedis;
let roles: RoleLibrary;
let tmp: string;
const instances: ScaledInstance[] = [];
const proxies: PgProxy[] = [];

beforeAll(async () => {
  redis = await startRedis();
  roles = newRoleLibrary(ROLES_DIR);
  tmp = mkdtempSync(path.join(os.tmpdir(), "astrion-forward-"));
});
afterEach(async () => {
  await Promise.allSettled(instances.splice(0).map((i) => i.close()));
  await Promise.allSettled(proxies.splice(0).map((p) => p.close()));
});
afterAll(async () => {
  roles?.close();
  await redis?.dispose();
  rmSync(tmp, { recursive: true, force: true });
});

const alice: Author = { id: "p_alice", name: "Alice", via: "token" };
const bob: Author = { id: "p_bob", name: "Bob", via: "token" };
const carol: Author = { id: "p_carol", name: "Carol", via: "token" };

/**
 * A fresh database, a model that notes every message, and a conversation on it, made by instance
 * A; with `proxied`, A reaches the database through a proxy the test can hold (its commits wait).
 */
async function deployment(overrides: Partial<ScaledSetup> = {}, options: { proxied?: boolean } = {}) {
  const model = new ScriptedModel(() => ({ content: "Noted." }));
  const databaseUrl = await pg.cluster.createDatabase();
  const setup: ScaledSetup = { databaseUrl, redisUrl: redis.url, roles, model, dataRoot: path.join(tmp, "data"), leaseMs: 10_000, ...overrides };
  const start = async (owner: string, more: Partial<ScaledSetup> = {}) => {
    const instance = await startScaledInstance({ ...setup, ...more }, owner);
    instances.push(instance);
    return instance;
  };
  const proxy = options.proxied ? await PgProxy.start({ host: pg.cluster.host, port: pg.cluster.port }) : null;
  if (proxy) proxies.push(proxy);
  const a = await start("inst-a", proxy ? { databaseUrl: proxy.url(new URL(databaseUrl).pathname.slice(1)) } : {});
  const conv = await a.storage.createConversation({ title: "Forwarded", model_key: model.key, project_path: mkdtempSync(path.join(tmp, "project-")) });
  return { model, setup, start, a, proxy, convId: conv.id };
}

/** Texts of the person's messages in the leader's transcript as `instance` holds it. */
async function personMessages(instance: ScaledInstance, convId: string) {
  const leader = await instance.storage.conversations.readLeaderMessages(convId);
  return leader.messages.filter((m) => m.role === "user");
}

/** The error `promise` rejects with. */
async function failure(promise: Promise<unknown>): Promise<{ name: string; code: string; status: number; message: string; details?: unknown }> {
  try {
    await promise;
  } catch (error) {
    return error as { name: string; code: string; status: number; message: string };
  }
  throw new Error("it did not fail");
}

describe("commands forwarded to the instance holding the run", () => {
  it("runs a message sent to B on A's run, with its author, and gives back A's answer and A's errors as they are", async () => {
    const { model, start, a, convId } = await deployment();
    a.watch(convId);
    await a.commands.run(convId, { op: "leader_message", args: { content: "Start here" }, author: alice });
    const b = await start("inst-b");

    const sent = await b.commands.run(convId, { op: "leader_message", args: { content: "A word from B" }, author: bob });
    // It ran on A: A holds the run, B never opened it, and A's next leader call has the message.
    expect(a.storage.isOpen(convId)).toBe(true);
    expect(b.storage.isOpen(convId)).toBe(false);
    await model.waitFor((c) => c.agentId === null && JSON.stringify(c.messages).includes("A word from B"));
    const mine = (await personMessages(a, convId)).find((m) => m.message_id === sent.message_id);
    expect(mine?.content).toBe("A word from B");
    expect(mine?.metadata?.author).toEqual(bob);

    // A's errors, as A gives them: the same status, kind, message and details.
    const here = await failure(a.commands.local(convId, { op: "agent_detail", args: { agent_id: 7 } }));
    const there = await failure(b.commands.run(convId, { op: "agent_detail", args: { agent_id: 7 } }));
    expect(there.status).toBe(404);
    expect({ name: there.name, code: there.code, message: there.message, details: there.details }).toEqual({ name: here.name, code: here.code, message: here.message, details: here.details });
    const refused = await failure(b.commands.run(convId, { op: "retry", args: { agent_id: 3 } }));
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);

    // A change of the model goes to A's run, which records it.
    const changed = await b.commands.run(convId, { op: "change_model", args: { model_key: "scripted-2" }, author: bob });
    expect(changed.model_key).toBe("scripted-2");
    expect((await a.storage.conversations.get(convId)).model_key).toBe("scripted-2");

    // A read goes there too: B's snapshot is A's run's.
    const snapshot = await b.commands.run(convId, { op: "snapshot", args: {} });
    expect(snapshot.leader.messages.map((m) => m.content)).toEqual(expect.arrayContaining(["Start here", "A word from B"]));
    expect(b.storage.isOpen(convId)).toBe(false);
  }, 60_000);

  it("forwards a person's interventions to the holder's running team: a queued message, the queue read, and its withdrawal", async () => {
    // The leader's first call hangs, so the run is going when B's messages arrive.
    const model = new ScriptedModel((call) => (call.n === 1 ? { hang: true, partial: "Thinking" } : { content: "Noted." }));
    const { start, a, convId } = await deployment({ model });
    a.watch(convId);
    await a.commands.run(convId, { op: "leader_message", args: { content: "Start here" }, author: alice });
    await model.waitFor((c) => c.n === 1);
    const b = await start("inst-b");

    const queued = await b.commands.run(convId, { op: "leader_message", args: { content: "After this, the docs", strategy: "queue" }, author: bob });
    expect(queued.intervention?.strategy).toBe("queue");
    expect(b.storage.isOpen(convId)).toBe(false);
    const seen = await b.commands.run(convId, { op: "interventions", args: {} });
    expect(seen.running).toBe(true);
    expect(seen.queued.map((q) => [q.content, q.author?.name])).toEqual([["After this, the docs", "Bob"]]);
    // Carol withdraws it from B; A's queue is empty afterwards and the timeline says who.
    const after = await b.commands.run(convId, { op: "intervene", args: { action: "withdraw_queued", queue_id: queued.intervention!.queue_id! }, author: carol });
    expect(after.queued).toEqual([]);
    expect((await a.commands.local(convId, { op: "interventions", args: {} })).queued).toEqual([]);
    expect(b.storage.isOpen(convId)).toBe(false);
    // A command without its author is refused, wherever it comes from.
    expect((await failure(b.commands.run(convId, { op: "intervene", args: { action: "reorder", order: ["x"] } }))).status).toBe(400);
  }, 60_000);

  it("answers 503 when the holder keeps its lease but does not answer, and runs the command here once a dead holder's lease expired", async () => {
    const { model, start, a, convId } = await deployment({ leaseMs: 1_500, forwarding: { answerMs: 300, takeoverWaitMs: 2_500 } });
    a.watch(convId);
    await a.commands.run(convId, { op: "leader_message", args: { content: "Start here" }, author: alice });
    const b = await start("inst-b");

    a.stopServing();
    const silent = await failure(b.commands.run(convId, { op: "stop", args: {}, author: bob }));
    expect({ status: silent.status, code: silent.code, message: silent.message }).toEqual({ status: 503, code: "unavailable", message: "The instance running this conversation did not answer; try again." });
    expect(silent.details).toMatchObject({ owner: "inst-a", reason: "holder_unanswered" });
    expect(a.storage.isOpen(convId)).toBe(true);

    await a.crash();
    instances.splice(instances.indexOf(a), 1);
    const sent = await b.commands.run(convId, { op: "leader_message", args: { content: "After A died" }, author: bob });
    expect(b.storage.isOpen(convId)).toBe(true);
    expect((await personMessages(b, convId)).map((m) => m.message_id)).toContain(sent.message_id);
    await model.waitFor((c) => c.agentId === null && JSON.stringify(c.messages).includes("After A died"));
  }, 60_000);

  it("delivers the commands two instances send at once to the holder, every one once, each sender's in its order", async () => {
    const { start, a, convId } = await deployment();
    a.watch(convId);
    await a.commands.run(convId, { op: "leader_message", args: { content: "Start here" }, author: alice });
    const [b, c] = [await start("inst-b"), await start("inst-c")];
    const send = async (from: ScaledInstance, author: Author, tag: string) => {
      const ids: string[] = [];
      for (let i = 1; i <= 4; i++) ids.push((await from.commands.run(convId, { op: "leader_message", args: { content: `${tag} ${i}` }, author })).message_id);
      return ids;
    };
    const [fromB, fromC] = await Promise.all([send(b, bob, "B"), send(c, carol, "C")]);
    const texts = await until("all eight messages on A", async () => {
      const messages = await personMessages(a, convId);
      return messages.length === 9 ? messages : null;
    });
    expect(new Set([...fromB, ...fromC]).size).toBe(8);
    expect(texts.map((m) => m.message_id)).toEqual(expect.arrayContaining([...fromB, ...fromC]));
    const contents = texts.map((m) => String(m.content));
    expect(contents.filter((t) => t.startsWith("B "))).toEqual(["B 1", "B 2", "B 3", "B 4"]);
    expect(contents.filter((t) => t.startsWith("C "))).toEqual(["C 1", "C 2", "C 3", "C 4"]);
    expect(b.storage.isOpen(convId) || c.storage.isOpen(convId)).toBe(false);
  }, 60_000);

  it("does not run a command the holder reaches only after its sender stopped waiting (its answer is a 503)", async () => {
    const { start, a, proxy, convId } = await deployment({ forwarding: { answerMs: 400, takeoverWaitMs: 1_000 } }, { proxied: true });
    a.watch(convId);
    await a.commands.run(convId, { op: "leader_message", args: { content: "Start here" }, author: alice });
    const b = await start("inst-b");
    const c = await start("inst-c", { forwarding: { answerMs: 10_000, takeoverWaitMs: 20_000 } });

    // A's commits wait: the first command is begun on A and cannot be answered in time; the second
    // waits behind it on A, past its sender's wait.
    const release = proxy!.hold();
    const held = await failure(b.commands.run(convId, { op: "leader_message", args: { content: "Held one" }, author: bob }));
    const late = await failure(b.commands.run(convId, { op: "leader_message", args: { content: "Too late" }, author: bob }));
    expect([held.status, late.status]).toEqual([503, 503]);
    release();
    // Queued on A behind both: once it is answered, A has dealt with them.
    await c.commands.run(convId, { op: "leader_message", args: { content: "Marker" }, author: carol });
    const texts = (await personMessages(a, convId)).map((m) => m.content);
    // The one begun before its sender gave up did run (the limit the docs name: a lost answer); the late one did not.
    expect(texts).toEqual(["Start here", "Held one", "Marker"]);
  }, 60_000);
});
