/**
 * Scoped tokens through the real server: a token is issued when an agent is created or its run
 * resumes, checked on every tool call, and never issued again on a call. Narrowing a role's
 * permissions (through the API or by editing the file on disk) takes effect at its agents' very
 * next call; archiving revokes; unarchiving resumes the run and issues the tokens again.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeText, fakeToolCalls, startFakeOpenAI, type FakeOpenAI, type FakeRequestBody, type Script } from "./helpers/fake-openai";
import { startServer, tempDir, type TestServer } from "./helpers/server";
import { until } from "./helpers/wait";

type Msg = { role: string; content?: string | null; tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>; tool_call_id?: string };

let fake: FakeOpenAI;
let server: TestServer;
let home: string;
let project: string;

const msgs = (b: FakeRequestBody) => (b.messages ?? []) as Msg[];
const isLeader = (b: FakeRequestBody) => JSON.stringify(b.tools ?? []).includes("create_sub_agent");
const scenario = (b: FakeRequestBody) => /Conversation: (\S+)/.exec(String(msgs(b)[0]?.content ?? ""))?.[1] ?? "unknown";
const calls = (b: FakeRequestBody, name: string) => msgs(b).flatMap((m) => m.tool_calls ?? []).filter((c) => c.function.name === name).length;
const resultOf = (b: FakeRequestBody, id: string) => String(msgs(b).find((m) => m.role === "tool" && m.tool_call_id === id)?.content ?? "");
const reported = (b: FakeRequestBody) => msgs(b).some((m) => m.role === "user" && String(m.content).includes("的任务完成汇报"));
const write = (id: string, file: string) => ({ id, name: "write_file", arguments: { path: file, content: id } });

/** Each scenario's sub-agent: write, ask (and wait), write again, report what the second write answered. */
function agent(s: string, body: FakeRequestBody): Script {
  if (s === "archive") {
    if (!calls(body, "ask_master")) return fakeToolCalls([{ id: `${s}_ask`, name: "ask_master", arguments: { question: "May I go on?" } }]);
    if (!calls(body, "write_file")) return fakeToolCalls([write(`${s}_after`, `${s}-after.md`)]);
    return fakeToolCalls([{ name: "report_to_leader", arguments: { summary: `after: ${resultOf(body, `${s}_after`)}` } }]);
  }
  if (!calls(body, "write_file")) return fakeToolCalls([write(`${s}_before`, `${s}-before.md`)]);
  if (!calls(body, "ask_master")) return fakeToolCalls([{ id: `${s}_ask`, name: "ask_master", arguments: { question: "May I go on?" } }]);
  if (calls(body, "write_file") === 1) return fakeToolCalls([write(`${s}_after`, `${s}-after.md`)]);
  return fakeToolCalls([{ name: "report_to_leader", arguments: { summary: `after: ${resultOf(body, `${s}_after`)}` } }]);
}

function handler(body: FakeRequestBody): Script {
  const s = scenario(body);
  if (!isLeader(body)) return agent(s, body);
  if (!calls(body, "create_sub_agent")) return fakeToolCalls([{ name: "create_sub_agent", arguments: { role_id: `writer-${s}`, task: "Write two files" } }]);
  return fakeText(reported(body) ? `SUMMARY ${s}` : "waiting");
}

// Writes are allowed without asking: this file tests tokens, not approval.
const roleText = (id: string, permissions: string) => `---\nid: ${id}\nname: ${id}\ndescription: Writes files for tests\ncapabilities: [writing]\npermissions: [${permissions}]\ntool_policy: { write_file: allow }\n---\nYou write files.\n`;

async function start(s: string): Promise<string> {
  const res = await server.api("POST", "/api/conversations", { title: s, project_path: project });
  expect(res.status).toBe(201);
  const id = res.json.conversation.id as string;
  expect((await server.api("POST", `/api/conversations/${id}/messages`, { content: "Go" })).status).toBe(202);
  return id;
}
const question = (id: string) => until("a question", async () => (await server.api("GET", `/api/conversations/${id}/agents`)).json.questions[0] as { agent_id: number; question_id: string } | undefined);
async function answer(id: string, q: { agent_id: number; question_id: string }) {
  expect((await server.api("POST", `/api/conversations/${id}/agents/${q.agent_id}/answers`, { question_id: q.question_id, answer: "yes" })).status).toBe(200);
}
async function summary(id: string, s: string): Promise<Msg[]> {
  return until(`SUMMARY ${s}`, async () => {
    const m = (await server.api("GET", `/api/conversations/${id}/messages`)).json.messages as Msg[];
    return m.some((x) => x.role === "assistant" && String(x.content).includes(`SUMMARY ${s}`)) ? m : null;
  }, 60_000);
}
async function timeline(id: string) {
  return (await server.api("GET", `/api/conversations/${id}/timeline`)).json.records as Array<{ action: string; status: string; envelope: { payload: Record<string, unknown> } }>;
}
const reportOf = (m: Msg[]) => String(m.find((x) => String(x.content).includes("after:"))?.content ?? "");

beforeAll(async () => {
  fake = await startFakeOpenAI({ script: handler });
  home = tempDir("astrion-home-");
  project = tempDir("astrion-project-");
  writeFileSync(path.join(home, "models.json"), JSON.stringify({ default: "fake", models: { fake: { base_url: fake.url, api_key_env: "FAKE_OPENAI_KEY", model: "fake-model" } } }));
  mkdirSync(path.join(home, "agents"), { recursive: true });
  for (const s of ["api", "disk", "archive"]) writeFileSync(path.join(home, "agents", `writer-${s}.md`), roleText(`writer-${s}`, "read, write"));
  server = await startServer({ home, env: { FAKE_OPENAI_KEY: "sk-tokens", ASTRION_LEADER_BATCH_MS: "0" } });
});

afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

describe("scoped tokens", () => {
  it("a role narrowed through the API takes effect at its agent's very next tool call", async () => {
    const id = await start("api");
    const q = await question(id);
    expect(existsSync(path.join(project, "api-before.md"))).toBe(true);
    const put = await server.api("PUT", "/api/roles/writer-api", { raw: roleText("writer-api", "read") });
    expect(put.status).toBe(200);
    await answer(id, q);
    const m = await summary(id, "api");
    expect(existsSync(path.join(project, "api-after.md"))).toBe(false);
    expect(reportOf(m)).toContain("project:write");
    const records = await timeline(id);
    expect(records.some((r) => r.action === "token_narrowed")).toBe(true);
    expect(records.some((r) => r.action === "write_file" && r.status === "refused" && r.envelope.payload.code === "missing_scope")).toBe(true);
  });

  it("a role file edited on disk narrows its agents' tokens too", async () => {
    const id = await start("disk");
    const q = await question(id);
    writeFileSync(path.join(home, "agents", "writer-disk.md"), roleText("writer-disk", "read"));
    // The role folder is watched; the library sees the edit before the agent's next call.
    await until("the edit is seen", async () => (await server.api("GET", "/api/roles/writer-disk")).json.role.fields?.permissions?.join() === "read");
    await answer(id, q);
    const m = await summary(id, "disk");
    expect(existsSync(path.join(project, "disk-after.md"))).toBe(false);
    expect(reportOf(m)).toContain("permission denied");
  });

  it("archiving revokes the tokens; unarchiving resumes the run and issues them again", async () => {
    const id = await start("archive");
    const q = await question(id);
    expect((await server.api("PATCH", `/api/conversations/${id}`, { status: "archived" })).status).toBe(200);
    expect((await server.api("POST", `/api/conversations/${id}/agents/${q.agent_id}/answers`, { question_id: q.question_id, answer: "yes" })).status).toBeGreaterThanOrEqual(400);
    expect((await server.api("PATCH", `/api/conversations/${id}`, { status: "active" })).status).toBe(200);
    await answer(id, q);
    const m = await summary(id, "archive");
    expect(existsSync(path.join(project, "archive-after.md"))).toBe(true);
    expect(reportOf(m)).not.toContain("permission denied");
  });
});
