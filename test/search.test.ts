/**
 * History search through the real server (issue 9): a team run on a fake OpenAI-compatible model,
 * then `GET /api/search` finds the leader's and the sub-agent's messages, with filters; hostile
 * queries never fail; the index survives a restart, is rebuilt when its database is deleted, and
 * a message saved before a kill -9 whose index write never happened is found after the restart.
 */
import { existsSync, rmSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeText, fakeToolCalls, startFakeOpenAI, type FakeOpenAI, type FakeRequestBody, type Script } from "./helpers/fake-openai";
import { writeFakeModels } from "./helpers/models-file";
import { startServer, tempDir, type TestServer } from "./helpers/server";
import { until } from "./helpers/wait";

type Msg = { role: string; content?: string | null; tool_calls?: Array<{ function: { name: string } }> };
type Hit = { conversation_id: string; conversation_title: string; agent_id: number | null; agent_display_name: string; role_id: string | null; message_role: string; message_id: string; snippet: Array<{ text: string; hit: boolean }> };

let fake: FakeOpenAI;
let server: TestServer;
let home: string;
let project: string;

const msgs = (b: FakeRequestBody) => (b.messages ?? []) as Msg[];
const isLeader = (b: FakeRequestBody) => JSON.stringify(b.tools ?? []).includes("create_sub_agent");
const title = (b: FakeRequestBody) => /Conversation: (\S+)/.exec(String(msgs(b)[0]?.content ?? ""))?.[1] ?? "";
const called = (b: FakeRequestBody, name: string) => msgs(b).some((m) => (m.tool_calls ?? []).some((c) => c.function.name === name));
const reported = (b: FakeRequestBody) => msgs(b).some((m) => m.role === "user" && String(m.content).includes("的任务完成汇报"));

/** Each conversation's words carry its title, so runs are told apart. */
function handler(body: FakeRequestBody): Script {
  const t = title(body);
  if (isLeader(body)) {
    if (!called(body, "create_sub_agent")) return fakeToolCalls([{ name: "create_sub_agent", arguments: { role_id: "researcher", task: `Survey the ${t} basalt archive` } }]);
    return fakeText(reported(body) ? `SUMMARY ${t}: the quartz harbour is ready` : "waiting");
  }
  return fakeToolCalls([{ name: "report_to_leader", arguments: { summary: `${t} archive surveyed` } }], { content: `Found the ${t} obsidian lighthouse beside 临时文件的原子写入` });
}

const env = { FAKE_OPENAI_KEY: "sk-test", ASTRION_LEADER_BATCH_MS: "20" };

async function search(params: Record<string, string>): Promise<{ status: number; json: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const res = await server.api("GET", `/api/search?${new URLSearchParams(params).toString()}`);
  return { status: res.status, json: res.json };
}
const hitsOf = async (params: Record<string, string>): Promise<Hit[]> => {
  const res = await search(params);
  expect(res.status).toBe(200);
  return res.json.hits as Hit[];
};

/** Runs a conversation to the leader's summary; answers its id and the sub-agent's id. */
async function run(name: string): Promise<{ id: string; agent: number }> {
  const created = await server.api("POST", "/api/conversations", { title: name, project_path: project });
  const id = created.json.conversation.id as string;
  await server.api("POST", `/api/conversations/${id}/messages`, { content: `Please look at the ${name} lighthouse` });
  await until(`${name} summary`, async () =>
    (await server.api("GET", `/api/conversations/${id}/messages`)).json.messages.some((m: Msg) => String(m.content).startsWith(`SUMMARY ${name}`)),
  );
  const agents = (await server.api("GET", `/api/conversations/${id}/agents`)).json.agents;
  return { id, agent: agents[0].metadata.agent_id };
}

function localDay(offsetDays = 0): string {
  const d = new Date(Date.now() + offsetDays * 86_400_000);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
}

function kill(s: TestServer): Promise<void> {
  return new Promise((resolve) => {
    if (s.proc.exitCode !== null || s.proc.signalCode !== null) return resolve();
    s.proc.once("exit", () => resolve());
    process.kill(-s.proc.pid!, "SIGKILL");
  });
}

beforeAll(async () => {
  fake = await startFakeOpenAI({ script: handler });
  home = tempDir("astrion-home-");
  project = tempDir("astrion-project-");
  writeFakeModels(home, fake.url);
  server = await startServer({ home, env });
});

afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

describe("history search", () => {
  let first: { id: string; agent: number };

  it("finds a leader message and a sub-agent message, with filters", async () => {
    first = await run("alpha");
    const leader = await until("the leader's summary indexed", async () => {
      const hits = await hitsOf({ q: "quartz harbour" });
      return hits.length ? hits : null;
    });
    expect(leader).toHaveLength(1);
    expect(leader[0]).toMatchObject({ conversation_id: first.id, conversation_title: "alpha", agent_id: null, agent_display_name: "Team Leader", role_id: null, message_role: "assistant" });
    expect(leader[0]!.snippet.filter((s) => s.hit).map((s) => s.text)).toEqual(["quartz", "harbour"]);

    const agent = await hitsOf({ q: "obsidian lighthouse", agent: String(first.agent) });
    expect(agent).toHaveLength(1);
    expect(agent[0]).toMatchObject({ conversation_id: first.id, agent_id: first.agent, role_id: "researcher", message_role: "assistant" });
    expect(agent[0]!.agent_display_name).toMatch(/^Researcher_\d+$/);
    expect(agent[0]!.message_id).toMatch(/^msg_/);
    // Chinese, through the same message.
    expect((await hitsOf({ q: "原子写入" })).map((h) => h.message_id)).toEqual([agent[0]!.message_id]);

    // The person's message (a user message of the leader) and the task the sub-agent received.
    expect((await hitsOf({ q: "lighthouse", agent: "leader", message_role: "user" })).map((h) => h.agent_id)).toEqual([null]);
    expect((await hitsOf({ q: "basalt archive", role: "researcher", message_role: "user" })).map((h) => h.agent_id)).toEqual([first.agent]);
    expect(await hitsOf({ q: "obsidian", role: "ui-operator" })).toEqual([]);
    expect((await hitsOf({ q: "obsidian", model: "fake" })).length).toBe(1);
    expect(await hitsOf({ q: "obsidian", model: "offline" })).toEqual([]);
    expect((await hitsOf({ q: "obsidian", from: localDay(-1), to: localDay(1) })).length).toBe(1);
    expect(await hitsOf({ q: "obsidian", to: localDay(-2) })).toEqual([]);

    // Archive: the status filter follows.
    expect((await hitsOf({ q: "obsidian", status: "active" })).length).toBe(1);
    expect((await server.api("PATCH", `/api/conversations/${first.id}`, { status: "archived" })).status).toBe(200);
    await until("archived in the index", async () => (await hitsOf({ q: "obsidian", status: "archived" })).length === 1);
    expect(await hitsOf({ q: "obsidian", status: "active" })).toEqual([]);
  });

  it("answers hostile queries without an error and refuses bad parameters with a clear one", async () => {
    for (const q of ['"', 'obsidian"', "NEAR(obsidian lighthouse)", "obsidian AND", "OR NOT", "*", "-obsidian", "obsidian:", "body:obsidian", "tags:x", "'; DROP TABLE msgs; --", "^ob*", "((("]) {
      const res = await search({ q });
      expect(res.status, q).toBe(200);
      expect(Array.isArray(res.json.hits)).toBe(true);
    }
    expect((await hitsOf({ q: "-obsidian" })).length).toBe(1);
    for (const params of [{}, { q: "" }, { q: "x", agent: "-1" }, { q: "x", agent: "robot" }, { q: "x", from: "2026-13-01" }, { q: "x", limit: "1000" }, { q: "x", cursor: "abc" }, { q: "x", status: "gone" }, { q: "x", message_role: "system" }, { q: "x", from: "2026-05-02", to: "2026-05-01" }, { q: "x".repeat(501) }]) {
      const res = await search(params as Record<string, string>);
      expect(res.status, JSON.stringify(params)).toBe(400);
      expect(res.json.error.code).toBe("validation_failed");
      expect(typeof res.json.error.message).toBe("string");
    }
  });

  it("pages with a cursor", async () => {
    await run("beta");
    await until("beta indexed", async () => (await hitsOf({ q: "beta quartz" })).length === 1);
    const page1 = await search({ q: "lighthouse", limit: "1" });
    expect(page1.json.hits).toHaveLength(1);
    expect(page1.json.has_more).toBe(true);
    const page2 = await search({ q: "lighthouse", limit: "1", cursor: page1.json.next_cursor });
    expect(page2.json.hits).toHaveLength(1);
    expect(page2.json.hits[0].message_id).not.toBe(page1.json.hits[0].message_id);
  });

  it("still finds both after a restart, without a rebuild", async () => {
    await server.stop();
    server = await startServer({ home, env });
    expect((await hitsOf({ q: "quartz harbour", status: "archived" })).map((h) => h.conversation_id)).toEqual([first.id]);
    expect((await hitsOf({ q: "alpha obsidian" })).map((h) => h.agent_id)).toEqual([first.agent]);
    const health = (await server.api("GET", "/api/health")).json;
    expect(health.search.rebuilds).toEqual([]);
  });

  it("rebuilds the index from the conversation files when its database is deleted", async () => {
    await server.stop();
    rmSync(path.join(home, "search"), { recursive: true, force: true });
    server = await startServer({ home, env });
    const health = await until("the rebuild done", async () => {
      const h = (await server.api("GET", "/api/health")).json;
      return h.search.state === "ready" ? h : null;
    });
    expect(health.search.rebuilds).toHaveLength(1);
    expect(health.search.rebuilds[0]).toMatchObject({ reason: "missing", conversations: 2 });
    expect(health.problems.some((p: { file: string; message: string }) => p.file === "search/history.sqlite" && /rebuilt from 2 conversation/.test(p.message))).toBe(true);
    expect(existsSync(path.join(home, "search", "history.sqlite"))).toBe(true);
    expect((await hitsOf({ q: "alpha obsidian", status: "archived" })).map((h) => h.agent_id)).toEqual([first.agent]);
    expect((await hitsOf({ q: "beta quartz" })).map((h) => h.agent_id)).toEqual([null]);
  });

  it("finds after a restart the messages saved before a kill -9 whose index write never happened", async () => {
    await server.stop();
    // The index waits ten minutes before writing: whatever this run saves is on disk, not in the index, when the process dies.
    server = await startServer({ home, env: { ...env, ASTRION_SEARCH_FLUSH_MS: "600000" } });
    const crashed = await run("gamma");
    expect(await hitsOf({ q: "gamma obsidian" })).toEqual([]);
    await kill(server);
    server = await startServer({ home, env });
    const agent = await until("gamma's messages found after the restart", async () => {
      const hits = await hitsOf({ q: "gamma obsidian" });
      return hits.length ? hits : null;
    });
    expect(agent.map((h) => [h.conversation_id, h.agent_id])).toEqual([[crashed.id, crashed.agent]]);
    expect((await hitsOf({ q: "gamma quartz harbour" })).map((h) => [h.conversation_id, h.agent_id])).toEqual([[crashed.id, null]]);
    expect((await server.api("GET", "/api/health")).json.search.rebuilds).toEqual([]);
  });
});
