/**
 * Names every JavaScript object inherits (`constructor`, `toString`, `hasOwnProperty`,
 * `__proto__`, …) are not registered names anywhere outside input reaches, tested through the
 * real running server and a scripted fake model: model keys on create, a role's `model:` field,
 * tool calls the leader and a sub-agent make by those names, and shared-context keys.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeText, fakeToolCalls, startFakeOpenAI, type FakeOpenAI, type FakeRequestBody, type Script } from "./helpers/fake-openai";
import { startServer, tempDir, type TestServer } from "./helpers/server";
import { until } from "./helpers/wait";
import { writeFakeModels } from "./helpers/models-file";

const INHERITED = ["constructor", "toString", "hasOwnProperty", "valueOf", "__proto__", "isPrototypeOf", "__defineGetter__"];
/** Tool names the models call; each must be answered "unknown tool" and the run go on. */
const BOGUS_TOOLS = ["constructor", "__proto__", "toString", "hasOwnProperty"];

type Msg = { role: string; content?: string | null; tool_call_id?: string; tool_calls?: Array<{ id: string; function: { name: string } }> };

let fake: FakeOpenAI;
let server: TestServer;
let home: string;
let project: string;

function msgs(body: FakeRequestBody): Msg[] {
  return (body.messages ?? []) as Msg[];
}
function isLeader(body: FakeRequestBody): boolean {
  return JSON.stringify(body.tools ?? []).includes("create_sub_agent");
}
function called(body: FakeRequestBody, name: string): boolean {
  return msgs(body).some((m) => m.role === "assistant" && (m.tool_calls ?? []).some((c) => c.function.name === name));
}
function reported(body: FakeRequestBody): boolean {
  return msgs(body).some((m) => m.role === "user" && String(m.content ?? "").includes("的任务完成汇报\nid: "));
}

function script(body: FakeRequestBody): Script {
  if (isLeader(body)) {
    if (!called(body, "constructor")) return fakeToolCalls(BOGUS_TOOLS.map((name, i) => ({ id: `lead_${i}`, name, arguments: {} })));
    if (!called(body, "create_sub_agent")) return fakeToolCalls([{ name: "create_sub_agent", arguments: { role_id: "proto-role", task: "Try the odd names" } }]);
    return fakeText(reported(body) ? "SUMMARY proto" : "waiting");
  }
  if (!called(body, "constructor")) return fakeToolCalls([...BOGUS_TOOLS, "valueOf"].map((name, i) => ({ id: `agent_${i}`, name, arguments: { path: "." } })));
  if (!called(body, "update_shared_context"))
    return fakeToolCalls([
      { id: "sc_proto", name: "update_shared_context", arguments: { key: "__proto__", value: "polluted", mode: "overwrite", expected_version: 0 } },
      { id: "sc_ctor", name: "update_shared_context", arguments: { key: "constructor", value: "an ordinary key", mode: "overwrite", expected_version: 0 } },
      { id: "sc_tostr", name: "update_shared_context", arguments: { key: "toString", value: "appended", mode: "append" } },
    ]);
  return fakeToolCalls([{ name: "report_to_leader", arguments: { summary: "odd names handled" } }]);
}

beforeAll(async () => {
  fake = await startFakeOpenAI({ script: script });
  home = tempDir("astrion-home-");
  project = tempDir("astrion-project-");
  writeFakeModels(home, fake.url, { timeouts: { idle_ms: 5000, first_response_ms: 10_000 } });
  server = await startServer({ home, env: { FAKE_OPENAI_KEY: "sk-fake-test-key" } });
});

afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

describe("model keys", () => {
  it.each(INHERITED)("a conversation with model_key %j is refused with 400", async (key) => {
    const res = await server.api("POST", "/api/conversations", { title: "x", project_path: project, model_key: key });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe("validation_failed");
    // `__proto__`-style keys already fail the key pattern; the others are "unknown".
    expect(res.json.error.details).toEqual([{ path: "model_key", message: expect.stringMatching(key.startsWith("_") ? /a model key/ : /Unknown model key/) }]);
  });
});

describe("a team meeting the inherited names", () => {
  it("answers tool calls by those names as unknown tools, ignores a role's model: constructor, and keeps shared-context keys own", async () => {
    const role = await server.api("POST", "/api/roles", {
      fields: { id: "proto-role", name: "Proto Role", description: "Uses odd names", model: "constructor" },
      body: "Be odd.",
    });
    expect(role.status).toBe(201);
    const created = await server.api("POST", "/api/conversations", { title: "proto", project_path: project });
    expect(created.status).toBe(201);
    const id = created.json.conversation.id as string;
    expect((await server.api("POST", `/api/conversations/${id}/messages`, { content: "Go" })).status).toBe(202);

    const leader = await until("the leader's summary", async () => {
      const res = await server.api("GET", `/api/conversations/${id}/messages`);
      const list = res.json.messages as Msg[];
      return list.some((m) => m.role === "assistant" && String(m.content ?? "").includes("SUMMARY proto")) ? list : null;
    });
    BOGUS_TOOLS.forEach((name, i) => {
      const result = leader.find((m) => m.role === "tool" && m.tool_call_id === `lead_${i}`);
      expect(JSON.parse(String(result?.content)), name).toEqual({ error: `unknown tool ${name}` });
    });

    const { agents } = (await server.api("GET", `/api/conversations/${id}/agents`)).json;
    expect(agents).toHaveLength(1);
    // The role's `model: constructor` is not a registered model: the agent runs on the conversation's.
    expect(agents[0].metadata).toMatchObject({ role_id: "proto-role", model_key: "fake", status: "completed" });
    const detail = (await server.api("GET", `/api/conversations/${id}/agents/${agents[0].metadata.agent_id}`)).json;
    const agentMessages = detail.messages as Msg[];
    [...BOGUS_TOOLS, "valueOf"].forEach((name, i) => {
      const result = agentMessages.find((m) => m.role === "tool" && m.tool_call_id === `agent_${i}`);
      expect(JSON.parse(String(result?.content)), name).toEqual({ error: `unknown tool ${name}` });
    });
    const protoWrite = agentMessages.find((m) => m.role === "tool" && m.tool_call_id === "sc_proto");
    expect(String(protoWrite?.content)).toMatch(/__proto__ is reserved/);

    const shared = (await server.api("GET", `/api/conversations/${id}/shared-context`)).json.shared_context;
    expect(Object.keys(shared.entries).sort()).toEqual(["constructor", "toString"]);
    expect(shared.entries.constructor).toMatchObject({ key: "constructor", value: "an ordinary key", version: 1 });
    expect(shared.entries.toString).toMatchObject({ key: "toString", value: "appended", version: 1 });
    const onDisk = JSON.parse(readFileSync(path.join(home, "conversations", id, "shared_context.json"), "utf8"));
    expect(Object.keys(onDisk.entries).sort()).toEqual(["constructor", "toString"]);
  });

  it("a person cannot write the shared-context key __proto__, but can write constructor", async () => {
    const created = await server.api("POST", "/api/conversations", { title: "person keys", project_path: project, model_key: "offline" });
    const id = created.json.conversation.id as string;
    const proto = await server.api("PUT", `/api/conversations/${id}/shared-context`, { key: "__proto__", value: "x", mode: "overwrite", expected_version: 0 });
    expect(proto.status).toBe(400);
    expect(proto.json.error.code).toBe("validation_failed");
    for (const key of ["constructor", "hasOwnProperty"]) {
      const ok = await server.api("PUT", `/api/conversations/${id}/shared-context`, { key, value: "fine", mode: "overwrite", expected_version: 0 });
      expect(ok.status, key).toBe(200);
    }
    const shared = (await server.api("GET", `/api/conversations/${id}/shared-context`)).json.shared_context;
    expect(Object.keys(shared.entries).sort()).toEqual(["constructor", "hasOwnProperty"]);
  });
});
