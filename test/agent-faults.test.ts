/**
 * No agent loop dies silently. Against the real built server, with faults injected at every tool
 * of the leader and of a sub-agent (ASTRION_FAILPOINTS, markers in the tool arguments) and real
 * file-system faults (a 300-character file name): every fault becomes a tool error the model
 * reads and the loop goes on. A fault that escapes a loop ends the agent in a visible failed
 * state, with a timeline event and a report to the leader; a leader that fails is settled too.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeText, fakeToolCalls, startFakeOpenAI, type FakeOpenAI, type FakeRequestBody, type FakeToolCall, type Script } from "./helpers/fake-openai";
import { seedRolesAllowingWrites } from "./helpers/roles";
import { startServer, tempDir, type TestServer } from "./helpers/server";
import { until } from "./helpers/wait";

type Msg = { role: string; content?: string | null; tool_call_id?: string; tool_calls?: Array<{ id: string; function: { name: string } }> };
type Record_ = { action: string; status: string; from_agent?: string; envelope: { payload: Record<string, unknown> } };

const FAULT = "__fault__";

/** Every sub-agent tool, each with the fault marker in its arguments. */
const AGENT_FAULTS: FakeToolCall[] = [
  { id: "f_list", name: "list_files", arguments: { path: FAULT } },
  { id: "f_read", name: "read_file", arguments: { path: FAULT } },
  { id: "f_search", name: "search_files", arguments: { query: FAULT } },
  { id: "f_write", name: "write_file", arguments: { path: `${FAULT}.txt`, content: "x" } },
  { id: "f_send", name: "send_message", arguments: { agent_id: 99, content: FAULT } },
  { id: "f_ask", name: "ask_master", arguments: { question: FAULT } },
  { id: "f_rsc", name: "read_shared_context", arguments: { note: FAULT } },
  { id: "f_usc", name: "update_shared_context", arguments: { key: FAULT, value: "v", mode: "append" } },
  { id: "f_report", name: "report_to_leader", arguments: { summary: FAULT } },
];

/** Every leader tool, each with the fault marker in its arguments. */
const LEADER_FAULTS: FakeToolCall[] = [
  { id: "lf_create", name: "create_sub_agent", arguments: { role_id: "full-stack-engineer", task: FAULT } },
  { id: "lf_send", name: "send_message_to_agent", arguments: { agent_id: 1, content: FAULT } },
  { id: "lf_answer", name: "answer_question", arguments: { question_id: FAULT, answer: "x" } },
  { id: "lf_term", name: "terminate_agent", arguments: { agent_id: 1, reason: FAULT } },
  { id: "lf_bcast", name: "broadcast", arguments: { content: FAULT } },
  { id: "lf_list", name: "list_agents", arguments: { note: FAULT } },
  { id: "lf_rsc", name: "read_shared_context", arguments: { note: FAULT } },
  { id: "lf_usc", name: "update_shared_context", arguments: { key: FAULT, value: "v", mode: "append" } },
];

/** Names longer than any file system allows: once an uncaught ENAMETOOLONG that left the agent "running" forever. */
const LONG = "n".repeat(300);
const REAL_FAULTS: FakeToolCall[] = [
  { id: "r_read", name: "read_file", arguments: { path: LONG } },
  { id: "r_write", name: "write_file", arguments: { path: `${LONG}.txt`, content: "x" } },
  { id: "r_list", name: "list_files", arguments: { path: LONG } },
  { id: "r_search", name: "search_files", arguments: { query: "x", path: `${LONG}/src` } },
];

let fake: FakeOpenAI;
let server: TestServer;
let project: string;

function msgs(body: FakeRequestBody): Msg[] {
  return (body.messages ?? []) as Msg[];
}
function isLeader(body: FakeRequestBody): boolean {
  return JSON.stringify(body.tools ?? []).includes("create_sub_agent");
}
function scenario(body: FakeRequestBody): string {
  return /Conversation: (\S+)/.exec(String(msgs(body)[0]?.content ?? ""))?.[1] ?? "unknown";
}
function called(body: FakeRequestBody, id: string): boolean {
  return msgs(body).some((m) => (m.tool_calls ?? []).some((c) => c.id === id));
}
function reports(body: FakeRequestBody): number {
  return msgs(body).filter((m) => m.role === "user" && String(m.content ?? "").includes("的任务完成汇报\nid: ")).length;
}

function leaderScript(s: string, body: FakeRequestBody): Script {
  switch (s) {
    case "tools":
      if (!called(body, "lf_create")) return fakeToolCalls(LEADER_FAULTS);
      if (!called(body, "create_ok")) return fakeToolCalls([{ id: "create_ok", name: "create_sub_agent", arguments: { role_id: "full-stack-engineer", task: "Use every tool" } }]);
      return fakeText(reports(body) >= 1 ? "SUMMARY tools" : "waiting");
    case "crash":
      if (!called(body, "create_crash")) return fakeToolCalls([{ id: "create_crash", name: "create_sub_agent", arguments: { role_id: "researcher", task: "Crash on your first step" } }]);
      return fakeText(reports(body) >= 2 ? "SUMMARY crash twice" : reports(body) >= 1 ? "SUMMARY crash" : "waiting");
    case "leader-crash":
      return msgs(body).some((m) => m.role === "user" && String(m.content).includes("again")) ? fakeText("SUMMARY leader back") : fakeText("I will __leadercrash__ now");
    default:
      return fakeText(`unknown scenario ${s}`);
  }
}

function agentScript(s: string, body: FakeRequestBody): Script {
  switch (s) {
    case "tools":
      if (!called(body, "f_list")) return fakeToolCalls(AGENT_FAULTS);
      if (!called(body, "r_read")) return fakeToolCalls(REAL_FAULTS);
      return fakeToolCalls([{ id: "report_ok", name: "report_to_leader", arguments: { summary: "survived every fault" } }]);
    case "crash":
      if (msgs(body).some((m) => m.role === "user" && String(m.content).includes("try again"))) return fakeToolCalls([{ name: "report_to_leader", arguments: { summary: "back at work" } }]);
      return fakeToolCalls([{ name: "list_files", arguments: { path: "." } }], { content: "Listing, then __crash__" });
    default:
      return fakeText("?");
  }
}

async function newConversation(title: string): Promise<string> {
  const res = await server.api("POST", "/api/conversations", { title, project_path: project });
  expect(res.status).toBe(201);
  return res.json.conversation.id;
}
async function send(id: string, content: string): Promise<void> {
  expect((await server.api("POST", `/api/conversations/${id}/messages`, { content })).status).toBe(202);
}
async function leaderMessages(id: string): Promise<Msg[]> {
  return (await server.api("GET", `/api/conversations/${id}/messages`)).json.messages;
}
async function finalText(id: string, marker: string): Promise<string> {
  return until(`"${marker}" in ${id}`, async () => (await leaderMessages(id)).find((m) => m.role === "assistant" && String(m.content ?? "").includes(marker))?.content ?? null, 30_000);
}
async function timeline(id: string): Promise<Record_[]> {
  return (await server.api("GET", `/api/conversations/${id}/timeline`)).json.records;
}
function resultOf(messages: Msg[], callId: string): string {
  return String(messages.find((m) => m.role === "tool" && m.tool_call_id === callId)?.content ?? "");
}

beforeAll(async () => {
  fake = await startFakeOpenAI({ script: (body) => (isLeader(body) ? leaderScript(scenario(body), body) : agentScript(scenario(body), body)) });
  const home = tempDir("astrion-home-");
  // The product roles, allowing writes: this file tests the engine, not approval.
  seedRolesAllowingWrites(home);
  writeFileSync(
    path.join(home, "models.json"),
    JSON.stringify({ default: "fake", models: { fake: { base_url: fake.url, api_key_env: "FAKE_OPENAI_KEY", model: "fake-model" } } }),
  );
  project = tempDir("astrion-project-");
  writeFileSync(path.join(project, "README.md"), "# Demo\n");
  server = await startServer({
    home,
    env: {
      FAKE_OPENAI_KEY: "sk-fake",
      ASTRION_LEADER_BATCH_MS: "0",
      ASTRION_FAILPOINTS: `tool.*@${FAULT},agent.step@__crash__,leader.step@__leadercrash__`,
    },
  });
});

afterAll(async () => {
  if (process.env.DEBUG_SERVER_OUTPUT) console.log(server?.output());
  await server?.stop();
  await fake?.close();
});

describe("faults in tools and loops", () => {
  it("turns a fault at every tool into a tool error, and the team finishes", async () => {
    const id = await newConversation("tools");
    await send(id, "Exercise every tool");
    await finalText(id, "SUMMARY tools");

    const leader = await leaderMessages(id);
    for (const call of LEADER_FAULTS) {
      expect(JSON.parse(resultOf(leader, call.id!)), call.name).toEqual({ error: `${call.name} failed: an internal error on the server (it is in the server's log).` });
    }
    const { agents } = (await server.api("GET", `/api/conversations/${id}/agents`)).json;
    expect(agents).toHaveLength(1);
    // The agent marks itself completed just after its report is delivered, and the leader may
    // answer the report before that: wait for it, never more than the helper's deadline.
    const agent = await until("the agent completed", async () => {
      const meta = (await server.api("GET", `/api/conversations/${id}/agents`)).json.agents[0].metadata;
      return meta.status === "completed" && meta;
    });
    expect(agent.failure).toBeUndefined();
    const detail = (await server.api("GET", `/api/conversations/${id}/agents/${agent.agent_id}`)).json;
    for (const call of AGENT_FAULTS) {
      expect(JSON.parse(resultOf(detail.messages, call.id!)), call.name).toEqual({ error: `${call.name} failed: an internal error on the server (it is in the server's log).` });
    }
    for (const call of REAL_FAULTS) {
      const result = resultOf(detail.messages, call.id!);
      // Refused before the file system is asked (a name over 255 bytes), or its ENAMETOOLONG in plain words.
      expect(JSON.parse(result).error, call.name).toMatch(/too long|longer than 255 bytes/i);
      expect(result).not.toContain(project);
    }
    // Nothing was written by the faulty write_file, and no question was left waiting.
    expect(agent.pending_tool_calls ?? []).toEqual([]);
    expect(leader.some((m) => String(m.content).includes("survived every fault"))).toBe(true);

    // Each injected fault is on the timeline, from the system to the agent or the leader.
    const failed = (await timeline(id)).filter((r) => r.status === "failed" && r.envelope.payload.fault === "InjectedFault");
    expect(new Set(failed.map((r) => r.action))).toEqual(new Set([...AGENT_FAULTS, ...LEADER_FAULTS].map((c) => c.name)));
    expect(server.output()).toContain("injected fault at tool.read_file");
  });

  it("ends an agent whose loop fails in a visible failed state, tells the leader, and lets it work again", async () => {
    const id = await newConversation("crash");
    await send(id, "Crash an agent");
    await finalText(id, "SUMMARY crash");

    const { agents } = (await server.api("GET", `/api/conversations/${id}/agents`)).json;
    const agent = agents[0].metadata;
    expect(agent.status).toBe("idle");
    expect(agent.failure).toMatchObject({ code: "internal_error", fault: "InjectedFault" });
    const report = (await leaderMessages(id)).find((m) => String(m.content).includes("的任务完成汇报"));
    expect(report?.content).toContain("[failed] I stopped on an internal error (InjectedFault)");
    const event = (await timeline(id)).find((r) => r.action === "agent_failed");
    expect(event).toMatchObject({ status: "failed", envelope: { payload: { fault: "InjectedFault" } } });

    // A person's message starts it afresh: the failure is cleared and it reports again.
    expect((await server.api("POST", `/api/conversations/${id}/agents/${agent.agent_id}/messages`, { content: "Please try again" })).status).toBe(202);
    await until("the agent reports again", async () => {
      const now = (await server.api("GET", `/api/conversations/${id}/agents`)).json.agents[0].metadata;
      return now.status === "completed" && now.failure === undefined;
    });
    await finalText(id, "SUMMARY crash twice");
  });

  it("settles a leader whose loop fails, with a timeline event, and it answers the next message", async () => {
    const id = await newConversation("leader-crash");
    await send(id, "Crash the leader");
    const event = await until("leader_failed on the timeline", async () => (await timeline(id)).find((r) => r.action === "leader_failed"));
    expect(event).toMatchObject({ status: "failed", envelope: { payload: { fault: "InjectedFault" } } });
    await until("phase IDLE", async () => (await server.api("GET", `/api/conversations/${id}`)).json.conversation.phase === "IDLE");
    await send(id, "Answer again please");
    await finalText(id, "SUMMARY leader back");
  });
});
