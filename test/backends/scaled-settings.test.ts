/**
 * Two built servers on one PostgreSQL, one Redis and one shared data folder (issue 31, "What goes
 * where" and "Redis holds"): the settings an instance keeps in the data folder are the other's
 * within 2 s, and wrong sign-in guesses are counted for both. On A, through the API: a role is
 * created and then edited, a model with a stored key is added, an MCP server is added; by hand,
 * gateway.json gets a source. On B: the role is listed with its edit, the model is offered, and a
 * conversation on B runs on that model (sending the key stored on A) and creates a sub-agent of
 * that role (prompted with the edited text); the MCP server and the gateway source are listed.
 * Sign-in: wrong token and password guesses sent to A and B add up to one lockout, a right token
 * is refused until it ends; with Redis stopped, a guess is still answered (counted in memory) and
 * the server says so once. `/api/health` names the backend and that both answer, and nothing of
 * their URLs.
 */
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pgClusterForFile } from "@/test/support/pg-cluster";
import { startRedis, type TestRedis } from "@/test/support/redis-server";
import { fakeText, fakeToolCalls, startFakeOpenAI, type FakeOpenAI, type FakeRequestBody, type Script } from "../helpers/fake-openai";
import { startServer, tempDir, type TestServer } from "../helpers/server";
import { until } from "../helpers/wait";

const pg = pgClusterForFile();
const TOKEN = "scaled-settings-token-0123456789";
const AUTH = { authorization: `Bearer ${TOKEN}` };
const SECRET = "sk-stored-on-a-0123456789";
/** Every propagation is awaited this long at most: the bound. */
const WITHIN = 2_000;

let redis: TestRedis;
let databaseUrl: string;
let fake: FakeOpenAI;
let a: TestServer;
let b: TestServer;
const home = tempDir("astrion-shared-home-");

type Msg = { role: string; content?: unknown; tool_calls?: Array<{ function: { name: string } }> };
const messagesOf = (body: FakeRequestBody) => (body.messages ?? []) as Msg[];
const toolNames = (body: FakeRequestBody) => ((body.tools ?? []) as Array<{ function: { name: string } }>).map((t) => t.function.name);

/** The leader creates one sub-agent of the role its message names; the sub-agent reports at once. */
async function script(body: FakeRequestBody): Promise<Script> {
  const messages = messagesOf(body);
  if (toolNames(body).includes("create_sub_agent")) {
    if (messages.some((m) => m.tool_calls?.some((c) => c.function.name === "create_sub_agent"))) return fakeText("waiting");
    const last = [...messages].reverse().find((m) => m.role === "user");
    const role = /use (\S+)/.exec(String(last?.content ?? ""))?.[1] ?? "none";
    return fakeToolCalls([{ name: "create_sub_agent", arguments: { role_id: role, task: "say hello" } }]);
  }
  return fakeToolCalls([{ name: "report_to_leader", arguments: { summary: "done" } }]);
}

const call = (s: TestServer, method: string, p: string, body?: unknown) => s.api(method, p, body, AUTH);

beforeAll(async () => {
  redis = await startRedis();
  databaseUrl = await pg.cluster.createDatabase();
  fake = await startFakeOpenAI({ script });
  mkdirSync(path.join(home, "agents"), { recursive: true });
  const env = { ASTRION_DATABASE_URL: databaseUrl, ASTRION_REDIS_URL: redis.url, ASTRION_TOKEN: TOKEN, ASTRION_SIGNIN_FREE_ATTEMPTS: "3", ASTRION_SIGNIN_LOCKOUT_MS: "3000", ASTRION_LEADER_BATCH_MS: "0" };
  // One after the other: the people database's tables are made by the first.
  a = await startServer({ home, env });
  b = await startServer({ home, env });
}, 400_000);

afterAll(async () => {
  await Promise.allSettled([a?.stop(), b?.stop()]);
  await fake?.close();
  await redis?.dispose();
});

describe("two instances sharing one data folder on PostgreSQL + Redis", () => {
  it("say in /api/health which backend they run on and that PostgreSQL and Redis answer, naming neither's address", async () => {
    for (const s of [a, b]) {
      const health = await call(s, "GET", "/api/health");
      expect(health.status).toBe(200);
      expect(health.json.backend).toMatchObject({ kind: "postgresql+redis", postgresql: { ok: true }, redis: { ok: true } });
      expect(health.text).not.toContain(databaseUrl);
      expect(health.text).not.toContain(redis.url);
      expect(health.text).not.toContain(TOKEN);
    }
  });

  it("a role created and edited on A is listed on B with its edit, and a sub-agent on B is made from it", async () => {
    const listed = async (s: TestServer) => JSON.stringify((await call(s, "GET", "/api/roles")).json);
    // B has read (and holds) the role folder before A changes it.
    expect(await listed(b)).not.toContain("shared-writer");
    const fields = { name: "Shared Writer", description: "Made on A", capabilities: ["writing"] };
    const created = await call(a, "POST", "/api/roles", { fields: { id: "shared-writer", ...fields }, body: "You write. ORIGINAL-PROMPT" });
    expect(created.status, created.text).toBe(201);
    await until("B lists the role made on A", async () => (await listed(b)).includes("Made on A"), WITHIN);
    const edited = await call(a, "PUT", "/api/roles/shared-writer", { fields: { ...fields, description: "Edited on A" }, body: "You write. EDITED-PROMPT" });
    expect(edited.status, edited.text).toBe(200);
    await until("B lists the edit made on A", async () => (await listed(b)).includes("Edited on A"), WITHIN);
    const detail = await call(b, "GET", "/api/roles/shared-writer");
    expect(detail.json.raw ?? detail.text).toContain("EDITED-PROMPT");

    // A model with a stored key added on A is offered on B, and B runs a conversation on it.
    expect(((await call(b, "GET", "/api/models")).json.models as Array<{ key: string }>).map((m) => m.key)).not.toContain("added-on-a");
    const { etag } = (await call(a, "GET", "/api/models/entries")).json;
    const entry = { label: "Added on A", provider: "openai", base_url: fake.url, model: "fake-model", thinking_style: "none", max_concurrency: 2 };
    const added = await call(a, "POST", "/api/models/entries", { key: "added-on-a", entry, api_key: { mode: "stored", value: SECRET }, etag });
    expect(added.status, added.text).toBe(201);
    await until("B offers the model added on A", async () => ((await call(b, "GET", "/api/models")).json.models as Array<{ key: string }>).some((m) => m.key === "added-on-a"), WITHIN);

    const project = tempDir("astrion-shared-project-");
    writeFileSync(path.join(project, "README.md"), "# Shared\n");
    const conv = await call(b, "POST", "/api/conversations", { title: "On B", project_path: project, model_key: "added-on-a" });
    expect(conv.status, conv.text).toBe(201);
    const id = conv.json.conversation.id as string;
    expect((await call(b, "POST", `/api/conversations/${id}/messages`, { content: "use shared-writer" })).status).toBe(202);
    const agentCall = await until(
      "the sub-agent's first model call",
      () => fake.requests.find((r) => r.body && !toolNames(r.body).includes("create_sub_agent") && messagesOf(r.body).some((m) => m.role === "system")),
      60_000,
    );
    expect(messagesOf(agentCall.body!).find((m) => m.role === "system")?.content).toEqual(expect.stringContaining("EDITED-PROMPT"));
    expect(agentCall.authorization).toBe(`Bearer ${SECRET}`);
    const agents = (await call(b, "GET", `/api/conversations/${id}/agents`)).json.agents as Array<{ metadata: { role_id?: string } }>;
    expect(agents.map((x) => x.metadata.role_id)).toContain("shared-writer");
  }, 120_000);

  it("an MCP server added on A is listed on B, and a gateway source written into the shared folder is listed on both", async () => {
    const names = async (s: TestServer) => ((await call(s, "GET", "/api/mcp/servers")).json.servers as Array<{ name: string }>).map((x) => x.name);
    expect(await names(b)).not.toContain("shared-echo");
    const added = await call(a, "POST", "/api/mcp/servers", { name: "shared-echo", config: { command: process.execPath, args: ["-e", "0"] } });
    expect(added.status, added.text).toBe(201);
    await until("B lists the MCP server added on A", async () => (await names(b)).includes("shared-echo"), WITHIN);

    const sources = async (s: TestServer) => JSON.stringify((await call(s, "GET", "/api/gateway")).json.sources);
    expect(await sources(b)).not.toContain("tickets");
    const spec = { openapi: "3.0.0", info: { title: "Tickets", version: "1" }, servers: [{ url: "http://127.0.0.1:9" }], paths: { "/tickets": { get: { operationId: "listTickets", responses: { "200": { description: "ok" } } } } } };
    const tmp = path.join(home, "gateway.json.tmp");
    writeFileSync(tmp, JSON.stringify({ sources: { tickets: { type: "openapi", spec } } }));
    renameSync(tmp, path.join(home, "gateway.json"));
    for (const s of [a, b]) await until("the gateway source listed", async () => (await sources(s)).includes("tickets"), WITHIN);
  });

  it("people: an invitation made on A is taken on B, the person signs in on A, and the session B gave works on A", async () => {
    const invited = await call(a, "POST", "/api/people", { role: "editor" });
    expect(invited.status, invited.text).toBe(201);
    const joined = await b.api("POST", "/api/people/join", { token: invited.json.token, name: "Lin", password: "a-long-password-1" });
    expect(joined.status, joined.text).toBe(201);
    const set = joined.headers["set-cookie"];
    const cookie = (Array.isArray(set) ? set : [set]).map((c) => String(c).split(";")[0]).join("; ");
    expect(JSON.stringify((await a.api("GET", "/api/people/me", undefined, { cookie })).json.me)).toContain("Lin");
    const signed = await a.api("POST", "/api/auth/signin", { name: "Lin", password: "a-long-password-1" });
    expect(signed.status, signed.text).toBe(200);
  });

  it("counts wrong token and password guesses sent to A and B together, and refuses a right token until the lockout ends", async () => {
    const signIn = (s: TestServer, body: Record<string, string>) => s.api("POST", "/api/auth/signin", body);
    // Three free guesses, alternating instances and kinds; the fourth starts a 3 s lockout.
    expect((await signIn(a, { token: "wrong-1" })).status).toBe(401);
    expect((await signIn(b, { name: "nobody", password: "wrong-password-2" })).status).toBe(401);
    expect((await signIn(a, { token: "wrong-3" })).status).toBe(401);
    expect((await signIn(b, { token: "wrong-4" })).status).toBe(401);
    // On either instance the right token is refused now, before it is compared.
    for (const s of [a, b]) {
      const refused = await signIn(s, { token: TOKEN });
      expect(refused.status, refused.text).toBe(429);
      expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    }
    const signed = await until("the lockout is over", async () => {
      const r = await signIn(a, { token: TOKEN });
      return r.status === 200 ? r : null;
    }, 10_000);
    expect(signed.json).toMatchObject({ signed_in: true });
    // The right token cleared the count on both: three free guesses again.
    expect((await signIn(b, { token: "wrong-5" })).status).toBe(401);
  }, 30_000);

  it("with Redis stopped, a guess is still answered from the instance's memory, and the fall-back is logged once", async () => {
    await redis.stop();
    try {
      for (let i = 0; i < 3; i++) expect((await a.api("POST", "/api/auth/signin", { token: `wrong-away-${i}` })).status).toBe(401);
      const lines = a.output().split("\n").filter((l) => l.includes("the sign-in throttle counts guesses in this instance's memory"));
      expect(lines).toHaveLength(1);
      const health = await call(a, "GET", "/api/health");
      expect(health.json.backend).toMatchObject({ kind: "postgresql+redis", postgresql: { ok: true }, redis: { ok: false } });
    } finally {
      await redis.start();
    }
    await until("Redis answers the health probe again", async () => (await call(a, "GET", "/api/health")).json.backend.redis.ok, 30_000);
  }, 60_000);
});
