/**
 * Two built servers on one PostgreSQL and one Redis share the shared context and long-term
 * memory (issue 31: PostgreSQL holds the truth): the Team Leader of a run on A writes the shared
 * context and B reads it through the API (from A, which holds the run); a person's write on B that
 * waits for a person, and that person's decision on B, are run by A (forwarded: A keeps the lease)
 * and show on A, with their timeline records in PostgreSQL; a memory entry made on A is listed and
 * found by a search on B within the 2 s, and one made on B on A; and neither data folder
 * gets a shared_context.json or a memory/entries.json.
 */
import { mkdirSync, readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Pool } from "pg";
import { createPool } from "@/lib/pg";
import { fakeText, fakeToolCalls, startFakeOpenAI, type FakeOpenAI, type FakeRequestBody } from "../helpers/fake-openai";
import { writeFakeModels } from "../helpers/models-file";
import { startServer, tempDir, type TestServer } from "../helpers/server";
import { openViewer, type SseViewer } from "../helpers/sse-viewer";
import { until } from "../helpers/wait";
import { pgClusterForFile } from "@/test/support/pg-cluster";
import { startRedis, type TestRedis } from "@/test/support/redis-server";

const pg = pgClusterForFile();
let redis: TestRedis;
let fake: FakeOpenAI;
let db: Pool;
let a: TestServer | null = null;
let b: TestServer | null = null;
let viewerOnA: SseViewer | null = null;

type Msg = { role: string; content?: unknown; tool_calls?: unknown };

/** Whether a request is the Team Leader's (it is offered create_sub_agent; memory's distiller is not). */
function isLeaderCall(body: FakeRequestBody | undefined): boolean {
  return ((body?.tools ?? []) as Array<{ function?: { name?: string } }>).some((t) => t.function?.name === "create_sub_agent");
}

beforeAll(async () => {
  redis = await startRedis();
  // The leader answers "Plan it" by writing the shared context, then says so; anything else is noted.
  fake = await startFakeOpenAI({
    script: async (body) => {
      if (!isLeaderCall(body)) return fakeText("[]");
      const messages = (body.messages ?? []) as Msg[];
      const last = messages.at(-1);
      if (last?.role === "tool") return fakeText("Wrote the plan.");
      if (last?.role === "user" && String(last.content).includes("Plan it")) {
        return fakeToolCalls([{ name: "update_shared_context", arguments: { key: "plan", value: "the leader's plan, written on A", mode: "overwrite", expected_version: 0 } }]);
      }
      return fakeText("Noted.");
    },
  });
  const databaseUrl = await pg.cluster.createDatabase();
  db = createPool(databaseUrl, { max: 2 });
  const start = async (key: string) => {
    const home = tempDir(`astrion-shared-${key}-`);
    mkdirSync(home, { recursive: true });
    writeFakeModels(home, fake.url);
    // A wide conflict window: a person's stale overwrite of the leader's value (equal authority) waits for a person.
    return startServer({ home, env: { ASTRION_DATABASE_URL: databaseUrl, ASTRION_REDIS_URL: redis.url, FAKE_OPENAI_KEY: `sk-instance-${key}`, ASTRION_LEADER_BATCH_MS: "0", ASTRION_CONFLICT_WINDOW_MS: "3600000" } });
  };
  a = await start("a");
  b = await start("b");
}, 400_000);

afterAll(async () => {
  viewerOnA?.close();
  await Promise.allSettled([a?.stop(), b?.stop()]);
  await db?.end();
  await fake?.close();
  await redis?.dispose();
});

/** The instance id `server` leases runs as (it says so at start). */
function ownerOf(server: TestServer): string {
  const owner = /leases runs as (\S+)/.exec(server.output())?.[1];
  if (!owner) throw new Error("the server did not say which owner it leases runs as");
  return owner;
}

async function leaseOwner(id: string): Promise<string | null> {
  return (await db.query<{ owner: string }>("SELECT owner FROM leases WHERE conversation_id = $1 AND expires_at > now()", [id])).rows[0]?.owner ?? null;
}

/** Every file below `root` whose name is `name` (relative paths). */
function filesNamed(root: string, name: string): string[] {
  return (readdirSync(root, { recursive: true }) as string[]).filter((p) => path.basename(p) === name);
}

describe("two instances share the shared context and long-term memory through PostgreSQL", () => {
  it("the shared context written by A's run is read on B; a person's write and decision on B run on A; memory made on one is found on the other", async () => {
    const A = a!;
    const B = b!;
    const dump = async (error: unknown): Promise<never> => {
      throw new Error(`${(error as Error).message}\n--- A\n${A.output().slice(-4000)}\n--- B\n${B.output().slice(-4000)}`);
    };
    const project = tempDir("astrion-shared-project-");
    const created = await A.api("POST", "/api/conversations", { title: "Shared state", project_path: project, model_key: "fake", goal: "Plan it" });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const id: string = created.json.conversation.id;
    // Someone watches on A, so A keeps the run (and its lease) throughout.
    viewerOnA = openViewer(A, id);
    const sharedOn = async (server: TestServer) => {
      const r = await server.api("GET", `/api/conversations/${id}/shared-context`);
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      return r.json.shared_context as { entries: Record<string, { value: string; version: number; author: string; decided_by?: string }>; pending: Array<{ conflict_id: string; key: string }> };
    };
    await until("the leader's write on A", async () => (await sharedOn(A)).entries.plan?.version === 1).catch(dump);
    expect(await leaseOwner(id)).toBe(ownerOf(A));

    // B reads it through the API: A's run's shared context.
    expect((await sharedOn(B)).entries.plan).toMatchObject({ value: "the leader's plan, written on A", version: 1, author: "Team Leader" });

    // A person on B overwrites the version they read (0, before the leader's): stale and equal in
    // authority within the window, it waits for a person, in A's run's shared context.
    const put = await B.api("PUT", `/api/conversations/${id}/shared-context`, { key: "plan", value: "the person's plan, sent to B", mode: "overwrite", expected_version: 0 });
    expect(put.status, JSON.stringify(put.json)).toBe(200);
    expect(put.json.decision).toMatchObject({ outcome: "pending", rule: "awaiting_person", key: "plan" });
    const conflictId: string = put.json.decision.conflict.conflict_id;
    const onA = await sharedOn(A);
    expect(onA.pending.map((c) => c.conflict_id)).toEqual([conflictId]);
    expect(onA.entries.plan!.value).toBe("the leader's plan, written on A");

    // The person decides on B: taken, on A.
    const decided = await B.api("POST", `/api/conversations/${id}/shared-context/decisions`, { conflict_id: conflictId, choice: "take_proposed" });
    expect(decided.status, JSON.stringify(decided.json)).toBe(200);
    expect(decided.json.decision).toMatchObject({ outcome: "applied", rule: "person_decision", version: 2 });
    const after = await sharedOn(A);
    expect(after.pending).toEqual([]);
    expect(after.entries.plan).toMatchObject({ value: "the person's plan, sent to B", version: 2, decided_by: "person" });
    expect(await sharedOn(B)).toEqual(after);
    // Decided twice: A's refusal (409) comes back to B.
    expect((await B.api("POST", `/api/conversations/${id}/shared-context/decisions`, { conflict_id: conflictId, choice: "keep_current" })).status).toBe(409);
    // A ran both: it still holds the lease, and the timeline rows (in PostgreSQL) record the person's actions.
    expect(await leaseOwner(id)).toBe(ownerOf(A));
    const actions = await until("the person's actions in the timeline rows", async () => {
      const rows = (await db.query<{ line: string }>("SELECT line FROM conversation_lines WHERE conversation_id = $1 AND file = 'timeline.jsonl' ORDER BY seq", [id])).rows;
      const found = rows.map((r) => (JSON.parse(r.line) as { action: string }).action);
      return found.includes("decide_conflict") ? found : null;
    });
    expect(actions).toEqual(expect.arrayContaining(["update_shared_context", "conflict_resolution", "decide_conflict"]));
    const row = (await db.query<{ doc: { entries: Record<string, { value: string }> } }>("SELECT doc FROM shared_contexts WHERE conversation_id = $1", [id])).rows[0];
    expect(row?.doc.entries.plan?.value).toBe("the person's plan, sent to B");

    // Memory: an entry made on A is listed and found on B within 2 s, and one made on B on A.
    const madeOnA = await A.api("POST", "/api/memory/entries", { kind: "fact", statement: "The staging database is rebuilt every Monday night", subject: "staging database", level: "public", project_path: null });
    expect(madeOnA.status, JSON.stringify(madeOnA.json)).toBe(201);
    const entryA: string = madeOnA.json.entry.id;
    await until("A's entry in B's search", async () => ((await B.api("GET", "/api/memory/entries?q=staging%20database%20rebuilt")).json.entries as Array<{ id: string }>)[0]?.id === entryA, 2_000).catch(dump);
    const madeOnB = await B.api("POST", "/api/memory/entries", { kind: "preference", statement: "Release notes are written in French and English", subject: "release notes", level: "public", project_path: null });
    expect(madeOnB.status, JSON.stringify(madeOnB.json)).toBe(201);
    // (The run's own distilled entries may be listed beside them.)
    const entryB: string = madeOnB.json.entry.id;
    await until("B's entry listed on A", async () => ((await A.api("GET", "/api/memory/entries?limit=100")).json.entries as Array<{ id: string }>).some((e) => e.id === entryB), 2_000).catch(dump);
    expect(((await A.api("GET", `/api/memory/entries/${entryB}`)).json.entry as { statement: string }).statement).toBe("Release notes are written in French and English");

    // Neither instance wrote them to its data folder.
    for (const server of [A, B]) {
      expect(filesNamed(server.home, "shared_context.json")).toEqual([]);
      expect(filesNamed(server.home, "entries.json")).toEqual([]);
    }
  }, 600_000);
});
