/**
 * Agents' capabilities as tools (seed 003 §3.2) through the real built server and the fake model:
 * a reviewer calls the tester role's `generate_test_cases` (declared in the tester's `provides:`),
 * a tester agent gets the request as its task, replies with report_to_leader, and the reviewer
 * receives the validated reply as its tool result — not the leader. Then: an input that does not
 * match, a reply that does not match the declared output, a cap reached, Stop and terminate while
 * the caller waits, and a crash (SIGKILL) mid-call after which the call completes.
 */
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeText, fakeToolCalls, startFakeOpenAI, type FakeOpenAI, type FakeRequestBody, type Script } from "./helpers/fake-openai";
import { writeFakeModels } from "./helpers/models-file";
import { killServer, startServer, tempDir, type TestServer } from "./helpers/server";
import { until } from "./helpers/wait";

type Call = { id: string; function: { name: string; arguments: string } };
type Msg = { role: string; content?: string | null; tool_calls?: Call[]; tool_call_id?: string; metadata?: Record<string, unknown> };
type Agent = { metadata: { agent_id: number; role_id: string; status: string; display_name: string; pending_tool_calls?: unknown[]; ability_request?: unknown } };
type Rec = { action: string; from_agent: string; to_agent: string; turn_id: string; parent_turn_id: string | null; status: string; envelope: { type: string; payload: Record<string, unknown> } };

const INPUT = { type: "object", properties: { module: { type: "string", minLength: 1 } }, required: ["module"], additionalProperties: false };
const TESTER = `---
name: Tester
description: Writes test cases
max_concurrency: 1
provides:
  - name: generate_test_cases
    description: Test cases for one module
    input: ${JSON.stringify(INPUT)}
    output:
      type: object
      properties:
        cases: { type: array, items: { type: string }, minItems: 1 }
      required: [cases]
---
You write tests.
`;
const REVIEWER = "---\nname: Reviewer\ndescription: Reviews code\n---\nYou review.\n";

let fake: FakeOpenAI;
let server: TestServer;
let home: string;
let project: string;
let restarted = false;
let happyId = "";
const env = { FAKE_OPENAI_KEY: "sk-abl", ASTRION_LEADER_BATCH_MS: "0" };

const msgs = (b: FakeRequestBody) => (b.messages ?? []) as Msg[];
const toolNames = (b: FakeRequestBody) => ((b.tools ?? []) as Array<{ function: { name: string } }>).map((t) => t.function.name);
const scenario = (b: FakeRequestBody) => /Conversation: (abl-[a-z]+)/.exec(JSON.stringify(msgs(b)))?.[1] ?? "";
const me = (b: FakeRequestBody) => /You are: (\S+)/.exec(String(msgs(b)[0]?.content ?? ""))?.[1] ?? "";
const results = (b: FakeRequestBody) => msgs(b).filter((m) => m.role === "tool");
const called = (b: FakeRequestBody, name: string) => msgs(b).some((m) => (m.tool_calls ?? []).some((c) => c.function.name === name));
const gen = (args: Record<string, unknown>) => fakeToolCalls([{ name: "generate_test_cases", arguments: args }]);
const report = (summary: string) => fakeToolCalls([{ name: "report_to_leader", arguments: { summary } }]);
const stall = (): Script => ({ kind: "stream", end: "stall", chunksBeforeEnd: 1 });

function leader(b: FakeRequestBody): Script {
  if (called(b, "create_sub_agent")) return fakeText("SUMMARY");
  const creates = scenario(b) === "abl-cap" ? ["tester", "reviewer"] : scenario(b) === "abl-parallel" ? ["reviewer", "reviewer"] : ["reviewer"];
  return fakeToolCalls(creates.map((role_id) => ({ name: "create_sub_agent", arguments: { role_id, task: `Work as ${role_id}` } })));
}

/** Both reviewers of the parallel scenario get their answer at the same moment, so their calls race. */
const barrier: { waiting: Array<() => void> } = { waiting: [] };
function together(script: Script): Promise<Script> {
  return new Promise((resolve) => {
    barrier.waiting.push(() => resolve(script));
    if (barrier.waiting.length === 2) for (const go of barrier.waiting.splice(0)) go();
  });
}

function reviewer(b: FakeRequestBody): Script | Promise<Script> {
  const done = results(b);
  const last = String(done[done.length - 1]?.content ?? "");
  switch (scenario(b)) {
    case "abl-happy":
      if (done.length === 0) return gen({ module: "payment" });
      if (done.length === 1) return gen({ module: "refunds" });
      return report(`reviewed with ${done.length} answers`);
    case "abl-mismatch":
      if (done.length === 0) return gen({ count: 3 });
      if (done.length === 1) return gen({ module: "payment" });
      return report("saw both errors");
    case "abl-parallel":
      if (done.length === 0) return together(gen({ module: me(b) }));
      return report(`got: ${last.slice(0, 200)}`);
    default:
      if (done.length === 0) return gen({ module: "payment" });
      return report(`got: ${last.slice(0, 200)}`);
  }
}

function tester(b: FakeRequestBody): Script {
  const task = [...msgs(b)].reverse().find((m) => m.role === "user")?.content ?? "";
  const mod = /"module": "([^"]+)"/.exec(String(task))?.[1];
  switch (scenario(b)) {
    case "abl-cap":
      return called(b, "ask_master") ? fakeText("waiting") : fakeToolCalls([{ name: "ask_master", arguments: { question: "Shall I start?" } }]);
    case "abl-mismatch":
      return report("I wrote some cases for you.");
    case "abl-stop":
    case "abl-term":
      return stall();
    case "abl-restart":
      if (!restarted) return stall();
      return report(JSON.stringify({ cases: [`${mod} after restart`] }));
    default:
      return report(JSON.stringify({ cases: [`${mod} pays`, `${mod} refunds`] }));
  }
}

function handler(b: FakeRequestBody): Script | Promise<Script> {
  if (toolNames(b).includes("create_sub_agent")) return leader(b);
  return me(b).startsWith("Tester") ? tester(b) : reviewer(b);
}

async function start(): Promise<TestServer> {
  return startServer({ home, env });
}

beforeAll(async () => {
  fake = await startFakeOpenAI({ script: handler });
  home = tempDir("astrion-home-");
  // A stalled callee must stay in flight until the test acts (no first-response timeout meanwhile).
  writeFakeModels(home, fake.url, { timeouts: { first_response_ms: 600_000, idle_ms: 600_000 } });
  mkdirSync(path.join(home, "agents"), { recursive: true });
  writeFileSync(path.join(home, "agents", "tester.md"), TESTER);
  writeFileSync(path.join(home, "agents", "reviewer.md"), REVIEWER);
  project = tempDir("astrion-project-");
  server = await start();
});

afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

async function run(title: string, allowedRoles?: string[]): Promise<string> {
  const created = await server.api("POST", "/api/conversations", { title, project_path: project });
  const id = created.json.conversation.id as string;
  if (allowedRoles) expect((await server.api("PATCH", `/api/conversations/${id}`, { allowed_roles: allowedRoles })).status).toBe(200);
  expect((await server.api("POST", `/api/conversations/${id}/messages`, { content: "Review the payment module" })).status).toBe(202);
  return id;
}
const agents = async (id: string): Promise<Agent[]> => (await server.api("GET", `/api/conversations/${id}/agents`)).json.agents;
const byRole = (list: Agent[], role: string) => list.filter((a) => a.metadata.role_id === role);
const detail = async (id: string, agentId: number): Promise<{ agent: Agent; messages: Msg[] }> => (await server.api("GET", `/api/conversations/${id}/agents/${agentId}`)).json;
const timeline = async (id: string): Promise<Rec[]> => (await server.api("GET", `/api/conversations/${id}/timeline`)).json.records;
const leaderMessages = async (id: string): Promise<Msg[]> => (await server.api("GET", `/api/conversations/${id}/messages`)).json.messages;
/** The tool results of an agent's ability calls, in order. */
async function abilityResults(id: string, agentId: number): Promise<Array<Record<string, unknown>>> {
  const { messages } = await detail(id, agentId);
  const ids = new Set(messages.flatMap((m) => (m.tool_calls ?? []).filter((c) => c.function.name === "generate_test_cases").map((c) => c.id)));
  return messages.filter((m) => m.role === "tool" && ids.has(String(m.tool_call_id))).map((m) => JSON.parse(String(m.content)));
}
async function reviewerDone(id: string): Promise<Agent> {
  return until("the reviewer reported", async () => {
    const r = byRole(await agents(id), "reviewer")[0];
    return r?.metadata.status === "completed" ? r : null;
  });
}

describe("abilities as tools", () => {
  it("routes a call to a tester agent and gives its validated reply back as the caller's tool result", async () => {
    const id = await run("abl-happy");
    happyId = id;
    const rev = await reviewerDone(id);
    const testers = byRole(await agents(id), "tester");
    // One tester, created for the first call and reused (idle) for the second.
    expect(testers).toHaveLength(1);
    const t = testers[0]!.metadata;
    expect(t.status).toBe("completed");
    expect(await abilityResults(id, rev.metadata.agent_id)).toEqual([
      { from: t.display_name, status: "completed", result: { cases: ["payment pays", "payment refunds"] } },
      { from: t.display_name, status: "completed", result: { cases: ["refunds pays", "refunds refunds"] } },
    ]);
    expect(rev.metadata.pending_tool_calls ?? []).toEqual([]);

    // The tester's task: the seed's task header from the reviewer, with the input.
    const tasks = (await detail(id, t.agent_id)).messages.filter((m) => m.role === "user" && String(m.content).startsWith(`来自 ${rev.metadata.display_name} 的任务发布`));
    expect(tasks).toHaveLength(2);
    expect(String(tasks[0]!.content)).toContain('"module": "payment"');

    // The model was offered the ability with the declared input schema; the tester was not offered its own.
    const reviewerBody = fake.requests.find((r) => r.body && scenario(r.body) === "abl-happy" && me(r.body).startsWith("Reviewer"))!.body!;
    const spec = (reviewerBody.tools as Array<{ function: { name: string; parameters: unknown } }>).find((x) => x.function.name === "generate_test_cases");
    expect(spec?.function.parameters).toEqual(INPUT);
    const testerBody = fake.requests.find((r) => r.body && scenario(r.body) === "abl-happy" && me(r.body).startsWith("Tester"))!.body!;
    expect(toolNames(testerBody)).not.toContain("generate_test_cases");

    // The leader got the reviewer's report only: the tester's replies went to the reviewer.
    await until("summary", async () => (await leaderMessages(id)).some((m) => m.role === "assistant" && m.content === "SUMMARY"));
    const reports = (await leaderMessages(id)).filter((m) => String(m.content ?? "").includes("的任务完成汇报"));
    expect(reports.map((m) => String(m.content).split("\n")[0])).toEqual([`来自 ${rev.metadata.display_name} 的任务完成汇报`]);

    // The timeline shows each request and its reply, between the two agents, the reply answering its request.
    const records = await timeline(id);
    const requests = records.filter((r) => r.action === "ability_call" && r.envelope.type === "request");
    const replies = records.filter((r) => r.action === "ability_reply" && r.envelope.type === "reply");
    expect(requests).toHaveLength(2);
    expect(replies).toHaveLength(2);
    for (const [i, req] of requests.entries()) {
      expect([req.from_agent, req.to_agent]).toEqual([`agent:${rev.metadata.agent_id}`, `agent:${t.agent_id}`]);
      expect([replies[i]!.from_agent, replies[i]!.to_agent]).toEqual([`agent:${t.agent_id}`, `agent:${rev.metadata.agent_id}`]);
      expect(replies[i]!.parent_turn_id).toBe(req.turn_id);
    }
  });

  it("refuses arguments that do not match the declared input, and a reply that does not match the declared output", async () => {
    const id = await run("abl-mismatch");
    const rev = await reviewerDone(id);
    const [badInput, badOutput] = await abilityResults(id, rev.metadata.agent_id);
    expect(badInput!.error).toMatch(/invalid arguments for generate_test_cases \(its declared input schema\): module: .*Unrecognized key: "count"/);
    expect(badOutput!.error).toMatch(/does not match the declared output of generate_test_cases: it is not JSON/);
    expect(badOutput!.reply).toBe("I wrote some cases for you.");
    // Only the valid call reached a tester.
    expect((await timeline(id)).filter((r) => r.action === "ability_call" && r.envelope.type === "request")).toHaveLength(1);
  });

  it("answers a tool error when no agent of the role is idle and the caps allow no new one", async () => {
    const id = await run("abl-cap");
    const rev = await reviewerDone(id);
    const [capped] = await abilityResults(id, rev.metadata.agent_id);
    expect(capped!.error).toMatch(/cap reached: no idle agent of role tester, and the role allows at most 1 at once \(max_concurrency\)/);
    expect(byRole(await agents(id), "tester")).toHaveLength(1);
    expect((await timeline(id)).some((r) => r.action === "ability_call" && r.status === "capped")).toBe(true);
  });

  it("routes calls made at the same moment one at a time: two callers never both take the last place", async () => {
    const id = await run("abl-parallel");
    const reviewers = await until("both reviewers reported", async () => {
      const list = byRole(await agents(id), "reviewer");
      return list.length === 2 && list.every((r) => r.metadata.status === "completed") ? list : null;
    });
    // max_concurrency: 1 — one tester, however the two calls interleaved.
    expect(byRole(await agents(id), "tester")).toHaveLength(1);
    const outcomes = await Promise.all(reviewers.map(async (r) => (await abilityResults(id, r.metadata.agent_id))[0]!));
    expect(outcomes.some((o) => o.status === "completed")).toBe(true);
    for (const o of outcomes) expect(o.status === "completed" ? o.result : o.error).toEqual(o.status === "completed" ? { cases: expect.any(Array) } : expect.stringMatching(/cap reached/));
  });

  it("offers no ability of a role the conversation may not use (its allowed_roles), and refuses a call of it", async () => {
    const id = await run("abl-whitelist", ["reviewer"]);
    const rev = await reviewerDone(id);
    const body = fake.requests.find((r) => r.body && scenario(r.body) === "abl-whitelist" && me(r.body).startsWith("Reviewer"))!.body!;
    expect(toolNames(body)).not.toContain("generate_test_cases");
    const { messages } = await detail(id, rev.metadata.agent_id);
    const call = messages.flatMap((m) => m.tool_calls ?? []).find((c) => c.function.name === "generate_test_cases")!;
    expect(JSON.parse(String(messages.find((m) => m.tool_call_id === call.id)!.content)).error).toBe("unknown tool generate_test_cases");
    expect(byRole(await agents(id), "tester")).toHaveLength(0);
  });

  it("shows a role's abilities in the role list and keeps them through a form save", async () => {
    const list = (await server.api("GET", "/api/roles")).json.roles as Array<{ id: string; provides?: unknown }>;
    expect(list.find((r) => r.id === "tester")!.provides).toEqual([{ name: "generate_test_cases", description: "Test cases for one module" }]);
    expect(list.find((r) => r.id === "reviewer")!.provides).toBeUndefined();
    const before = (await server.api("GET", "/api/roles/tester")).json.role;
    const { id: _id, provides, ...fields } = before.fields;
    void _id;
    const saved = await server.api("PUT", "/api/roles/tester", { etag: before.etag, fields: { ...fields, description: "Writes test cases well" }, body: before.body });
    expect(saved.status).toBe(200);
    expect(saved.json.role.fields.provides).toEqual(provides);
    expect(saved.json.role.raw).toBe(TESTER.replace("description: Writes test cases", "description: Writes test cases well"));
  });

  it("gives the waiting caller a tool error on Stop, and when its callee is terminated", async () => {
    for (const how of ["stop", "term"] as const) {
      const id = await run(`abl-${how}`);
      const [rev, tst] = await until("the reviewer waits on a tester in flight", async () => {
        const list = await agents(id);
        const r = byRole(list, "reviewer")[0];
        const t = byRole(list, "tester")[0];
        const inFlight = fake.requests.some((q) => q.body && scenario(q.body) === `abl-${how}` && me(q.body).startsWith("Tester") && !q.completed);
        return r?.metadata.status === "waiting" && t && inFlight ? ([r, t] as const) : null;
      });
      if (how === "stop") expect((await server.api("POST", `/api/conversations/${id}/stop`)).status).toBeLessThan(300);
      else expect((await server.api("DELETE", `/api/conversations/${id}/agents/${tst.metadata.agent_id}`)).status).toBe(200);
      const [result] = await until("the caller got its tool error", async () => {
        const r = await abilityResults(id, rev.metadata.agent_id);
        return r.length ? r : null;
      });
      expect(result!.error).toMatch(how === "stop" ? /generate_test_cases got no reply: the conversation was stopped/ : new RegExp(`got no reply: ${tst.metadata.display_name} was terminated`));
      const after = (await detail(id, rev.metadata.agent_id)).agent.metadata;
      expect(after.status).not.toBe("waiting");
      expect(after.pending_tool_calls ?? []).toEqual([]);
      // Terminated: the caller goes on and reports; stopped: it stays idle until someone writes.
      if (how === "term") await reviewerDone(id);
      else expect(after.status).toBe("idle");
    }
  });

  it("completes a call across a crash: the caller keeps waiting, the request is not sent twice, the reply arrives once", async () => {
    const id = await run("abl-restart");
    const rev = await until("the reviewer waits on a tester in flight", async () => {
      const r = byRole(await agents(id), "reviewer")[0];
      const inFlight = fake.requests.some((q) => q.body && scenario(q.body) === "abl-restart" && me(q.body).startsWith("Tester"));
      return r?.metadata.status === "waiting" && inFlight ? r : null;
    });
    await killServer(server);
    restarted = true;
    server = await start();
    const done = await reviewerDone(id);
    expect(done.metadata.agent_id).toBe(rev.metadata.agent_id);
    expect(await abilityResults(id, rev.metadata.agent_id)).toEqual([{ from: expect.stringMatching(/^Tester_/), status: "completed", result: { cases: ["payment after restart"] } }]);
    const testers = byRole(await agents(id), "tester");
    expect(testers).toHaveLength(1);
    const tasks = (await detail(id, testers[0]!.metadata.agent_id)).messages.filter((m) => m.role === "user" && String(m.content).includes("的任务发布"));
    expect(tasks).toHaveLength(1);
    const records = await timeline(id);
    expect(records.filter((r) => r.action === "ability_call" && r.envelope.type === "request")).toHaveLength(1);
    expect(records.filter((r) => r.action === "ability_reply" && r.envelope.type === "reply")).toHaveLength(1);
  });

  it("after a crash, sends a call whose request never left once, and delivers one whose caller already waits", async () => {
    const id = happyId;
    const rev = byRole(await agents(id), "reviewer")[0]!.metadata;
    const tst = byRole(await agents(id), "tester")[0]!.metadata;
    await until("summary", async () => (await leaderMessages(id)).some((m) => m.role === "assistant" && m.content === "SUMMARY"));
    await server.stop();
    // The reviewer's model asked for two calls when the server died: the request of call_a never
    // left (journal started, no pending entry); call_b's caller waits on it (its entry is on
    // disk) but no tester holds it.
    const dir = path.join(home, "conversations", id);
    const agentDir = path.join(dir, "agents", String(rev.agent_id));
    const messages = JSON.parse(readFileSync(path.join(agentDir, "messages.json"), "utf8"));
    messages.messages.push({
      role: "assistant",
      content: null,
      message_id: "msg_assistant_crafted",
      tool_calls: ["a", "b"].map((m) => ({ id: `call_${m}`, type: "function", function: { name: "generate_test_cases", arguments: JSON.stringify({ module: m }) } })),
    });
    writeFileSync(path.join(agentDir, "messages.json"), JSON.stringify(messages, null, 2));
    const meta = JSON.parse(readFileSync(path.join(agentDir, "metadata.json"), "utf8"));
    const entry = { tool_call_id: "call_b", tool_name: "generate_test_cases", question_id: "task_090", created_at: Date.now() / 1000, kind: "ability", key: `agent:${rev.agent_id}:call_b`, role_id: "tester", ability: "generate_test_cases", input: { module: "b" } };
    writeFileSync(path.join(agentDir, "metadata.json"), JSON.stringify({ ...meta, status: "waiting", reported: false, calls_this_task: 1, pending_tool_calls: [entry] }, null, 2));
    for (const c of ["a", "b"]) appendFileSync(path.join(dir, "actions.jsonl"), `${JSON.stringify({ key: `agent:${rev.agent_id}:call_${c}`, status: "started", at: new Date().toISOString() })}\n`);
    server = await start();

    await until("both crafted calls answered", async () => ((await abilityResults(id, rev.agent_id)).length === 4 ? true : null));
    await reviewerDone(id);
    const { messages: after } = await detail(id, rev.agent_id);
    for (const c of ["a", "b"]) {
      const replies = after.filter((m) => m.role === "tool" && m.tool_call_id === `call_${c}`);
      expect(replies).toHaveLength(1);
      expect(JSON.parse(String(replies[0]!.content))).toEqual({ from: tst.display_name, status: "completed", result: { cases: [`${c} pays`, `${c} refunds`] } });
    }
    // Each was sent exactly once: two more requests than before, to the same (idle) tester.
    const requests = (await timeline(id)).filter((r) => r.action === "ability_call" && r.envelope.type === "request");
    expect(requests).toHaveLength(4);
    expect(requests.every((r) => r.to_agent === `agent:${tst.agent_id}`)).toBe(true);
  });
});
