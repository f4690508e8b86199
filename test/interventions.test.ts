/**
 * Interventions over HTTP on the real built server in team mode (issue 32), with a fake
 * OpenAI-compatible model whose calls the test holds: two people's steer messages sent at the same
 * moment both reach the leader's next request, in the order the server received them, each under
 * its author's name; an interrupt closes the model's HTTP request in flight and the partial answer
 * is saved as cancelled; a queued message is withdrawn; a viewer is refused the interventions
 * route (403) and an editor is not.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeText, startFakeOpenAI, type FakeOpenAI, type FakeRequestBody, type Script } from "./helpers/fake-openai";
import { writeFakeModels } from "./helpers/models-file";
import { startServer, tempDir, type RawResponse, type TestServer } from "./helpers/server";
import { until } from "./helpers/wait";

const TOKEN = "interventions-token-correct-horse-0123";
const OWNER = { authorization: `Bearer ${TOKEN}` };
const PASSWORD = "a-long-password-1";

type Msg = { role: string; content?: unknown };
const lastUser = (body: FakeRequestBody) => String(((body.messages ?? []) as Msg[]).filter((m) => m.role === "user").at(-1)?.content ?? "");
const isLeader = (body: FakeRequestBody) => ((body.tools ?? []) as Array<{ function: { name: string } }>).some((t) => t.function.name === "create_sub_agent");

/** What the fake answers next; the test replaces it per case. */
let script: (body: FakeRequestBody) => Script | Promise<Script> = () => fakeText("ok");
let fake: FakeOpenAI;
let server: TestServer;

beforeAll(async () => {
  fake = await startFakeOpenAI({ script: (body) => script(body) });
  const home = tempDir("astrion-home-");
  // A slow model: calls this file holds must not hit the first-response deadline (and be retried).
  writeFakeModels(home, fake.url, { timeouts: { first_response_ms: 120_000, idle_ms: 120_000 } });
  server = await startServer({ home, env: { ASTRION_TOKEN: TOKEN, ASTRION_OWNER_NAME: "Mei", FAKE_OPENAI_KEY: "sk-fake-interventions", ASTRION_LEADER_BATCH_MS: "0" } });
});

afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

function cookiesOf(res: RawResponse): string {
  const set = res.headers["set-cookie"] ?? [];
  return (Array.isArray(set) ? set : [set]).map((c) => c.split(";")[0]!).join("; ");
}

let counter = 0;
/** A new person of `role`, joined through an invitation: their name and cookie. */
async function person(role: string): Promise<{ name: string; cookie: string }> {
  const invited = await server.api("POST", "/api/people", { role }, OWNER);
  expect(invited.status, invited.text).toBe(201);
  const name = `${role}${Date.now().toString(36)}${(counter++).toString(36)}`;
  const joined = await server.api("POST", "/api/people/join", { token: invited.json.token, name, password: PASSWORD });
  expect(joined.status, joined.text).toBe(201);
  return { name, cookie: cookiesOf(joined) };
}

async function conversation(who: { cookie: string }): Promise<string> {
  const res = await server.api("POST", "/api/conversations", { title: "Interventions", project_path: tempDir("astrion-iv-project-") }, { cookie: who.cookie });
  expect(res.status, res.text).toBe(201);
  return res.json.conversation.id as string;
}

function gate(): { open: () => void; wait: Promise<void> } {
  let open!: () => void;
  const wait = new Promise<void>((r) => (open = r));
  return { open, wait };
}

const records = async (id: string, who: { cookie: string }) => (await server.api("GET", `/api/conversations/${id}/timeline`, undefined, { cookie: who.cookie })).json.records as Array<{ action: string; trace_id: string; envelope: { type: string; author?: { name: string }; meta: { intervention?: { strategy?: string; kind: string } } } }>;

describe("interventions over HTTP", () => {
  it("two people's steer messages sent at once both reach the leader's next request, in the order received, each under its author's name", async () => {
    const [ada, bo] = [await person("editor"), await person("approver")];
    const id = await conversation(ada);
    const held = gate();
    script = async (body) => {
      if (!isLeader(body)) return fakeText("agent words");
      if (lastUser(body).endsWith("Start the survey")) {
        await held.wait;
        return fakeText("Surveying.");
      }
      return fakeText("Read you both.");
    };
    const before = fake.requests.length;
    expect((await server.api("POST", `/api/conversations/${id}/messages`, { content: "Start the survey" }, { cookie: ada.cookie })).status).toBe(202);
    await until("the leader's first call", () => fake.requests.slice(before).some((r) => r.body && lastUser(r.body).endsWith("Start the survey")));
    const [a, b] = await Promise.all([
      server.api("POST", `/api/conversations/${id}/messages`, { content: "check the tests too" }, { cookie: ada.cookie }),
      server.api("POST", `/api/conversations/${id}/messages`, { content: "and the docs" }, { cookie: bo.cookie }),
    ]);
    expect([a.status, b.status, a.json.intervention?.strategy, b.json.intervention?.strategy]).toEqual([202, 202, "steer", "steer"]);
    held.open();
    const userTexts = (body: FakeRequestBody) => ((body.messages ?? []) as Msg[]).filter((m) => m.role === "user").map((m) => String(m.content));
    const steeredIn = (body: FakeRequestBody) => userTexts(body).filter((u) => u.endsWith("check the tests too") || u.endsWith("and the docs"));
    // The leader's very next request after the held one carries both.
    const next = await until("the leader's next call", () => fake.requests.slice(before).filter((r) => r.body && isLeader(r.body))[1]);
    const steered = steeredIn(next.body!);
    expect(steered).toHaveLength(2);
    // In the order the server took them (the timeline's), each under its author's name.
    const order = (await records(id, ada)).filter((r) => r.action === "intervention").map((r) => r.envelope.author?.name);
    expect([...order].sort()).toEqual([ada.name, bo.name].sort());
    expect(steered.map((u) => u.slice(1, u.indexOf("]")))).toEqual(order);
    await until("the run to settle", async () => !(await server.api("GET", `/api/conversations/${id}/interventions`, undefined, { cookie: ada.cookie })).json.running);
  });

  it("an interrupt closes the model's request in flight and the partial answer is saved as cancelled", async () => {
    const ada = await person("editor");
    const id = await conversation(ada);
    script = (body) => {
      if (lastUser(body).endsWith("Write at length")) return { kind: "stream", content: ["Once ", "upon ", "a time"], chunkDelayMs: 50, end: "stall", chunksBeforeEnd: 3 };
      return fakeText("Stopped, as you asked.");
    };
    const before = fake.requests.length;
    await server.api("POST", `/api/conversations/${id}/messages`, { content: "Write at length" }, { cookie: ada.cookie });
    const streaming = await until("the streaming call", () => fake.requests.slice(before).find((r) => r.body && lastUser(r.body).endsWith("Write at length")));
    // Its three chunks go out within 150 ms of the request; then it stalls, as a slow model would.
    await new Promise((r) => setTimeout(r, 500));
    expect(streaming.closedByClient).toBe(false);
    const sentAt = Date.now();
    const res = await server.api("POST", `/api/conversations/${id}/messages`, { content: "stop that", strategy: "interrupt" }, { cookie: ada.cookie });
    expect(res.status).toBe(202);
    expect(res.json.intervention).toEqual({ strategy: "interrupt", cancelled_call: true });
    await until("the request closed", () => streaming.closedByClient);
    // The bound: cancelled within 1 s of the person's interrupt.
    expect(streaming.closedAt! - sentAt).toBeLessThan(1000);
    const saved = await until("the cancelled answer", async () => {
      const messages = (await server.api("GET", `/api/conversations/${id}/messages`, undefined, { cookie: ada.cookie })).json.messages as Array<{ content: string; metadata?: Record<string, unknown> }>;
      return messages.find((m) => m.metadata?.cancelled === true);
    });
    expect(saved.metadata).toMatchObject({ interrupted: true, cancelled_for: "interrupt", cancelled_by: { name: ada.name } });
    expect(saved.content).toContain("Once");
  });

  it("a viewer may not withdraw or reorder (403); an editor queues and withdraws, and the timeline names them", async () => {
    const [ada, viewer] = [await person("editor"), await person("viewer")];
    const id = await conversation(ada);
    const held = gate();
    script = async (body) => {
      if (lastUser(body).endsWith("Long job")) await held.wait;
      return fakeText("done");
    };
    await server.api("POST", `/api/conversations/${id}/messages`, { content: "Long job" }, { cookie: ada.cookie });
    await until("the run", async () => (await server.api("GET", `/api/conversations/${id}/interventions`, undefined, { cookie: ada.cookie })).json.running);
    const queued = await server.api("POST", `/api/conversations/${id}/messages`, { content: "later please", strategy: "queue" }, { cookie: ada.cookie });
    const queueId = queued.json.intervention.queue_id as string;
    const refused = await server.api("POST", `/api/conversations/${id}/interventions`, { action: "withdraw_queued", queue_id: queueId }, { cookie: viewer.cookie });
    expect(refused.status).toBe(403);
    expect(refused.json.error.details).toMatchObject({ reason: "role", role: "viewer", needed: "editor" });
    const listed = await server.api("GET", `/api/conversations/${id}/interventions`, undefined, { cookie: viewer.cookie });
    expect(listed.json.queued.map((q: { content: string }) => q.content)).toEqual(["later please"]);
    const withdrawn = await server.api("POST", `/api/conversations/${id}/interventions`, { action: "withdraw_queued", queue_id: queueId }, { cookie: ada.cookie });
    expect([withdrawn.status, withdrawn.json.queued]).toEqual([200, []]);
    held.open();
    const kinds = (await records(id, ada)).filter((r) => r.action === "intervention").map((r) => [r.envelope.type, r.envelope.meta.intervention?.kind, r.envelope.author?.name]);
    expect(kinds).toEqual([
      ["request", "message", ada.name],
      ["control", "withdraw_queued", ada.name],
    ]);
  });
});
