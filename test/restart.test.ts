/**
 * Restart guarantees that a SIGKILL at a random moment cannot target precisely: a waiting agent
 * keeps waiting across a restart, and a side-effecting tool call that started but never finished
 * (its `started` journal line is on disk, its result is not) is recorded as interrupted and not
 * run again on its own.
 */
import { appendFileSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeText, fakeToolCalls, startFakeOpenAI, type FakeOpenAI, type FakeRequestBody, type Script } from "./helpers/fake-openai";
import { seedRolesAllowingWrites } from "./helpers/roles";
import { startServer, tempDir, type TestServer } from "./helpers/server";
import { until } from "./helpers/wait";

type Msg = { role: string; content?: string | null; tool_calls?: Array<{ function: { name: string } }>; tool_call_id?: string; metadata?: Record<string, unknown> };

let fake: FakeOpenAI;
let server: TestServer;
let home: string;
let project: string;

const msgs = (b: FakeRequestBody) => (b.messages ?? []) as Msg[];
const isLeader = (b: FakeRequestBody) => JSON.stringify(b.tools ?? []).includes("create_sub_agent");
const me = (b: FakeRequestBody) => /You are: (\S+)/.exec(String(msgs(b)[0]?.content ?? ""))?.[1] ?? "";
const called = (b: FakeRequestBody, name: string) => msgs(b).some((m) => (m.tool_calls ?? []).some((c) => c.function.name === name));
const reports = (b: FakeRequestBody) => msgs(b).filter((m) => m.role === "user" && String(m.content).includes("的任务完成汇报")).length;
const report = (summary: string) => fakeToolCalls([{ name: "report_to_leader", arguments: { summary } }]);

function handler(body: FakeRequestBody): Script {
  if (isLeader(body)) {
    if (!called(body, "create_sub_agent"))
      return fakeToolCalls([
        { name: "create_sub_agent", arguments: { role_id: "full-stack-engineer", task: "Write a file" } },
        { name: "create_sub_agent", arguments: { role_id: "researcher", task: "Ask the person" } },
      ]);
    return fakeText(reports(body) >= 3 ? "SUMMARY restart" : "waiting");
  }
  if (me(body).startsWith("Researcher")) {
    if (!called(body, "ask_master")) return fakeToolCalls([{ name: "ask_master", arguments: { question: "Shall I go on?" } }]);
    return report("went on after the answer");
  }
  const last = msgs(body)[msgs(body).length - 1]!;
  if (last.role === "tool" && String(last.content).includes("interrupted")) return report("saw the interrupted write and did not repeat it");
  return report("first task done");
}


beforeAll(async () => {
  fake = await startFakeOpenAI({ script: handler });
  home = tempDir("astrion-home-");
  // The product roles, allowing writes: this file tests the engine, not approval.
  seedRolesAllowingWrites(home);
  project = tempDir("astrion-project-");
  writeFileSync(
    path.join(home, "models.json"),
    JSON.stringify({ default: "fake", models: { fake: { base_url: fake.url, api_key_env: "FAKE_OPENAI_KEY", model: "fake-model" } } }),
  );
  server = await startServer({ home, env: { FAKE_OPENAI_KEY: "sk-test", ASTRION_LEADER_BATCH_MS: "20" } });
});

afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

describe("restart", () => {
  it("keeps a waiting agent waiting and does not re-run a write that was cut short", async () => {
    const created = await server.api("POST", "/api/conversations", { title: "restart", project_path: project });
    const id = created.json.conversation.id;
    await server.api("POST", `/api/conversations/${id}/messages`, { content: "Go" });
    const list = await until("one agent done, one waiting", async () => {
      const res = (await server.api("GET", `/api/conversations/${id}/agents`)).json;
      const statuses = res.agents.map((a: { metadata: { status: string } }) => a.metadata.status).sort();
      return statuses.join() === "completed,waiting" ? res : null;
    });
    await until("leader idle", async () => (await server.api("GET", `/api/conversations/${id}`)).json.conversation.phase === "WAITING");
    await server.stop();
    const dir = path.join(home, "conversations", id);
    // The files are edited below as a crash would have left them, which holds only if the stop
    // checkpointed the conversation: a step log left behind is replayed over the files at the
    // next start (a clean stop that runs past its deadline leaves it, and says so).
    const log = path.join(dir, "steps.jsonl");
    expect(existsSync(log) ? statSync(log).size : 0, `the stop left a step log behind; the server said:\n${server.output().slice(-2000)}`).toBe(0);

    // The engineer was about to write a file when the server died: its model asked for write_file,
    // the journal says the write started, and no result was saved.
    const engineer = list.agents.find((a: { metadata: { role_id: string } }) => a.metadata.role_id === "full-stack-engineer").metadata.agent_id;
    const agentDir = path.join(dir, "agents", String(engineer));
    const messages = JSON.parse(readFileSync(path.join(agentDir, "messages.json"), "utf8"));
    messages.messages.push({
      role: "assistant",
      content: null,
      message_id: "msg_assistant_crafted",
      tool_calls: [{ id: "call_crafted", type: "function", function: { name: "write_file", arguments: JSON.stringify({ path: "crafted.txt", content: "x" }) } }],
    });
    writeFileSync(path.join(agentDir, "messages.json"), JSON.stringify(messages, null, 2));
    const meta = JSON.parse(readFileSync(path.join(agentDir, "metadata.json"), "utf8"));
    writeFileSync(path.join(agentDir, "metadata.json"), JSON.stringify({ ...meta, status: "running", reported: false, calls_this_task: 1 }, null, 2));
    // The side effect's idempotency key: the agent and the model's tool_call_id.
    appendFileSync(path.join(dir, "actions.jsonl"), `${JSON.stringify({ key: `agent:${engineer}:call_crafted`, status: "started", at: new Date().toISOString() })}\n`);

    server = await startServer({ home, env: { FAKE_OPENAI_KEY: "sk-test", ASTRION_LEADER_BATCH_MS: "20" } });

    const detail = await until("the engineer finished again", async () => {
      const d = (await server.api("GET", `/api/conversations/${id}/agents/${engineer}`)).json;
      return d.agent.metadata.status === "completed" ? d : null;
    });
    const result = detail.messages.find((m: Msg) => m.tool_call_id === "call_crafted");
    expect(JSON.parse(result.content).error).toMatch(/interrupted/);
    expect(result.metadata.interrupted).toBe(true);
    expect(existsSync(path.join(project, "crafted.txt"))).toBe(false);
    const timeline = (await server.api("GET", `/api/conversations/${id}/timeline`)).json.records;
    expect(timeline.some((r: { status: string; action: string }) => r.status === "interrupted" && r.action === "write_file")).toBe(true);

    // The researcher kept waiting through the restart, and its question can still be answered.
    const waiting = (await server.api("GET", `/api/conversations/${id}/agents`)).json;
    const researcher = waiting.agents.find((a: { metadata: { role_id: string } }) => a.metadata.role_id === "researcher");
    expect(researcher.metadata.status).toBe("waiting");
    expect(waiting.questions).toHaveLength(1);
    const answer = await server.api("POST", `/api/conversations/${id}/agents/${researcher.metadata.agent_id}/answers`, {
      question_id: waiting.questions[0].question_id,
      answer: "Yes, go on",
    });
    expect(answer.status).toBe(200);
    await until("summary", async () =>
      (await server.api("GET", `/api/conversations/${id}/messages`)).json.messages.some((m: Msg) => m.role === "assistant" && String(m.content).includes("SUMMARY restart")),
    );
  });
});
