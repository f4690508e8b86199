/**
 * Cost per agent, per model and per conversation through the real server (issue 29), with the
 * real `openai` client against a fake OpenAI-compatible server: the leader's model reports cached
 * input as OpenAI does (`prompt_tokens_details.cached_tokens`), the sub-agent's role model as
 * DeepSeek does (`prompt_cache_hit_tokens`), each priced at its own registry prices; a model that
 * is down is answered by its fallback, priced at the fallback's prices; a model without prices
 * shows tokens only. The figures are checked in the snapshot, the agent's view, the conversation
 * list and the Markdown export, and again after the zip export is deleted and imported back.
 */
import http from "node:http";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeError, fakeText, fakeToolCalls, startFakeOpenAI, type FakeOpenAI, type FakeRequestBody, type Script } from "./helpers/fake-openai";
import { rawRequest, snapshotOf, startServer, tempDir, type TestServer } from "./helpers/server";
import { until } from "./helpers/wait";

type Msg = { role: string; content?: string | null; tool_calls?: Array<{ function: { name: string } }> };

/** US dollars per million input, cached-input and output tokens. */
const GPT_PRICES = { input: 2, cached_input: 0.5, output: 8 };
const DS_PRICES = { input: 0.27, cached_input: 0.07, output: 1.1 };
/** Every leader call: 1,000 in (600 cached, OpenAI's field), 100 out → (400×2 + 600×0.5 + 100×8) / 1e6. */
const LEADER_USAGE = { prompt_tokens: 1_000, completion_tokens: 100, total_tokens: 1_100, prompt_tokens_details: { cached_tokens: 600 } };
const LEADER_CALL_USD = 0.0019;
/** Every agent call: 2,000 in (1,500 cached, DeepSeek's fields), 200 out → (500×0.27 + 1,500×0.07 + 200×1.1) / 1e6. */
const AGENT_USAGE = { prompt_tokens: 2_000, completion_tokens: 200, total_tokens: 2_200, prompt_cache_hit_tokens: 1_500, prompt_cache_miss_tokens: 500 };
const AGENT_CALL_USD = 0.00046;

let fake: FakeOpenAI;
let server: TestServer;
let project: string;

const msgs = (body: FakeRequestBody) => (body.messages ?? []) as Msg[];
const isLeader = (body: FakeRequestBody) => JSON.stringify(body.tools ?? []).includes("create_sub_agent");
const called = (body: FakeRequestBody, name: string) => msgs(body).some((m) => (m.tool_calls ?? []).some((c) => c.function.name === name));
const reports = (body: FakeRequestBody) => msgs(body).filter((m) => m.role === "user" && String(m.content ?? "").includes("的任务完成汇报\nid: ")).length;

function handler(body: FakeRequestBody): Script {
  // The `down` entry's endpoint fails fast (Retry-After 0), so its fallback answers.
  if (body.model === "fake-down") return fakeError(503, { headers: { "retry-after": "0" } });
  const usage = isLeader(body) ? LEADER_USAGE : AGENT_USAGE;
  if (isLeader(body)) {
    // A team all on unpriced models uses the role whose model has no prices either.
    const role = String(msgs(body)[0]?.content ?? "").includes("Conversation: tokens only\n") ? "plain-reader" : "pricer";
    if (!called(body, "create_sub_agent")) return fakeToolCalls([{ name: "create_sub_agent", arguments: { role_id: role, task: "Read the README" } }], { usage });
    return fakeText(reports(body) >= 1 ? "SUMMARY: the README was read" : "waiting", { usage });
  }
  if (!called(body, "read_file")) return fakeToolCalls([{ name: "read_file", arguments: { path: "README.md" } }], { usage });
  return fakeToolCalls([{ name: "report_to_leader", arguments: { summary: "README says: demo" } }], { usage });
}

beforeAll(async () => {
  fake = await startFakeOpenAI({ script: handler });
  const home = tempDir("astrion-home-");
  const entry = (model: string, extra: Record<string, unknown> = {}) => ({ base_url: fake.url, api_key_env: "FAKE_OPENAI_KEY", model, timeouts: { idle_ms: 60_000, first_response_ms: 60_000 }, ...extra });
  writeFileSync(
    path.join(home, "models.json"),
    JSON.stringify({
      default: "gpt",
      models: {
        offline: { provider: "offline", label: "Offline (built-in)", model: "astrion-offline" },
        gpt: entry("fake-gpt", { prices: GPT_PRICES }),
        ds: entry("fake-ds", { prices: DS_PRICES }),
        plain: entry("fake-plain"),
        down: entry("fake-down", { fallback: "gpt", prices: { input: 100, output: 100 } }),
      },
    }),
  );
  // Roles whose agents run on the DeepSeek-style priced model and on the unpriced one.
  mkdirSync(path.join(home, "agents"), { recursive: true });
  writeFileSync(path.join(home, "agents", "pricer.md"), "---\nid: pricer\nname: Pricer\ndescription: Reads files for the cost test\nmodel: ds\n---\nYou read files.\n");
  writeFileSync(path.join(home, "agents", "plain-reader.md"), "---\nid: plain-reader\nname: Plain Reader\ndescription: Reads files on an unpriced model\nmodel: plain\n---\nYou read files.\n");
  project = tempDir("astrion-project-");
  writeFileSync(path.join(project, "README.md"), "# Demo\n\nA demo project.\n");
  server = await startServer({ home, env: { FAKE_OPENAI_KEY: "sk-fake", ASTRION_LEADER_BATCH_MS: "30" } });
});

afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

/** Runs a goal to the leader's summary; the conversation's calls, by the provider model that got them. */
async function runConversation(title: string, modelKey: string): Promise<string> {
  const created = await server.api("POST", "/api/conversations", { title, project_path: project, model_key: modelKey });
  expect(created.status).toBe(201);
  const id = created.json.conversation.id as string;
  expect((await server.api("POST", `/api/conversations/${id}/messages`, { content: `Please read the README (${title})` })).status).toBe(202);
  await until(`summary of ${title}`, async () => (await server.api("GET", `/api/conversations/${id}/messages`)).json.messages.some((m: Msg) => String(m.content).startsWith("SUMMARY")));
  await until(`${title} idle`, async () => (await server.api("GET", `/api/conversations/${id}`)).json.conversation.phase === "IDLE");
  return id;
}

/** Calls of a conversation the fake received for `model`, answered (not the `down` entry's errors). */
function callsFor(title: string, model: string): number {
  return fake.requests.filter((r) => r.body?.model === model && String((r.body?.messages as Msg[] | undefined)?.[0]?.content ?? "").includes(`Conversation: ${title}\n`)).length;
}

async function listItem(id: string) {
  const list = await server.api("GET", "/api/conversations?status=all&limit=100");
  return (list.json.items as Array<Record<string, any>>).find((i) => i.id === id); // eslint-disable-line @typescript-eslint/no-explicit-any
}

function download(p: string): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: server.port, path: p, method: "GET", headers: { host: `127.0.0.1:${server.port}` } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("cost through the server", () => {
  let priced = "";

  it("prices each call at its model's prices, per agent, per model and per conversation, cached input beside input", async () => {
    priced = await runConversation("priced run", "gpt");
    const leaderCalls = callsFor("priced run", "fake-gpt");
    const agentCalls = callsFor("priced run", "fake-ds");
    expect(agentCalls).toBe(2);
    expect(leaderCalls).toBeGreaterThanOrEqual(2);
    const leaderUsd = leaderCalls * LEADER_CALL_USD;
    const agentUsd = agentCalls * AGENT_CALL_USD;

    const snapshot = await snapshotOf(server, priced);
    const stats = snapshot.leader.token_statistics;
    expect(stats.by_agent.leader).toMatchObject({ calls: leaderCalls, priced_calls: leaderCalls, prompt_tokens: 1_000 * leaderCalls, cached_tokens: 600 * leaderCalls });
    expect(stats.by_agent.leader.cost_usd).toBeCloseTo(leaderUsd, 10);
    const agent = snapshot.agents[0];
    const agentKey = `agent_${agent.metadata.agent_id}`;
    expect(stats.by_agent[agentKey]).toMatchObject({ calls: 2, cached_tokens: 3_000 });
    expect(stats.by_agent[agentKey].cost_usd).toBeCloseTo(agentUsd, 10);
    expect(stats.by_model.gpt.cost_usd).toBeCloseTo(leaderUsd, 10);
    expect(stats.by_model.ds).toMatchObject({ calls: 2, prompt_tokens: 4_000, cached_tokens: 3_000, completion_tokens: 400 });
    expect(stats.by_model.ds.cost_usd).toBeCloseTo(agentUsd, 10);
    expect(stats.total.cost_usd).toBeCloseTo(leaderUsd + agentUsd, 10);

    // The agent's own view (team panel, drawer).
    expect(agent.tokens).toMatchObject({ prompt_tokens: 4_000, cached_tokens: 3_000, completion_tokens: 400, total_tokens: 4_400, calls: 2, priced_calls: 2 });
    expect(agent.tokens.cost_usd).toBeCloseTo(agentUsd, 10);

    // The list: the conversation's totals without reading its messages.
    const item = await listItem(priced);
    expect(item?.token_totals).toMatchObject({ calls: leaderCalls + 2, priced_calls: leaderCalls + 2, cached_tokens: 600 * leaderCalls + 3_000 });
    expect(item?.token_totals.cost_usd).toBeCloseTo(leaderUsd + agentUsd, 10);
  });

  it("counts a fallback's answer under the fallback at its prices, never the failed primary's", async () => {
    const id = await runConversation("fallback run", "down");
    const stats = (await snapshotOf(server, id)).leader.token_statistics;
    expect(stats.by_model.down).toBeUndefined();
    const leaderCalls = callsFor("fallback run", "fake-gpt");
    expect(callsFor("fallback run", "fake-down")).toBeGreaterThan(0);
    expect(stats.by_model.gpt).toMatchObject({ calls: leaderCalls, priced_calls: leaderCalls });
    expect(stats.by_model.gpt.cost_usd).toBeCloseTo(leaderCalls * LEADER_CALL_USD, 10);
    expect(stats.by_agent.leader.cost_usd).toBeCloseTo(leaderCalls * LEADER_CALL_USD, 10);
  });

  it("shows tokens only for a model without prices: null cost for the agent, no cost in the list", async () => {
    // The role's model is priced; the conversation's (the leader's) is not.
    const id = await runConversation("plain run", "plain");
    const snapshot = await snapshotOf(server, id);
    const stats = snapshot.leader.token_statistics;
    expect(stats.by_model.plain).toMatchObject({ priced_calls: 0 });
    expect(stats.by_model.plain).not.toHaveProperty("cost_usd");
    expect(stats.by_agent.leader).not.toHaveProperty("cost_usd");
    const item = await listItem(id);
    const plainCalls = callsFor("plain run", "fake-plain");
    expect(item?.token_totals).toMatchObject({ calls: plainCalls + 2, priced_calls: 2 });
    expect(item?.token_totals.cost_usd).toBeCloseTo(2 * AGENT_CALL_USD, 10);

    // A team all on unpriced models: nothing but tokens anywhere.
    const bare = await runConversation("tokens only", "plain");
    const bareSnapshot = await snapshotOf(server, bare);
    expect(bareSnapshot.agents[0].tokens.cost_usd).toBeNull();
    expect(bareSnapshot.agents[0].tokens.total_tokens).toBe(4_400);
    const bareItem = await listItem(bare);
    expect(bareItem?.token_totals).toMatchObject({ priced_calls: 0, total_tokens: expect.any(Number) });
    expect(bareItem?.token_totals).not.toHaveProperty("cost_usd");
    const md = (await download(`/api/conversations/${bare}/export?format=md`)).body.toString("utf8");
    expect(md).toContain("cached prompt tokens");
    expect(md).not.toContain("cost (USD)");
  });

  it("carries the figures in the export, and an import of the export shows the same", async () => {
    const before = await snapshotOf(server, priced);
    const itemBefore = await listItem(priced);
    const md = (await download(`/api/conversations/${priced}/export?format=md`)).body.toString("utf8");
    expect(md).toContain("cost (USD)");
    expect(md).toContain("cached prompt tokens");
    expect(md).toMatch(/\| ds \| 2 \| 4,000 \| 3,000 \| 400 \| 4,400 \| \$0\.00092 \|/);

    const zip = await download(`/api/conversations/${priced}/export?format=zip`);
    expect(zip.status).toBe(200);
    expect((await server.api("DELETE", `/api/conversations/${priced}`)).status).toBe(200);
    expect(await listItem(priced)).toBeUndefined();
    const imported = await rawRequest(server.port, {
      method: "POST",
      path: "/api/conversations/import",
      headers: { "content-type": "application/zip", origin: `http://127.0.0.1:${server.port}` },
      body: zip.body,
    });
    expect(imported.status).toBe(201);
    const itemAfter = await listItem(priced);
    expect(itemAfter?.token_totals).toEqual(itemBefore?.token_totals);
    const after = await snapshotOf(server, priced);
    expect(after.leader.token_statistics).toEqual(before.leader.token_statistics);
    expect(after.agents[0].tokens).toEqual(before.agents[0].tokens);
  });
});
