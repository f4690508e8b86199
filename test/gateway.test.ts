/**
 * The protocol gateway through the real built server: an OpenAPI 3 spec (YAML, in the data
 * folder) of a small HTTP server this test starts, whose names and formats differ from the
 * internal ones (`orderNo` ↔ `order_id`, `amt_cents` ↔ `amount_yuan`, `created` as
 * `20260131T120000+0800` ↔ `created_at` ISO, `paid` in epoch ms ↔ `paid_at` ISO). The fake model
 * calls the tools; the test checks what the API received (its dialect) and what the model read
 * back (the internal one), a non-2xx error, the deadline, a redirect not followed, a role without
 * the grant refused, a broken gateway.json reported, and the source's secret header nowhere.
 */
import http from "node:http";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeText, fakeToolCalls, startFakeOpenAI, type FakeOpenAI, type FakeRequestBody, type FakeToolCall, type Script } from "./helpers/fake-openai";
import { writeFakeModels } from "./helpers/models-file";
import { killServer, startServer, tempDir, type TestServer } from "./helpers/server";
import { openSse, type SseConnection } from "./helpers/sse";
import { until } from "./helpers/wait";

const SECRET = "sk-gw-SECRET-7f3a91c2";
const SERVER_ENV = { FAKE_OPENAI_KEY: "sk-gw", ASTRION_LEADER_BATCH_MS: "0", SHOP_TOKEN: SECRET };

/** SIGKILL of the server's whole process group, once all of it is gone (test/helpers/server.ts). */
const kill = killServer;

const SPEC = `openapi: 3.0.3
info: { title: shop, version: "1" }
paths:
  /orders/{orderNo}:
    get:
      operationId: getOrder
      summary: Read one order
      parameters:
        - { $ref: "#/components/parameters/OrderNo" }
  /orders:
    post:
      operationId: createOrder
      summary: Create an order
      requestBody:
        required: true
        content:
          application/json:
            schema: { $ref: "#/components/schemas/NewOrder" }
  /slow:
    get: { operationId: slow }
  /moved:
    get: { operationId: moved }
  /hold:
    post:
      operationId: holdOrder
      requestBody:
        content:
          application/json:
            schema: { type: object, properties: { orderNo: { type: string } } }
components:
  parameters:
    OrderNo: { name: orderNo, in: path, required: true, schema: { type: string } }
  schemas:
    NewOrder:
      type: object
      required: [amt_cents, created]
      properties:
        amt_cents: { type: integer }
        created: { type: string, pattern: "^\\\\d{8}T\\\\d{6}[+-]\\\\d{4}$" }
        paid: { type: integer, format: int64 }
`;

const GATEWAY = (apiPort: number) => ({
  sources: {
    shop: {
      type: "openapi",
      spec: "specs/shop.yaml",
      base_url: `http://127.0.0.1:${apiPort}/api`,
      headers: { Authorization: "Bearer ${SHOP_TOKEN}" },
      operations: ["getOrder", "createOrder", "GET /slow", "moved"],
      timeout_ms: 700,
      mappings: {
        fields: [
          { internal: "order_id", api: "orderNo" },
          { internal: "amount_yuan", api: "amt_cents" },
          { internal: "created_at", api: "created" },
          { internal: "paid_at", api: "paid" },
        ],
        units: [{ field: "amount_yuan", factor: 100, unit: "yuan" }],
        times: [
          { field: "created_at", api: { pattern: "YYYYMMDD[T]HHmmssZ", timezone: "+08:00" } },
          { field: "paid_at", api: "epoch_ms" },
        ],
      },
    },
    // The same API, one write the test holds open while it kills the server.
    hold: { type: "openapi", spec: "specs/shop.yaml", base_url: `http://127.0.0.1:${apiPort}/api`, operations: ["holdOrder"], timeout_ms: 120_000, mappings: { fields: [{ internal: "order_id", api: "orderNo" }] } },
  },
});

/** Every role but `asker` allows its gateway calls (the approval policy asks before a write, by default). */
const ALLOW_GW = '\ntool_policy: { "gw__*": allow }';
const ROLES: Record<string, string> = {
  "shop-clerk": `gateway: [shop]${ALLOW_GW}`,
  "one-tool": `tools: [gw__shop__getOrder, Read]${ALLOW_GW}`,
  "no-grant": "permissions: [read]",
  holder: `gateway: [hold]${ALLOW_GW}`,
  asker: "gateway: [shop]",
};
/** The roles the leader creates for the first conversation ("Go"); "Hold" creates the holder alone. */
const TEAM = ["shop-clerk", "one-tool", "no-grant"];

type Received = { method: string; url: string; headers: http.IncomingHttpHeaders; body: string };
type Msg = { role: string; content?: unknown; tool_call_id?: string; tool_calls?: Array<{ id: string; function: { name: string } }> };

let api: http.Server;
let other: http.Server;
const received: Received[] = [];
const otherHits: string[] = [];
let fake: FakeOpenAI;
let server: TestServer;
let project: string;
let sse: SseConnection;

const roleOf = (body: FakeRequestBody): string | undefined => {
  const system = String(((body.messages ?? []) as Msg[]).find((m) => m.role === "system")?.content ?? "");
  return Object.keys(ROLES).find((r) => system.includes(`role ${r})`));
};
const toolNames = (body: FakeRequestBody): string[] => ((body.tools ?? []) as Array<{ function: { name: string } }>).map((t) => t.function.name);

const CLERK_CALLS: FakeToolCall[] = [
  { name: "gw__shop__getOrder", arguments: { order_id: "A-1" } },
  { name: "gw__shop__createOrder", arguments: { amount_yuan: 12.34, created_at: "2026-01-31T04:00:00Z", paid_at: "2026-01-31T12:00:00+08:00" } },
  { name: "gw__shop__getOrder", arguments: { order_id: "missing" } },
  { name: "gw__shop__slow", arguments: {} },
  { name: "gw__shop__moved", arguments: {} },
  { name: "gw__shop__createOrder", arguments: { amount_yuan: 1, created_at: "31/01/2026" } },
  { name: "gw__shop__getOrder", arguments: { orderNo: "A-1" } },
];

function handler(body: FakeRequestBody): Script {
  const messages = (body.messages ?? []) as Msg[];
  if (toolNames(body).includes("create_sub_agent")) {
    const created = messages.some((m) => m.tool_calls?.some((c) => c.function.name === "create_sub_agent"));
    const hold = messages.some((m) => m.role === "user" && String(m.content).includes("Hold"));
    const ask = messages.some((m) => m.role === "user" && String(m.content).includes("Ask"));
    return created ? fakeText("waiting") : fakeToolCalls((hold ? ["holder"] : ask ? ["asker"] : TEAM).map((role_id) => ({ name: "create_sub_agent", arguments: { role_id, task: "Look up order A-1." } })));
  }
  const role = roleOf(body);
  if (messages.some((m) => m.role === "tool")) return fakeToolCalls([{ name: "report_to_leader", arguments: { summary: "done" } }]);
  if (role === "shop-clerk") return fakeToolCalls(CLERK_CALLS);
  if (role === "asker")
    return fakeToolCalls([
      { id: "call_asker_read", name: "gw__shop__getOrder", arguments: { order_id: "Q-9" } },
      { id: "call_asker_create", name: "gw__shop__createOrder", arguments: { amount_yuan: 5, created_at: "2026-01-31T04:00:00Z" } },
    ]);
  if (role === "holder") return fakeToolCalls([{ name: "gw__hold__holdOrder", arguments: { order_id: "H-1" } }]);
  if (role === "one-tool") return fakeToolCalls([{ name: "gw__shop__getOrder", arguments: { order_id: "B-2" } }, { name: "gw__shop__createOrder", arguments: { amount_yuan: 1, created_at: "2026-01-31T04:00:00Z" } }]);
  return fakeToolCalls([{ name: "gw__shop__getOrder", arguments: { order_id: "C-3" } }]);
}

function listen(s: http.Server): Promise<number> {
  return new Promise((resolve) => s.listen(0, "127.0.0.1", () => resolve((s.address() as { port: number }).port)));
}

beforeAll(async () => {
  other = http.createServer((req, res) => {
    otherHits.push(req.url ?? "");
    res.end("other host");
  });
  const otherPort = await listen(other);
  api = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      received.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      const send = (status: number, value: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(value));
      };
      const url = req.url ?? "";
      if (url === "/api/hold") return; // never answered: the server is killed meanwhile
      if (url === "/api/slow") return void setTimeout(() => send(200, { late: true }), 30_000).unref();
      if (url === "/api/moved") {
        res.writeHead(302, { location: `http://127.0.0.1:${otherPort}/steal` });
        return void res.end();
      }
      if (url === "/api/orders/missing") return send(404, { orderNo: "missing", message: "no such order" });
      if (req.method === "GET" && url.startsWith("/api/orders/")) {
        // The API echoes the token back: the gateway must not let it reach the model.
        return send(200, { orderNo: decodeURIComponent(url.slice("/api/orders/".length)), amt_cents: 1999, created: "20260131T120000+0800", paid: 1769832000000, note: `seen ${req.headers.authorization}` });
      }
      if (req.method === "POST" && url === "/api/orders") {
        const b = JSON.parse(body) as Record<string, unknown>;
        return send(201, { orderNo: "N-1", ...b });
      }
      send(500, { message: "unexpected" });
    });
  });
  const apiPort = await listen(api);
  fake = await startFakeOpenAI({ script: handler });
  const home = tempDir("astrion-home-");
  writeFakeModels(home, fake.url);
  mkdirSync(path.join(home, "agents"), { recursive: true });
  for (const [id, extra] of Object.entries(ROLES)) writeFileSync(path.join(home, "agents", `${id}.md`), `---\nname: ${id}\ndescription: A role with ${id}\n${extra}\n---\nYou work.\n`);
  mkdirSync(path.join(home, "specs"));
  writeFileSync(path.join(home, "specs", "shop.yaml"), SPEC);
  writeFileSync(path.join(home, "gateway.json"), JSON.stringify(GATEWAY(apiPort), null, 2));
  project = tempDir("astrion-project-");
  server = await startServer({ home, env: SERVER_ENV });
});

afterAll(async () => {
  sse?.close();
  await server?.stop();
  await fake?.close();
  api?.closeAllConnections();
  api?.close();
  other?.close();
});

describe("the protocol gateway", () => {
  let convId: string;
  const toolResults = new Map<string, string>();

  it("offers each granted operation as a tool in the internal dialect, and maps a call both ways", async () => {
    const gw = (await server.api("GET", "/api/gateway")).json;
    expect(gw.error).toBeNull();
    // Only the operations listed in "operations" are offered.
    expect(gw.sources[0].tools.map((t: { name: string; effect: string }) => `${t.name}:${t.effect}`)).toEqual(["gw__shop__getOrder:read", "gw__shop__createOrder:write", "gw__shop__slow:read", "gw__shop__moved:read"]);

    const created = await server.api("POST", "/api/conversations", { title: "gateway", project_path: project });
    convId = created.json.conversation.id as string;
    sse = await openSse(server, `/api/conversations/${convId}/events`);
    expect((await server.api("POST", `/api/conversations/${convId}/messages`, { content: "Go" })).status).toBe(202);
    await until(
      "every agent reported",
      async () => {
        const list = (await server.api("GET", `/api/conversations/${convId}/agents`)).json.agents as Array<{ metadata: { status: string } }>;
        return list.length === TEAM.length && list.every((a) => a.metadata.status !== "running") ? true : null;
      },
      60_000,
    );

    // What each role was offered.
    const offered: Record<string, string[]> = {};
    const clerkTools: Record<string, { parameters: unknown }> = {};
    for (const r of fake.requests) {
      const role = r.body && roleOf(r.body);
      if (!role || !r.body) continue;
      offered[role] = toolNames(r.body);
      if (role === "shop-clerk") for (const t of (r.body.tools ?? []) as Array<{ function: { name: string; parameters: unknown } }>) clerkTools[t.function.name] = t.function;
      for (const m of (r.body.messages ?? []) as Msg[]) if (m.role === "tool" && m.tool_call_id) toolResults.set(`${role}:${m.tool_call_id}`, String(m.content));
    }
    expect(offered["shop-clerk"]).toEqual(expect.arrayContaining(["gw__shop__getOrder", "gw__shop__createOrder", "gw__shop__slow", "gw__shop__moved"]));
    expect(offered["one-tool"]!.filter((n) => n.startsWith("gw__"))).toEqual(["gw__shop__getOrder"]);
    expect(offered["no-grant"]!.filter((n) => n.startsWith("gw__"))).toEqual([]);
    // The model sees the internal dialect only.
    const schemas = JSON.stringify(clerkTools);
    expect(schemas).toContain('"order_id"');
    expect(schemas).toContain('"amount_yuan"');
    expect(schemas).not.toMatch(/orderNo|amt_cents|"created"|"paid"/);
    expect(clerkTools["gw__shop__createOrder"]!.parameters).toMatchObject({ required: ["amount_yuan", "created_at"], properties: { created_at: { type: "string", format: "date-time" } } });

    // What the API received: its own dialect, and the token from the environment.
    const getA1 = received.find((r) => r.method === "GET" && r.url === "/api/orders/A-1")!;
    expect(getA1.headers.authorization).toBe(`Bearer ${SECRET}`);
    const post = received.filter((r) => r.method === "POST" && r.url === "/api/orders");
    expect(post).toHaveLength(1);
    expect(JSON.parse(post[0]!.body)).toEqual({ amt_cents: 1234, created: "20260131T120000+0800", paid: 1769832000000 });
    expect(post[0]!.headers["content-type"]).toBe("application/json");
    expect(received.some((r) => r.url === "/api/orders/B-2")).toBe(true);
  });

  it("gives the model the answers in the internal dialect, and every failure as a readable tool error", () => {
    const clerk = (i: number) => {
      const found = [...toolResults.entries()].filter(([k]) => k.startsWith("shop-clerk:"));
      return found[i]?.[1] ?? "";
    };
    const get = JSON.parse(clerk(0)) as { status: number; body: Record<string, unknown> };
    expect(get).toEqual({ status: 200, body: { order_id: "A-1", amount_yuan: 19.99, created_at: "2026-01-31T04:00:00Z", paid_at: "2026-01-31T04:00:00Z", note: "seen [redacted]" } });
    expect(JSON.parse(clerk(1))).toEqual({ status: 201, body: { order_id: "N-1", amount_yuan: 12.34, created_at: "2026-01-31T04:00:00Z", paid_at: "2026-01-31T04:00:00Z" } });
    expect(JSON.parse(clerk(2)).error).toMatch(/^the API answered HTTP 404 Not Found: \{"order_id":"missing","message":"no such order"\}/);
    expect(JSON.parse(clerk(3)).error).toMatch(/the API did not answer within 700 ms \(deadline\)/);
    expect(JSON.parse(clerk(4)).error).toMatch(/HTTP 302, a redirect to http:\/\/127\.0\.0\.1:\d+; the gateway does not follow redirects/);
    expect(otherHits).toEqual([]);
    expect(JSON.parse(clerk(5)).error).toMatch(/created_at: "31\/01\/2026" is not an ISO 8601 date-time/);
    // The API's own name is not an argument: the model must speak the internal dialect.
    expect(JSON.parse(clerk(6)).error).toMatch(/invalid arguments/);
    // The bad time and the bad argument never reached the API.
    expect(received.filter((r) => r.method === "POST")).toHaveLength(1);
    const oneTool = [...toolResults.entries()].filter(([k]) => k.startsWith("one-tool:")).map(([, v]) => v);
    expect(oneTool[1]).toMatch(/permission denied: your role's gateway grants do not include gw__shop__createOrder/);
    const noGrant = [...toolResults.entries()].filter(([k]) => k.startsWith("no-grant:")).map(([, v]) => v);
    expect(noGrant[0]).toMatch(/permission denied: your role's gateway grants do not include gw__shop__getOrder/);
    expect(received.some((r) => r.url === "/api/orders/C-3")).toBe(false);
  });

  it("audits every call on the timeline with its effect, and journals the write", async () => {
    const records = (await server.api("GET", `/api/conversations/${convId}/timeline`)).json.records as Array<{ action: string; status: string; resource: string | null; envelope: { payload: Record<string, unknown> } }>;
    const create = records.find((r) => r.action === "gw__shop__createOrder" && r.status === "ok")!;
    expect(create.resource).toBe("gateway:shop/createOrder");
    expect(create.envelope.payload).toMatchObject({ method: "POST", path: "/orders", effect: "write", http_status: 201 });
    expect(records.find((r) => r.action === "gw__shop__getOrder" && r.status === "failed")!.envelope.payload).toMatchObject({ effect: "read", http_status: 404 });
    expect(records.some((r) => r.action === "gw__shop__createOrder" && r.status === "refused")).toBe(true);
    const detail = (await server.api("GET", `/api/gateway`)).json;
    expect(detail.sources[0].last_call_error.tool).toMatch(/^gw__shop__/);
  });

  it("never lets the secret header value out: API answers, timeline, SSE, messages, server output", async () => {
    const texts = [
      (await server.api("GET", `/api/conversations/${convId}/timeline`)).text,
      (await server.api("GET", `/api/conversations/${convId}/agents`)).text,
      (await server.api("GET", "/api/gateway")).text,
      (await server.api("GET", "/api/health")).text,
      sse.raw(),
      server.output(),
      JSON.stringify(fake.requests.map((r) => r.body)),
    ];
    const agents = (await server.api("GET", `/api/conversations/${convId}/agents`)).json.agents as Array<{ metadata: { agent_id: number } }>;
    for (const a of agents) texts.push((await server.api("GET", `/api/conversations/${convId}/agents/${a.metadata.agent_id}`)).text);
    for (const t of texts) expect(t).not.toContain(SECRET);
    // The test would notice a leak: the API did get it.
    expect(received.some((r) => String(r.headers.authorization).includes(SECRET))).toBe(true);
  });

  it("reports a broken gateway.json in /api/health and /api/gateway without crashing, and recovers when it is fixed", async () => {
    const file = path.join(server.home, "gateway.json");
    const good = JSON.stringify(GATEWAY((api.address() as { port: number }).port));
    writeFileSync(file, '{ "sources": { "shop": { "type": "openapi", "spec": ');
    const gw = await server.api("GET", "/api/gateway");
    expect(gw.status).toBe(200);
    expect(gw.json.error).toMatch(/gateway.json is not valid JSON/);
    const health = (await server.api("GET", "/api/health")).json;
    expect(health.problems).toEqual(expect.arrayContaining([expect.objectContaining({ file: "gateway.json", message: expect.stringMatching(/not valid JSON/) })]));
    writeFileSync(file, JSON.stringify({ sources: { shop: { type: "openapi", spec: "specs/nope.yaml" } } }));
    expect((await server.api("GET", "/api/gateway")).json.sources[0].error).toMatch(/spec file specs\/nope.yaml not found/);
    writeFileSync(file, good);
    const fixed = (await server.api("GET", "/api/gateway")).json;
    expect(fixed.error).toBeNull();
    expect(fixed.sources[0].tools).toHaveLength(4);
    expect(fixed.sources[1].tools.map((t: { name: string; effect: string }) => `${t.name}:${t.effect}`)).toEqual(["gw__hold__holdOrder:write"]);
    expect((await server.api("GET", "/api/health")).json.problems.filter((p: { file: string }) => p.file === "gateway.json")).toEqual([]);
  });

  it("asks a person before a gateway write (the default policy), runs the read meanwhile, and a denial reaches the model with its reason", async () => {
    const created = await server.api("POST", "/api/conversations", { title: "gateway ask", project_path: project });
    const id = created.json.conversation.id as string;
    const postsBefore = received.filter((r) => r.method === "POST").length;
    expect((await server.api("POST", `/api/conversations/${id}/messages`, { content: "Ask" })).status).toBe(202);
    const waiting = await until("the gateway write waits for approval", async () => {
      const [agent] = (await server.api("GET", `/api/conversations/${id}/agents`)).json.agents as Array<{ metadata: { agent_id: number; status: string; pending_tool_calls?: Array<Record<string, unknown>> } }>;
      const entry = agent?.metadata.pending_tool_calls?.find((p) => p.kind === "approval");
      return agent && entry ? { agentId: agent.metadata.agent_id, status: agent.metadata.status, entry } : null;
    }, 30_000);
    expect(waiting.status).toBe("waiting");
    expect(waiting.entry).toMatchObject({ tool_call_id: "call_asker_create", tool_name: "gw__shop__createOrder", effect: "write" });
    expect(received.some((r) => r.method === "GET" && r.url === "/api/orders/Q-9")).toBe(true);
    const denied = await server.api("POST", `/api/conversations/${id}/agents/${waiting.agentId}/approvals`, { tool_call_id: "call_asker_create", decision: "deny", reason: "no orders today" });
    expect(denied.status).toBe(200);
    const result = await until("the denial reached the model", async () => {
      for (const r of fake.requests) for (const m of ((r.body?.messages ?? []) as Msg[])) if (m.role === "tool" && m.tool_call_id === "call_asker_create") return String(m.content);
      return null;
    }, 30_000);
    expect(result).toContain("no orders today");
    expect(received.filter((r) => r.method === "POST").length).toBe(postsBefore);
  });

  it("never sends a write again after a crash: one cut short by SIGKILL is reported as interrupted", async () => {
    const created = await server.api("POST", "/api/conversations", { title: "hold", project_path: project });
    const id = created.json.conversation.id as string;
    expect((await server.api("POST", `/api/conversations/${id}/messages`, { content: "Hold" })).status).toBe(202);
    await until("the API holds the write", () => received.some((r) => r.method === "POST" && r.url === "/api/hold"), 60_000);
    expect(JSON.parse(received.find((r) => r.url === "/api/hold")!.body)).toEqual({ orderNo: "H-1" });
    await kill(server);
    server = await startServer({ home: server.home, env: SERVER_ENV });
    const detail = await until(
      "the holder reported after the restart",
      async () => {
        const agents = (await server.api("GET", `/api/conversations/${id}/agents`)).json.agents as Array<{ metadata: { agent_id: number; status: string } }>;
        if (agents.length !== 1 || agents[0]!.metadata.status === "running") return null;
        const d = (await server.api("GET", `/api/conversations/${id}/agents/${agents[0]!.metadata.agent_id}`)).json;
        return (d.messages as Msg[]).some((m) => m.tool_calls?.some((c) => c.function.name === "report_to_leader")) ? d : null;
      },
      90_000,
    );
    const results = (detail.messages as Msg[]).filter((m) => m.role === "tool").map((m) => String(m.content));
    expect(results[0]).toMatch(/interrupted: the server stopped while gw__hold__holdOrder was running; it was not run again/);
    expect(received.filter((r) => r.method === "POST" && r.url === "/api/hold")).toHaveLength(1);
  });
});
