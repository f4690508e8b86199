/**
 * The team runtime against the real running server and the real `openai` client, talking to a
 * fake OpenAI-compatible server scripted per conversation: fan-out, questions answered by the
 * leader and by a person, teammate messages, reports waking the leader, Stop, retries, the idle
 * watchdog, mid-stream errors, caps, workspace escapes, and a SIGKILL in mid-run.
 */
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeError, fakeText, fakeToolCalls, startFakeOpenAI, type FakeOpenAI, type FakeRequestBody, type Script } from "./helpers/fake-openai";
import { seedRolesAllowingWrites } from "./helpers/roles";
import { firstEvents, startServer, tempDir, type TestServer } from "./helpers/server";
import { until } from "./helpers/wait";
import { isProcessAlive } from "@/lib/store/lock";
import type { ToolSpec } from "@/lib/models/types";
import { createSubAgentArgs, toolNamed, toolsOf } from "@/lib/team-tools";
import { parametersOf, toolSpec } from "@/lib/tools";
import { RECALL_MEMORY } from "@/lib/runtime/tool-providers";
import { writeFakeModels } from "./helpers/models-file";

type Msg = {
  role: string;
  content?: string | null;
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
  metadata?: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  reasoning_content?: string;
};

let fake: FakeOpenAI;
let server: TestServer;
let home: string;
let project: string;
let outside: string;

/** Scripted behaviour per conversation title (read from the system prompt). */
const counters = new Map<string, number>();

function msgs(body: FakeRequestBody): Msg[] {
  return (body.messages ?? []) as Msg[];
}
function isLeader(body: FakeRequestBody): boolean {
  return JSON.stringify(body.tools ?? []).includes("create_sub_agent");
}
function scenario(body: FakeRequestBody): string {
  const system = String(msgs(body)[0]?.content ?? "");
  return /Conversation: (\S+)/.exec(system)?.[1] ?? "unknown";
}
function selfId(body: FakeRequestBody): number {
  return Number(/agent id (\d+)/.exec(String(msgs(body)[0]?.content ?? ""))?.[1] ?? 0);
}
function displayName(body: FakeRequestBody): string {
  return /You are: (\S+)/.exec(String(msgs(body)[0]?.content ?? ""))?.[1] ?? "";
}
function hasAssistantCalls(body: FakeRequestBody, name?: string): boolean {
  return msgs(body).some((m) => m.role === "assistant" && (m.tool_calls ?? []).some((c) => !name || c.function.name === name));
}
function callCount(body: FakeRequestBody, name: string): number {
  return msgs(body).reduce((n, m) => n + (m.tool_calls ?? []).filter((c) => c.function.name === name).length, 0);
}
function reports(body: FakeRequestBody): number {
  return msgs(body).filter((m) => m.role === "user" && String(m.content ?? "").includes("的任务完成汇报\nid: ")).length;
}
function lastMessage(body: FakeRequestBody): Msg {
  return msgs(body)[msgs(body).length - 1]!;
}
function bump(key: string): number {
  const n = (counters.get(key) ?? 0) + 1;
  counters.set(key, n);
  return n;
}
const create = (role_id: string, task: string, argumentChunks = 4) => ({ name: "create_sub_agent", arguments: { role_id, task }, argumentChunks });
const report = (summary: string) => fakeToolCalls([{ name: "report_to_leader", arguments: { summary } }]);

function leaderScript(s: string, body: FakeRequestBody): Script {
  const last = lastMessage(body);
  const question = last.role === "user" ? /的消息\nid: (ask_\w+)/.exec(String(last.content ?? "")) : null;
  switch (s) {
    case "fanout":
      if (!hasAssistantCalls(body, "create_sub_agent"))
        return fakeToolCalls([create("researcher", "Map the project"), create("code-reviewer", "Review src"), create("ui-operator", "Check the page")], { content: "Assembling a team." });
      // The leader's turn after delegating is slow, and the agents report only once it has begun,
      // so all three reports arrive while the leader is busy.
      if (reports(body) === 0) {
        releaseFanoutReports();
        return fakeText("waiting for reports", { delayMs: 1000 });
      }
      return fakeText(reports(body) >= 3 ? "SUMMARY fanout: all three reported" : "waiting for reports", { reasoning: "counting reports" });
    case "ask-leader":
      if (!hasAssistantCalls(body, "create_sub_agent")) return fakeToolCalls([create("researcher", "Pick a theme")]);
      if (question) return fakeToolCalls([{ name: "answer_question", arguments: { question_id: question[1], answer: "Use the blue theme" } }]);
      return fakeText(reports(body) >= 1 ? "SUMMARY ask-leader" : "ok");
    case "ask-person":
      if (!hasAssistantCalls(body, "create_sub_agent")) return fakeToolCalls([create("researcher", "Pick a theme")]);
      if (question) return fakeText("Only the person can answer that; please answer in the agent's panel.");
      return fakeText(reports(body) >= 1 ? "SUMMARY ask-person" : "ok");
    case "teammate":
      // The reviewer is created first, so it exists when the researcher (created next) greets it.
      if (!hasAssistantCalls(body, "create_sub_agent")) return fakeToolCalls([create("code-reviewer", "Wait for the researcher"), create("researcher", "Tell the reviewer hello")]);
      return fakeText(reports(body) >= 2 ? "SUMMARY teammate" : "waiting");
    case "stop":
      if (!hasAssistantCalls(body, "create_sub_agent")) return fakeToolCalls([create("researcher", "Work slowly")]);
      return fakeText("I am thinking very slowly about this", { contentChunks: 4, end: "stall", chunksBeforeEnd: 3 });
    case "critical-path": {
      if (!hasAssistantCalls(body, "create_sub_agent"))
        return fakeToolCalls([
          { name: "create_sub_agent", arguments: { role_id: "researcher", task: "The answer depends on this" } },
          { name: "create_sub_agent", arguments: { role_id: "code-reviewer", task: "Nice to have", critical: false } },
        ]);
      const last = lastMessage(body);
      if (last.role === "user" && String(last.content).startsWith("[Astrion] Every agent on the critical path")) return fakeText("PARTIAL results: the researcher is done");
      return fakeText(reports(body) >= 2 ? "SUMMARY critical-path, late result added" : "waiting");
    }
    case "shared":
      if (!hasAssistantCalls(body, "update_shared_context"))
        return fakeToolCalls([{ name: "update_shared_context", arguments: { key: "plan", value: "leader plan v1", mode: "overwrite", expected_version: 0 } }]);
      if (!hasAssistantCalls(body, "create_sub_agent")) return fakeToolCalls([create("researcher", "Read the plan and try to change it")]);
      return fakeText(reports(body) >= 1 ? "SUMMARY shared" : "waiting");
    case "idem":
      if (!hasAssistantCalls(body, "create_sub_agent")) return fakeToolCalls([create("full-stack-engineer", "Write a file once")]);
      return fakeText(reports(body) >= 1 ? "SUMMARY idem" : "waiting");
    case "terminate":
      if (!hasAssistantCalls(body, "create_sub_agent")) return fakeToolCalls([create("researcher", "Work forever")]);
      return fakeText("waiting for the agent");
    case "retry429":
      return bump("retry429") === 1 ? fakeError(429, { headers: { "retry-after": "1" }, message: "slow down" }) : fakeText("SUMMARY after retry");
    case "stall":
      return fakeText("Partial words before the stall and more", { contentChunks: 4, end: "stall", chunksBeforeEnd: 3 });
    case "midstream":
      return fakeText("Partial words before the cut and more", { contentChunks: 4, end: "destroy", chunksBeforeEnd: 3 });
    case "caps":
      if (!hasAssistantCalls(body, "create_sub_agent"))
        return fakeToolCalls([create("researcher", "Try to spawn"), create("code-reviewer", "Loop forever"), create("ui-operator", "Report at once"), create("full-stack-engineer", "One too many")]);
      return fakeText(reports(body) >= 3 ? "SUMMARY caps" : "waiting");
    case "escape":
      if (!hasAssistantCalls(body, "create_sub_agent")) return fakeToolCalls([create("full-stack-engineer", "Try to leave the folder")]);
      return fakeText(reports(body) >= 1 ? "SUMMARY escape" : "waiting");
    case "kill":
      if (!hasAssistantCalls(body, "create_sub_agent")) return fakeToolCalls([create("researcher", "Slow task A"), create("code-reviewer", "Slow task B")]);
      return fakeText(reports(body) >= 2 ? "SUMMARY kill" : "waiting");
    default:
      return fakeText(`unknown scenario ${s}`);
  }
}

let releaseCriticalReport: () => void = () => undefined;
const criticalGate = new Promise<void>((resolve) => (releaseCriticalReport = resolve));
let releaseFanoutReports: () => void = () => undefined;
const fanoutGate = new Promise<void>((resolve) => (releaseFanoutReports = resolve));

function agentScript(s: string, body: FakeRequestBody): Script | Promise<Script> {
  const me = displayName(body);
  const last = lastMessage(body);
  switch (s) {
    case "fanout":
      return fanoutGate.then(() => report(`done by ${me}`));
    case "ask-leader":
    case "ask-person":
      if (!hasAssistantCalls(body, "ask_master")) return fakeToolCalls([{ name: "ask_master", arguments: { question: "Which theme should I use?" } }]);
      return report(`Chose: ${JSON.parse(String(last.content)).answer}`);
    case "teammate":
      if (me.startsWith("Researcher")) {
        if (!hasAssistantCalls(body, "send_message")) return fakeToolCalls([{ name: "send_message", arguments: { agent_id: selfId(body) - 1, content: "hello teammate" } }]);
        return report("sent hello");
      }
      if (msgs(body).some((m) => m.role === "user" && String(m.content).includes("来自 Researcher_"))) return report("got the hello");
      if (callCount(body, "list_files") >= 20) return report("no hello arrived");
      return fakeToolCalls([{ name: "list_files", arguments: { path: "." } }], { delayMs: 50 });
    case "stop":
    case "terminate":
      return fakeText("agent working slowly", { contentChunks: 4, end: "stall", chunksBeforeEnd: 2 });
    case "caps":
      if (me.startsWith("Researcher")) {
        if (!hasAssistantCalls(body, "create_sub_agent")) return fakeToolCalls([{ name: "create_sub_agent", arguments: { role_id: "researcher", task: "spawned" } }]);
        return report("could not spawn");
      }
      if (me.startsWith("Code")) return fakeToolCalls([{ name: "list_files", arguments: { path: "." } }]);
      return report("reported at once");
    case "escape": {
      if (!hasAssistantCalls(body, "read_file")) {
        const paths = ["../secret.txt", "/etc/passwd", "~/.bashrc", "%2e%2e/secret.txt", "link-out/secret.txt", `../${path.basename(project)}-evil/secret.txt`, "a/../../secret.txt", "ok.txt"];
        return fakeToolCalls([
          ...paths.map((p, i) => ({ id: `esc_${i}`, name: "read_file", arguments: { path: p } })),
          { id: "esc_w", name: "write_file", arguments: { path: "../escaped.txt", content: "x" } },
          { id: "esc_bad", name: "read_file", arguments: "{not json" },
          { id: "esc_noargs", name: "search_files", arguments: {} },
          { id: "esc_l", name: "write_file", arguments: { path: "link-out/planted.txt", content: "x" } },
        ]);
      }
      return report("tried everything");
    }
    case "critical-path":
      // The non-critical reviewer is slow; the researcher on the critical path reports as soon as
      // the reviewer exists (so the critical path is done while the reviewer still works).
      if (me.startsWith("Code")) {
        releaseCriticalReport();
        return fakeToolCalls([{ name: "report_to_leader", arguments: { summary: "late review" } }], { delayMs: 1500 });
      }
      return criticalGate.then(() => report("critical research"));
    case "shared":
      if (!hasAssistantCalls(body, "read_shared_context")) return fakeToolCalls([{ name: "read_shared_context", arguments: {} }]);
      if (!hasAssistantCalls(body, "update_shared_context"))
        return fakeToolCalls([
          { id: "sc_append", name: "update_shared_context", arguments: { key: "notes", value: "agent note", mode: "append" } },
          // Based on a version the leader has already replaced: the coordinator's value must win.
          { id: "sc_stale", name: "update_shared_context", arguments: { key: "plan", value: "agent plan", mode: "overwrite", expected_version: 0 } },
        ]);
      return report(`plan seen: ${JSON.stringify(JSON.parse(String(msgs(body).find((m) => m.role === "tool")?.content ?? "{}")))}`);
    case "idem": {
      // The same action (same tool call id) is sent again, as a retried request would: it must run once.
      const writes = callCount(body, "write_file");
      if (writes === 0) return fakeToolCalls([{ id: "dup_1", name: "write_file", arguments: { path: "idem.txt", content: "first" } }]);
      if (writes === 1) return fakeToolCalls([{ id: "dup_1", name: "write_file", arguments: { path: "idem.txt", content: "second" } }]);
      return report("wrote once");
    }
    case "kill":
      if (!hasAssistantCalls(body, "list_files")) return fakeToolCalls([{ name: "list_files", arguments: { path: "." } }]);
      return fakeToolCalls([{ name: "report_to_leader", arguments: { summary: `slow report by ${me}` } }], { delayMs: 3000 });
    default:
      return report("?");
  }
}

async function handler(body: FakeRequestBody): Promise<Script> {
  const s = scenario(body);
  return isLeader(body) ? leaderScript(s, body) : agentScript(s, body);
}

async function newConversation(title: string): Promise<string> {
  const res = await server.api("POST", "/api/conversations", { title, project_path: project });
  expect(res.status).toBe(201);
  return res.json.conversation.id;
}

async function send(id: string, content: string): Promise<{ message_id: string; trace_id: string }> {
  const res = await server.api("POST", `/api/conversations/${id}/messages`, { content });
  expect(res.status).toBe(202);
  return res.json;
}

async function leaderMessages(id: string): Promise<Msg[]> {
  return (await server.api("GET", `/api/conversations/${id}/messages`)).json.messages;
}


async function finalText(id: string, marker: string, timeoutMs = 30_000): Promise<string> {
  return until(`"${marker}" in ${id}`, async () => (await leaderMessages(id)).find((m) => m.role === "assistant" && String(m.content ?? "").includes(marker))?.content, timeoutMs);
}

async function agents(id: string) {
  return (await server.api("GET", `/api/conversations/${id}/agents`)).json;
}

function writeModels(home: string, url: string) {
  writeFakeModels(home, url, { timeouts: { idle_ms: 1500, first_response_ms: 10_000 } });
}

const serverEnv = { FAKE_OPENAI_KEY: "sk-fake-test-key", ASTRION_MAX_AGENTS: "3", ASTRION_MAX_CALLS_PER_TASK: "6", ASTRION_LEADER_BATCH_MS: "30" };

beforeAll(async () => {
  fake = await startFakeOpenAI({ script: handler });
  home = tempDir("astrion-home-");
  // The product roles, allowing writes: this file tests the engine, not approval.
  seedRolesAllowingWrites(home);
  writeModels(home, fake.url);
  project = tempDir("astrion-project-");
  mkdirSync(path.join(project, "src"));
  writeFileSync(path.join(project, "README.md"), "# Demo\n\nA demo project.\n");
  writeFileSync(path.join(project, "ok.txt"), "inside the project\n");
  outside = tempDir("astrion-outside-");
  writeFileSync(path.join(outside, "secret.txt"), "TOP-SECRET-OUTSIDE\n");
  writeFileSync(path.join(path.dirname(project), "secret.txt"), "TOP-SECRET-PARENT\n");
  mkdirSync(`${project}-evil`, { recursive: true });
  writeFileSync(path.join(`${project}-evil`, "secret.txt"), "TOP-SECRET-SIBLING\n");
  symlinkSync(outside, path.join(project, "link-out"));
  server = await startServer({ home, env: serverEnv });
});

afterAll(async () => {
  if (process.env.DEBUG_SERVER_OUTPUT) console.log(server?.output());
  await server?.stop();
  await fake?.close();
});

describe("a team at work", () => {
  it("fans out to three sub-agents whose reports wake the leader, in the seed's files", async () => {
    const id = await newConversation("fanout");
    const before = fake.requests.length;
    const { trace_id } = await send(id, "Look at the project from three angles");
    await finalText(id, "SUMMARY fanout");
    // Reports that arrived together were handled in one leader turn.
    const leaderCalls = fake.requests.slice(before).filter((r) => r.body && isLeader(r.body) && scenario(r.body) === "fanout");
    expect(leaderCalls.map((r) => reports(r.body!))).toEqual([0, 0, 3]);
    // What each model was offered, as the endpoint received it: the registry's generated schemas.
    const leaderSpecs = leaderCalls[0]!.body!.tools as ToolSpec[];
    // recall_memory is an engine tool defined beside its runtime module (lib/runtime/tool-providers/memory.ts).
    const specOf = (name: string) => toolNamed(name) ?? (name === RECALL_MEMORY.name ? RECALL_MEMORY : undefined);
    expect(leaderSpecs.map((t) => t.function.name)).toEqual([...toolsOf("leader"), ...toolsOf("both"), RECALL_MEMORY].map((t) => t.name));
    const [create, ...rest] = leaderSpecs;
    const roleIds = (create!.function.parameters as { properties: { role_id: { enum: string[] } } }).properties.role_id.enum;
    expect(roleIds).toEqual(expect.arrayContaining(["researcher", "code-reviewer", "ui-operator"]));
    expect(create!.function.parameters).toEqual(parametersOf(createSubAgentArgs(roleIds)));
    for (const t of rest) expect(t).toEqual(toolSpec(specOf(t.function.name)!));
    const agentCall = fake.requests.slice(before).find((r) => r.body && !isLeader(r.body) && scenario(r.body) === "fanout")!;
    const agentSpecs = agentCall.body!.tools as ToolSpec[];
    expect(agentSpecs.map((t) => t.function.name)).toEqual(expect.arrayContaining(["report_to_leader", "read_file", "update_shared_context", "recall_memory"]));
    for (const t of agentSpecs) expect(t).toEqual(toolSpec(specOf(t.function.name)!));
    expect(JSON.stringify([leaderSpecs, agentSpecs])).not.toContain("$schema");
    const { agents: list } = await agents(id);
    expect(list).toHaveLength(3);
    // The server's first conversation with agents: they are 1, 2, 3 (see "numbers each conversation's agents from 1").
    expect(list.map((a: { metadata: { agent_id: number } }) => a.metadata.agent_id)).toEqual([1, 2, 3]);
    expect(list.map((a: { metadata: { status: string } }) => a.metadata.status)).toEqual(["completed", "completed", "completed"]);
    expect(list.map((a: { metadata: { display_name: string } }) => a.metadata.display_name)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^Researcher_\d+$/), expect.stringMatching(/^Code Reviewer_\d+$/), expect.stringMatching(/^UI Operator_\d+$/)]),
    );

    const messages = await leaderMessages(id);
    const reportMsgs = messages.filter((m) => String(m.content ?? "").includes("的任务完成汇报"));
    expect(reportMsgs).toHaveLength(3);
    for (const r of reportMsgs) {
      expect(r.content).toMatch(/^来自 .+_\d+ 的任务完成汇报\nid: out_[a-z]+_001\n\n\n\ndone by .+\n\n$/);
      expect(r.metadata).toMatchObject({ message_source: "sub_agent", visibility: "compact", starts_work: false });
      expect(typeof r.metadata?.agent_id).toBe("number");
    }
    // The thinking of the leader's final answer was kept.
    expect(messages.some((m) => m.reasoning_content === "counting reports")).toBe(true);
    // Each call's context: totals on the message, the whole report (slices, messages sent) on request.
    const answer = messages.find((m) => m.role === "assistant" && String(m.content).includes("SUMMARY fanout"))!;
    expect(answer.metadata?.context).toMatchObject({ tokenizer: "o200k_base", global: { budget: 500 }, scene: { budget: 3000 } });
    expect(JSON.stringify(answer.metadata?.context)).not.toMatch(/items|preview/);
    const full = await server.api("GET", `/api/conversations/${id}/context/${(answer as { message_id?: string }).message_id}`);
    expect(full.status).toBe(200);
    expect(full.json.report.scene.items.length).toBe(answer.metadata?.context.scene.sent);
    expect(full.json.report.global.lines.some((l: { label: string }) => /goal/i.test(l.label))).toBe(true);
    expect((await server.api("GET", `/api/conversations/${id}/context/msg_nope`)).status).toBe(404);

    const first = list[0].metadata.agent_id;
    const detail = (await server.api("GET", `/api/conversations/${id}/agents/${first}`)).json;
    expect(detail.messages[0].role).toBe("system");
    expect(detail.messages[1].content).toMatch(/^来自 Team Leader 的任务发布\nid: task_00[123]\n\n\n\n/);

    // Files on disk: seed layout, metadata in step.
    await until("phase IDLE", async () => (await server.api("GET", `/api/conversations/${id}`)).json.conversation.phase === "IDLE", 10_000);
    const meta = JSON.parse(readFileSync(path.join(home, "conversations", id, "metadata.json"), "utf8"));
    expect(meta.agent_count).toBe(3);
    expect(meta.phase).toBe("IDLE");
    const agentMeta = JSON.parse(readFileSync(path.join(home, "conversations", id, "agents", String(first), "metadata.json"), "utf8"));
    expect(agentMeta).toMatchObject({ agent_id: first, status: "completed", pending_messages: [], pending_tool_calls: [] });

    // Token statistics per conversation, per agent and per model.
    const stats = (await server.api("GET", `/api/conversations/${id}/messages`)).json.token_statistics;
    expect(stats.total.calls).toBeGreaterThanOrEqual(5);
    expect(stats.by_agent.leader.total_tokens).toBeGreaterThan(0);
    expect(stats.by_agent[`agent_${first}`].calls).toBe(1);
    expect(stats.by_model.fake.calls).toBe(stats.total.calls);

    // One trace for everything the message caused; replies link to their request.
    const timeline = (await server.api("GET", `/api/conversations/${id}/timeline?trace_id=${trace_id}`)).json.records;
    expect(timeline.length).toBeGreaterThan(6);
    expect(new Set(timeline.map((r: { trace_id: string }) => r.trace_id))).toEqual(new Set([trace_id]));
    const tasks = timeline.filter((r: { action: string }) => r.action === "create_sub_agent");
    const replies = timeline.filter((r: { action: string }) => r.action === "report");
    expect(replies).toHaveLength(3);
    for (const r of replies) expect(tasks.map((t: { turn_id: string }) => t.turn_id)).toContain(r.parent_turn_id);
    // The API key never reached the browser-facing answers or the files.
    expect(JSON.stringify(timeline)).not.toContain(serverEnv.FAKE_OPENAI_KEY);
    expect(fake.requests.some((r) => r.authorization === `Bearer ${serverEnv.FAKE_OPENAI_KEY}`)).toBe(true);
  });

  it("ask_master is answered by the leader", async () => {
    const id = await newConversation("ask-leader");
    await send(id, "Pick a theme");
    await finalText(id, "SUMMARY ask-leader");
    const { agents: list } = await agents(id);
    const detail = (await server.api("GET", `/api/conversations/${id}/agents/${list[0].metadata.agent_id}`)).json;
    const answer = detail.messages.find((m: Msg) => m.role === "tool" && String(m.content).includes("Use the blue theme"));
    expect(JSON.parse(answer.content)).toEqual({ answer: "Use the blue theme", answered_by: "Team Leader" });
    const messages = await leaderMessages(id);
    expect(messages.some((m) => /^来自 Researcher_\d+ 的消息\nid: ask_r_001\n/.test(String(m.content)))).toBe(true);
    expect(messages.some((m) => String(m.content).includes("Chose: Use the blue theme"))).toBe(true);
  });

  it("numbers each conversation's agents from 1: a later conversation's first agent is _1 too, in its files and its reports", async () => {
    // Runs after "fans out to three sub-agents" (agents 1, 2, 3 of their conversation) on the same data folder.
    const id = await newConversation("ask-leader");
    await send(id, "Pick a theme");
    await finalText(id, "SUMMARY ask-leader");
    const { agents: list } = await agents(id);
    expect(list.map((a: { metadata: { agent_id: number; display_name: string } }) => [a.metadata.agent_id, a.metadata.display_name])).toEqual([[1, "Researcher_1"]]);
    expect(JSON.parse(readFileSync(path.join(home, "conversations", id, "agents", "1", "metadata.json"), "utf8"))).toMatchObject({ agent_id: 1, display_name: "Researcher_1" });
    expect(JSON.parse(readFileSync(path.join(home, "conversations", id, "metadata.json"), "utf8"))).toMatchObject({ agent_ids: [1], agent_count: 1 });
    const report = (await leaderMessages(id)).find((m) => String(m.content ?? "").includes("的任务完成汇报"))!;
    expect(String(report.content)).toMatch(/^来自 Researcher_1 的任务完成汇报\n/);
    expect(report.metadata).toMatchObject({ agent_id: 1 });
    // state.json still counts every agent of the data folder.
    expect(JSON.parse(readFileSync(path.join(home, "state.json"), "utf8")).agent_id_counter).toBeGreaterThanOrEqual(4);
  });

  it("ask_master waits for a person, who answers through the API", async () => {
    const id = await newConversation("ask-person");
    await send(id, "Pick a theme");
    const question = await until("a pending question", async () => (await agents(id)).questions[0]);
    expect(question).toMatchObject({ question_id: "ask_r_001", question: "Which theme should I use?" });
    const agent = (await agents(id)).agents[0];
    expect(agent.metadata.status).toBe("waiting");
    expect(agent.metadata.pending_tool_calls[0]).toMatchObject({ tool_name: "ask_master", question_id: "ask_r_001" });
    const conv = (await server.api("GET", `/api/conversations/${id}`)).json.conversation;
    expect(conv.phase).toBe("WAITING");

    const bad = await server.api("POST", `/api/conversations/${id}/agents/${question.agent_id}/answers`, { question_id: "ask_r_999", answer: "x" });
    expect(bad.status).toBe(404);
    const ok = await server.api("POST", `/api/conversations/${id}/agents/${question.agent_id}/answers`, { question_id: "ask_r_001", answer: "Green, please" });
    expect(ok.status).toBe(200);
    const again = await server.api("POST", `/api/conversations/${id}/agents/${question.agent_id}/answers`, { question_id: "ask_r_001", answer: "Red" });
    expect(again.status).toBe(409);
    await until("the report", async () => (await leaderMessages(id)).find((m) => String(m.content).includes("Chose: Green, please")));
    await finalText(id, "SUMMARY ask-person");
  });

  it("a sub-agent messages a teammate", async () => {
    const id = await newConversation("teammate");
    await send(id, "Say hello to each other");
    await finalText(id, "SUMMARY teammate");
    const { agents: list } = await agents(id);
    const reviewer = list.find((a: { metadata: { role_id: string } }) => a.metadata.role_id === "code-reviewer");
    const detail = (await server.api("GET", `/api/conversations/${id}/agents/${reviewer.metadata.agent_id}`)).json;
    expect(detail.messages.some((m: Msg) => /^来自 Researcher_\d+ 的消息\nid: msg_r_001\n\n\n\nhello teammate\n\n$/.test(String(m.content)))).toBe(true);
    expect((await leaderMessages(id)).some((m) => String(m.content).includes("got the hello"))).toBe(true);
  });

  it("Stop aborts every stream in mid-flight and leaves no agent running", async () => {
    const id = await newConversation("stop");
    const before = fake.requests.length;
    await send(id, "Take your time");
    // Wait until both the agent's and the leader's second call are streaming (stalled).
    await until("two stalled streams", async () => fake.requests.slice(before).filter((r) => !r.completed && !r.closedByClient && r.body && scenario(r.body) === "stop").length >= 2);
    const started = Date.now();
    const res = await server.api("POST", `/api/conversations/${id}/stop`);
    expect(res.status).toBe(200);
    await until("streams closed", async () => fake.requests.slice(before).filter((r) => r.body && scenario(r.body) === "stop" && !r.completed).every((r) => r.closedByClient), 5000);
    expect(Date.now() - started).toBeLessThan(1000);
    const { agents: list } = await agents(id);
    expect(list.every((a: { metadata: { status: string } }) => a.metadata.status !== "running")).toBe(true);
    const conv = (await server.api("GET", `/api/conversations/${id}`)).json.conversation;
    expect(conv.phase).toBe("IDLE");
    const interrupted = (await leaderMessages(id)).filter((m) => m.metadata?.interrupted);
    expect(interrupted.length).toBe(1);
    expect(interrupted[0]!.content).toContain("I am thinking");
  });

  it("a person terminates one agent: its stream is aborted and it takes no more messages", async () => {
    const id = await newConversation("terminate");
    const before = fake.requests.length;
    await send(id, "Go");
    const agentId = await until("the agent streaming", async () => {
      const inFlight = fake.requests.slice(before).find((r) => r.body && scenario(r.body) === "terminate" && !isLeader(r.body) && !r.completed);
      return inFlight ? (await agents(id)).agents[0]?.metadata.agent_id : undefined;
    });
    const res = await server.api("DELETE", `/api/conversations/${id}/agents/${agentId}`);
    expect(res.json).toEqual({ terminated: agentId });
    await until("stream closed", async () => fake.requests.slice(before).filter((r) => r.body && !isLeader(r.body) && scenario(r.body) === "terminate").every((r) => r.completed || r.closedByClient), 5000);
    expect((await agents(id)).agents[0].metadata.status).toBe("terminated");
    const msg = await server.api("POST", `/api/conversations/${id}/agents/${agentId}/messages`, { content: "still there?" });
    expect(msg.status).toBe(409);
    const timeline = (await server.api("GET", `/api/conversations/${id}/timeline`)).json.records;
    expect(timeline.some((r: { action: string; envelope: { type: string } }) => r.action === "terminate_agent" && r.envelope.type === "control")).toBe(true);
  });

  it("agents read and write the shared context through tools; a stale overwrite of the leader's value loses, visibly", async () => {
    const id = await newConversation("shared");
    await send(id, "Share a plan");
    await finalText(id, "SUMMARY shared");
    const { agents: list } = await agents(id);
    const detail = (await server.api("GET", `/api/conversations/${id}/agents/${list[0].metadata.agent_id}`)).json;
    const read = detail.messages.find((m: Msg) => m.role === "tool" && String(m.content).includes("leader plan v1"));
    expect(read).toBeDefined();
    expect(JSON.parse(detail.messages.find((m: Msg) => m.tool_call_id === "sc_append").content)).toMatchObject({ outcome: "applied", version: 1 });
    expect(JSON.parse(detail.messages.find((m: Msg) => m.tool_call_id === "sc_stale").content)).toMatchObject({ outcome: "rejected" });
    const shared = (await server.api("GET", `/api/conversations/${id}/shared-context`)).json.shared_context;
    expect(shared.entries.plan).toMatchObject({ value: "leader plan v1", version: 1 });
    expect(shared.entries.notes).toMatchObject({ value: "agent note", version: 1 });
    const conflicts = (await server.api("GET", `/api/conversations/${id}/timeline`)).json.records.filter((r: { action: string }) => r.action === "conflict_resolution");
    const stale = conflicts.find((r: { envelope: { payload: { proposed_value?: string } } }) => r.envelope.payload.proposed_value === "agent plan");
    expect(stale.envelope.payload).toMatchObject({ current_value: "leader plan v1", proposed_value: "agent plan", rule: "leader_wins" });
  });

  it("reports partial results once the critical path is done, and adds the late result when it arrives", async () => {
    const id = await newConversation("critical-path");
    await send(id, "Answer fast, review later");
    await finalText(id, "SUMMARY critical-path");
    const texts = (await leaderMessages(id)).map((m) => String(m.content ?? ""));
    const at = (re: RegExp) => texts.findIndex((t) => re.test(t));
    expect(at(/critical research/)).toBeGreaterThan(-1);
    expect(at(/^\[Astrion\] Every agent on the critical path has reported \(Researcher_\d+\)\. Still working, not critical: Code Reviewer_\d+/)).toBeGreaterThan(at(/critical research/));
    expect(at(/PARTIAL results/)).toBeGreaterThan(at(/^\[Astrion\]/));
    expect(at(/late review/)).toBeGreaterThan(at(/PARTIAL results/));
    expect(at(/SUMMARY critical-path/)).toBeGreaterThan(at(/late review/));
    const records = (await server.api("GET", `/api/conversations/${id}/timeline`)).json.records;
    expect(records.filter((r: { action: string }) => r.action === "partial_results_ready")).toHaveLength(1);
  });

  it("a retried side-effecting action runs once", async () => {
    const id = await newConversation("idem");
    await send(id, "Write it");
    await finalText(id, "SUMMARY idem");
    expect(readFileSync(path.join(project, "idem.txt"), "utf8")).toBe("first");
    const { agents: list } = await agents(id);
    const detail = (await server.api("GET", `/api/conversations/${id}/agents/${list[0].metadata.agent_id}`)).json;
    const results = detail.messages.filter((m: Msg) => m.tool_call_id === "dup_1").map((m: Msg) => m.content);
    expect(results).toHaveLength(2);
    expect(results[1]).toBe(results[0]);
    const writes = (await server.api("GET", `/api/conversations/${id}/timeline`)).json.records.filter(
      (r: { action: string; status: string; envelope: { type: string } }) => r.action === "write_file" && r.envelope.type === "event" && r.status === "ok",
    );
    expect(writes).toHaveLength(1);
  });

  it("retries a 429 after Retry-After and then succeeds", async () => {
    const id = await newConversation("retry429");
    const before = fake.requests.length;
    await send(id, "Hello");
    await finalText(id, "SUMMARY after retry");
    const mine = fake.requests.slice(before).filter((r) => r.body && scenario(r.body) === "retry429");
    expect(mine).toHaveLength(2);
    expect(mine[1]!.receivedAt - mine[0]!.receivedAt).toBeGreaterThanOrEqual(900);
  });

  it("cuts a stalled stream with the idle watchdog and keeps the partial message as interrupted", async () => {
    const id = await newConversation("stall");
    await send(id, "Hello");
    const msg = await until("interrupted message", async () => (await leaderMessages(id)).find((m) => m.metadata?.interrupted));
    expect(msg.content).toContain("Partial words");
    expect(msg.metadata?.interrupted_reason).toBe("stalled");
    const snapshotNotices = await until("a notice", async () => {
      const events = await readEvents(id);
      return events.find((e) => e.type === "snapshot")?.snapshot.notices.find((n: { code: string }) => n.code === "model_error");
    });
    expect(snapshotNotices.message).toMatch(/models\.json/);
  });

  it("an error in mid-stream leaves the partial message saved as interrupted", async () => {
    const id = await newConversation("midstream");
    await send(id, "Hello");
    const msg = await until("interrupted message", async () => (await leaderMessages(id)).find((m) => m.metadata?.interrupted));
    expect(msg.content).toContain("Partial words");
    // The seed file follows the step log within moments (a background rewrite, or the checkpoint when the run is let go).
    const last = await until("messages.json with the interrupted message", async () => {
      const file = JSON.parse(readFileSync(path.join(home, "conversations", id, "messages.json"), "utf8"));
      return file.messages.at(-1)?.metadata?.interrupted ? file.messages.at(-1) : null;
    });
    expect(last.content).toContain("Partial words");
  });

  it("enforces the hard caps: agents per conversation, calls per task, no spawning by sub-agents", async () => {
    const id = await newConversation("caps");
    await send(id, "Test the caps");
    await finalText(id, "SUMMARY caps");
    const messages = await leaderMessages(id);
    const capResult = messages.find((m) => m.role === "tool" && String(m.content).includes("cap reached"));
    expect(capResult).toBeDefined();
    const { agents: list } = await agents(id);
    expect(list).toHaveLength(3);
    const looping = list.find((a: { metadata: { role_id: string } }) => a.metadata.role_id === "code-reviewer");
    expect(looping.calls_this_task).toBe(6);
    expect(messages.some((m) => String(m.content).includes("[failed] I reached the limit of 6 model calls"))).toBe(true);
    const researcher = list.find((a: { metadata: { role_id: string } }) => a.metadata.role_id === "researcher");
    const detail = (await server.api("GET", `/api/conversations/${id}/agents/${researcher.metadata.agent_id}`)).json;
    expect(detail.messages.some((m: Msg) => m.role === "tool" && String(m.content).includes("sub-agents cannot create sub-agents"))).toBe(true);
    const timeline = (await server.api("GET", `/api/conversations/${id}/timeline`)).json.records;
    expect(timeline.filter((r: { status: string }) => r.status === "capped").length).toBeGreaterThanOrEqual(2);
    expect(timeline.some((r: { status: string; action: string }) => r.status === "refused" && r.action === "create_sub_agent")).toBe(true);
  });

  it("refuses every attempt to leave the project folder and records the denials", async () => {
    const id = await newConversation("escape");
    await send(id, "Escape");
    await finalText(id, "SUMMARY escape");
    const { agents: list } = await agents(id);
    const detail = (await server.api("GET", `/api/conversations/${id}/agents/${list[0].metadata.agent_id}`)).json;
    const results = new Map<string, string>(detail.messages.filter((m: Msg) => m.role === "tool").map((m: Msg) => [m.tool_call_id!, String(m.content)]));
    for (let i = 0; i < 7; i++) expect(JSON.parse(results.get(`esc_${i}`)!).error, `esc_${i}`).toBeTruthy();
    expect(JSON.parse(results.get("esc_7")!).content).toBe("inside the project\n");
    expect(JSON.parse(results.get("esc_w")!).error).toBeTruthy();
    // Invalid arguments go back to the model as a tool error; the run goes on.
    expect(JSON.parse(results.get("esc_bad")!).error).toMatch(/not valid JSON/);
    expect(JSON.parse(results.get("esc_noargs")!).error).toMatch(/invalid arguments: query/);
    expect(JSON.parse(results.get("esc_l")!).error).toBeTruthy();
    const all = JSON.stringify(detail.messages);
    expect(all).not.toContain("TOP-SECRET");
    expect(() => readFileSync(path.join(outside, "planted.txt"))).toThrow();
    expect(() => readFileSync(path.join(path.dirname(project), "escaped.txt"))).toThrow();
    const timeline = (await server.api("GET", `/api/conversations/${id}/timeline`)).json.records;
    expect(timeline.filter((r: { status: string }) => r.status === "refused").length).toBeGreaterThanOrEqual(7);
    // Every data access is audited: the one read that was allowed is in the timeline too.
    expect(timeline.some((r: { action: string; resource: string; status: string }) => r.action === "read_file" && r.resource === "file:ok.txt" && r.status === "ok")).toBe(true);
  });
});

/** Reads the first events of the SSE stream (the snapshot and what follows within a moment). */
async function readEvents(id: string) {
  return firstEvents(server, id);
}

describe("restart", () => {
  it("after SIGKILL mid-run, the run finishes with nothing lost and no completed model call requested twice", async () => {
    const id = await newConversation("kill");
    const before = fake.requests.length;
    await send(id, "Two slow tasks");
    // Both agents are in their slow second call (delayed headers) when the server dies, and every
    // call that finished before has been saved (the leader's "waiting" answer is on disk). A call
    // whose answer had not been saved when the process died was never completed for the server.
    await until("slow calls in flight", async () => fake.requests.slice(before).filter((r) => r.body && scenario(r.body) === "kill" && !isLeader(r.body) && callCount(r.body, "list_files") >= 1).length >= 2);
    await until("the leader's answer saved", async () => (await leaderMessages(id)).some((m) => m.role === "assistant" && m.content === "waiting"));
    const health = await server.api("GET", "/api/health");
    process.kill(-server.proc.pid!, "SIGKILL");
    await until("server gone", async () => server.proc.exitCode !== null || server.proc.signalCode !== null, 10_000);
    await until("server process gone", async () => !isProcessAlive(health.json.pid), 10_000);
    expect(health.json.pid).toBeGreaterThan(0);

    server = await startServer({ home, env: serverEnv });
    await finalText(id, "SUMMARY kill", 60_000);
    const { agents: list } = await agents(id);
    expect(list.map((a: { metadata: { status: string } }) => a.metadata.status)).toEqual(["completed", "completed"]);
    const messages = await leaderMessages(id);
    expect(messages.filter((m) => String(m.content).includes("slow report by"))).toHaveLength(2);

    const completed = fake.requests.slice(before).filter((r) => r.completed && r.body && scenario(r.body) === "kill");
    const keys = completed.map((r) => JSON.stringify(r.body!.messages));
    expect(new Set(keys).size).toBe(keys.length);
    // Each agent's conversation on disk is whole: system, task, list_files call and result, report call and result.
    for (const a of list) {
      const detail = (await server.api("GET", `/api/conversations/${id}/agents/${a.metadata.agent_id}`)).json;
      expect(detail.messages.map((m: Msg) => m.role)).toEqual(["system", "user", "assistant", "tool", "assistant", "tool"]);
    }
  });
});
