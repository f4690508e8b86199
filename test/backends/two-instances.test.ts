/**
 * Two built servers on one PostgreSQL and one Redis (issue 31): a conversation started on A is
 * followed by a viewer on B (B's snapshot is A's run's, A's events reach it live), a person's
 * message posted on B reaches the run on A (the fake model's request log shows it in A's next
 * leader call: A calls with A's key), an error from A comes back to B's caller as A gives it; then
 * Redis is flushed mid-run and later restarted: the run goes on and finishes, and the viewer on B
 * resyncs from a snapshot and keeps following, and messages on B still reach A. Someone watches
 * on A too: a run nobody uses or watches is let go, and the next instance to use it takes it.
 */
import { mkdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeText, startFakeOpenAI, type FakeOpenAI, type FakeRequestBody } from "../helpers/fake-openai";
import { writeFakeModels } from "../helpers/models-file";
import { startServer, tempDir, type TestServer } from "../helpers/server";
import { openViewer, type SseViewer } from "../helpers/sse-viewer";
import { until } from "../helpers/wait";
import { pgClusterForFile } from "@/test/support/pg-cluster";
import { startRedis, type TestRedis } from "@/test/support/redis-server";

const pg = pgClusterForFile();
let redis: TestRedis;
let fake: FakeOpenAI;
let a: TestServer | null = null;
let b: TestServer | null = null;
let viewer: SseViewer | null = null;
let viewerOnA: SseViewer | null = null;

/** Leader calls wait here while a gate named by a word of the person's last message is closed. */
const gates = new Map<string, { open: () => void; opened: Promise<void> }>();
function gate(word: string): () => void {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  gates.set(word, { open, opened });
  return open;
}

type Msg = { role: string; content?: unknown };

/** The last person's message of a request (what the leader answers). */
function lastPersonText(body: FakeRequestBody | undefined): string {
  const messages = (body?.messages ?? []) as Msg[];
  const last = [...messages].reverse().find((m) => m.role === "user");
  return typeof last?.content === "string" ? last.content : JSON.stringify(last?.content ?? "");
}

beforeAll(async () => {
  redis = await startRedis();
  fake = await startFakeOpenAI({
    script: async (body) => {
      const text = lastPersonText(body);
      for (const [word, g] of gates) if (text.includes(word)) await g.opened;
      const said = /(Start the work|A word from B|Before the flush|After the flush|While Redis is down|After the restart)/.exec(text)?.[1] ?? "something";
      return fakeText(`Noted: ${said}`);
    },
  });
  const databaseUrl = await pg.cluster.createDatabase();
  const start = async (key: string) => {
    const home = tempDir(`astrion-two-${key}-`);
    mkdirSync(home, { recursive: true });
    writeFakeModels(home, fake.url);
    // Each instance calls the model with a key of its own: the request log tells which one called.
    return startServer({ home, env: { ASTRION_DATABASE_URL: databaseUrl, ASTRION_REDIS_URL: redis.url, FAKE_OPENAI_KEY: `sk-instance-${key}`, ASTRION_LEADER_BATCH_MS: "0" } });
  };
  a = await start("a");
  b = await start("b");
}, 400_000);

afterAll(async () => {
  viewer?.close();
  viewerOnA?.close();
  await Promise.allSettled([a?.stop(), b?.stop()]);
  await fake?.close();
  await redis?.dispose();
});

/** Whether a request is the Team Leader's (it is offered create_sub_agent; memory's distiller is not). */
function isLeaderCall(body: FakeRequestBody | undefined): boolean {
  return ((body?.tools ?? []) as Array<{ function?: { name?: string } }>).some((t) => t.function?.name === "create_sub_agent");
}

/** The leader calls the fake got whose last person's message holds `text`, with the key they came with. */
function leaderCallsWith(text: string) {
  return fake.requests.filter((r) => r.callIndex >= 0 && isLeaderCall(r.body) && lastPersonText(r.body).includes(text)).map((r) => r.authorization);
}

/** The texts of the leader's transcript on `server`. */
async function transcript(server: TestServer, id: string): Promise<string[]> {
  const r = await server.api("GET", `/api/conversations/${id}/messages`);
  return (r.json.messages as Msg[]).map((m) => String(m.content));
}

describe("two instances on one PostgreSQL and one Redis", () => {
  it("a viewer on B follows A's run, B's message reaches A's run, and both survive Redis flushed and restarted", async () => {
    const A = a!;
    const B = b!;
    const dump = async (error: unknown): Promise<never> => {
      throw new Error(`${(error as Error).message}\n--- viewer ${JSON.stringify({ texts: viewer?.texts, snapshots: viewer?.snapshots })}\n--- A\n${A.output().slice(-4000)}\n--- B\n${B.output().slice(-4000)}`);
    };
    const project = tempDir("astrion-two-project-");
    const openFirst = gate("Start the work");
    const created = await A.api("POST", "/api/conversations", { title: "Two instances", project_path: project, model_key: "fake", goal: "Start the work" });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const id: string = created.json.conversation.id;
    // Someone watches on A, so A keeps the run (an idle run nobody watches is let go, and the next
    // instance that uses it takes it).
    viewerOnA = openViewer(A, id);
    await until("A's first leader call", () => leaderCallsWith("Start the work").length > 0);

    // B's viewer: its snapshot is A's run's (A holds the lease), then A's events arrive live.
    viewer = openViewer(B, id);
    await until("the goal in B's snapshot", () => viewer!.snapshots >= 1 && viewer!.texts.includes("Start the work")).catch(dump);
    openFirst();
    await until("A's answer on B's stream", () => viewer!.texts.includes("Noted: Start the work")).catch(dump);

    // A message posted on B runs on A: A's next leader call has it, made with A's key.
    const sent = await B.api("POST", `/api/conversations/${id}/messages`, { content: "A word from B" });
    expect(sent.status, JSON.stringify(sent.json)).toBe(202);
    await until("A's leader call with B's message", () => leaderCallsWith("A word from B").length > 0).catch(dump);
    expect(leaderCallsWith("A word from B")).toEqual(["Bearer sk-instance-a"]);
    await until("the answer on B's stream", () => viewer!.texts.includes("Noted: A word from B")).catch(dump);

    // An error of A's reaches B's caller as A gives it (status and body).
    const answer = { question_id: "ask_abc_001", answer: "Yes." };
    const onA = await A.api("POST", `/api/conversations/${id}/agents/9/answers`, answer);
    const onB = await B.api("POST", `/api/conversations/${id}/agents/9/answers`, answer);
    expect(onA.status).toBe(404);
    expect({ status: onB.status, body: onB.json }).toEqual({ status: onA.status, body: onA.json });

    // Redis flushed while A's leader call is under way: the run finishes, the viewer resyncs and goes on.
    const openFlush = gate("Before the flush");
    expect((await B.api("POST", `/api/conversations/${id}/messages`, { content: "Before the flush" })).status).toBe(202);
    await until("the leader call before the flush", () => leaderCallsWith("Before the flush").length > 0).catch(dump);
    const snapshotsBefore = viewer.snapshots;
    await redis.flushAll();
    openFlush();
    await until("the answer after the flush on A", async () => (await transcript(A, id)).includes("Noted: Before the flush")).catch(dump);
    await until("the viewer resynced with it", () => viewer!.snapshots > snapshotsBefore && viewer!.texts.includes("Noted: Before the flush"), 60_000).catch(dump);
    expect((await B.api("POST", `/api/conversations/${id}/messages`, { content: "After the flush" })).status).toBe(202);
    await until("the viewer goes on after the flush", () => viewer!.texts.includes("Noted: After the flush"), 60_000).catch(dump);
    // Answered once, by the instance holding the run then: A, or B if A let the run go while its
    // own viewer reconnected after the flush (an idle run nobody watches is let go).
    expect(leaderCallsWith("After the flush")).toHaveLength(1);

    // Redis stopped and started again (empty). Meanwhile a message is sent where the run is (without
    // Redis nothing is forwarded: the other instance answers 503, try again). The viewer on B gets
    // what was done meanwhile: live if B runs it, else by a resync once Redis is back.
    await redis.stop();
    let down = await A.api("POST", `/api/conversations/${id}/messages`, { content: "While Redis is down" });
    if (down.status === 503) down = await B.api("POST", `/api/conversations/${id}/messages`, { content: "While Redis is down" });
    expect(down.status, JSON.stringify(down.json)).toBe(202);
    await until("the answer while Redis is down", async () => (await transcript(A, id)).includes("Noted: While Redis is down")).catch(dump);
    await redis.start();
    await until("the viewer on B shows it after the restart", () => viewer!.texts.includes("Noted: While Redis is down"), 90_000).catch(dump);
    // Forwarding is back once the instances reconnected (a 503 meanwhile says to try again).
    const after = await until(
      "a message on B accepted after the restart",
      async () => {
        const r = await B.api("POST", `/api/conversations/${id}/messages`, { content: "After the restart" });
        if (r.status === 503) return null;
        return r;
      },
      90_000,
    ).catch(dump);
    expect(after.status, JSON.stringify(after.json)).toBe(202);
    await until("the viewer goes on after the restart", () => viewer!.texts.includes("Noted: After the restart"), 60_000).catch(dump);

    // The run finished every message: the transcript on A and on B (read from PostgreSQL) agree.
    expect(leaderCallsWith("Before the flush")).toEqual(["Bearer sk-instance-a"]);
    const final = await until("every answer in the transcript", async () => {
      const texts = await transcript(A, id);
      return texts.includes("Noted: After the restart") ? texts : null;
    });
    for (const said of ["Start the work", "A word from B", "Before the flush", "After the flush", "While Redis is down", "After the restart"]) {
      expect(final).toContain(`Noted: ${said}`);
      expect(leaderCallsWith(said), said).toHaveLength(1);
    }
    expect(await transcript(B, id)).toEqual(final);
  }, 600_000);
});
