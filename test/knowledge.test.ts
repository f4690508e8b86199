/**
 * Knowledge retrieval through the real built server and a scripted OpenAI-compatible model:
 * - a precise-fact task: its sub-agent is offered search_knowledge (and the hint), calls it, and
 *   gets passages as file:line-range; the routing decision and the call are on the timeline;
 * - an explanatory task: no tool, a routing event saying so, and a call made anyway is refused;
 * - the reranker key: a scripted relevance answer reorders the passages; a bad one keeps the order;
 * - the embedding key: vectors from the fake /v1/embeddings, ranking "bm25+vectors";
 * - GET /api/knowledge and POST /api/knowledge/rebuild (validation, unknown folder, 202).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeText, fakeToolCalls, startFakeOpenAI, type FakeOpenAI, type FakeRequestBody } from "./helpers/fake-openai";
import { startServer, tempDir, type TestServer } from "./helpers/server";
import { until } from "./helpers/wait";

type Msg = { role: string; content?: string | null; tool_calls?: Array<{ id: string }>; tool_call_id?: string };
type Rec = { action: string; status: string; resource: string | null; envelope: { to: string; payload: Record<string, unknown> } };

let fake: FakeOpenAI;
let server: TestServer;
let home: string;
let project: string;
/** What each agent's model saw and got, by its task text. */
const seen = new Map<string, { tools: string[]; system: string; result?: string }>();
/** What the reranker answers next. */
let rerankAnswer = "";

const msgs = (b: FakeRequestBody) => (b.messages ?? []) as Msg[];
const toolNames = (b: FakeRequestBody) => ((b.tools ?? []) as Array<{ function: { name: string } }>).map((t) => t.function.name);
const isLeader = (b: FakeRequestBody) => toolNames(b).includes("create_sub_agent");
const isReranker = (b: FakeRequestBody) => String(msgs(b)[0]?.content ?? "").includes("You judge whether passages answer a question");

function handler(body: FakeRequestBody) {
  if (isReranker(body)) return fakeText(rerankAnswer);
  const m = msgs(body);
  if (isLeader(body)) {
    if (!m.some((x) => (x.tool_calls ?? []).length)) {
      const ask = [...m].reverse().find((x) => x.role === "user")!;
      return fakeToolCalls([{ name: "create_sub_agent", arguments: { role_id: "researcher", task: String(ask.content) } }]);
    }
    return fakeText("SUMMARY done");
  }
  const taskMsg = m.find((x) => x.role === "user" && String(x.content).includes("的任务发布"))!;
  const task = String(taskMsg.content).split("\n\n").slice(1).join("\n\n").trim();
  const entry = seen.get(task) ?? { tools: toolNames(body), system: m.filter((x) => x.role === "system").map((x) => String(x.content)).join("\n") };
  seen.set(task, entry);
  const results = m.filter((x) => x.role === "tool");
  if (results.length === 0) {
    const force = task.includes("[force]");
    if (!entry.tools.includes("search_knowledge") && !force) return fakeToolCalls([{ id: "k_report", name: "report_to_leader", arguments: { summary: "no search" } }]);
    const query = task.replace("[force]", "").replace(/\[[^\]]*\]/g, "");
    const paths = task.includes("[docs]") ? ["docs"] : task.includes("[escape]") ? ["docs/../../outside"] : undefined;
    return fakeToolCalls([{ id: "k_search", name: "search_knowledge", arguments: { query, ...(paths ? { paths } : {}) } }]);
  }
  entry.result = String(results[0]!.content);
  return fakeToolCalls([{ id: "k_report", name: "report_to_leader", arguments: { summary: "looked it up" } }]);
}

function writeModels(extra: Record<string, unknown> = {}): void {
  writeFileSync(
    path.join(home, "models.json"),
    JSON.stringify({
      default: "fake",
      ...extra,
      models: {
        fake: { base_url: fake.url, api_key_env: "FAKE_OPENAI_KEY", model: "fake-model", timeouts: { idle_ms: 60_000 } },
        judge: { base_url: fake.url, api_key_env: "FAKE_OPENAI_KEY", model: "judge-model", timeouts: { idle_ms: 60_000 } },
        emb: { base_url: fake.url, api_key_env: "FAKE_OPENAI_KEY", model: "fake-embedding" },
      },
    }),
  );
}

function file(rel: string, text: string): void {
  mkdirSync(path.dirname(path.join(project, rel)), { recursive: true });
  writeFileSync(path.join(project, rel), text);
}

/** Runs one task in a new conversation and returns what its agent saw and the timeline. */
async function run(task: string): Promise<{ entry: { tools: string[]; system: string; result?: string }; records: Rec[] }> {
  const conv = (await server.api("POST", "/api/conversations", { title: task.slice(0, 40), project_path: project })).json.conversation;
  await server.api("POST", `/api/conversations/${conv.id}/messages`, { content: task });
  const entry = await until(`the agent of "${task}" reported`, () => {
    const e = seen.get(task);
    return e && (e.result !== undefined || !e.tools.includes("search_knowledge") && !task.includes("[force]")) ? e : null;
  }, 60_000);
  const records = await until(`the routing event of "${task}"`, async () => {
    const recs = (await server.api("GET", `/api/conversations/${conv.id}/timeline`)).json.records as Rec[];
    return recs.some((r) => r.action === "knowledge_routing") && (!entry.result || recs.some((r) => r.action === "search_knowledge")) ? recs : null;
  });
  return { entry, records };
}

beforeAll(async () => {
  fake = await startFakeOpenAI({ script: handler });
  home = tempDir("astrion-home-");
  writeModels();
  project = tempDir("astrion-project-");
  file("README.md", "# Payments\n\nThe payment service.\n\n## Configuration\n\nThe `retry_delay_ms` setting defaults to 250 milliseconds.\n\n## Deployment\n\nDeploy with the container image.\n");
  file("docs/orders.md", "# Orders API\n\n## Fields\n\n| field | meaning |\n|---|---|\n| order_id | the order's unique id |\n| amount_cents | the amount in cents |\n");
  file("src/retry.ts", "/** Retries a call with a growing delay. */\nexport function retryWithBackoff(call: () => Promise<void>, attempts = 3): Promise<void> {\n  return call();\n}\n");
  file("src/refund.ts", "export function computeRefund(amountCents: number): number {\n  return Math.round(amountCents * 0.9);\n}\n");
  file(".gitignore", "secret/\n");
  file("secret/notes.md", "# Secret\n\nretry_delay_ms is 999 in the secret notes\n");
  server = await startServer({ home, env: { FAKE_OPENAI_KEY: "sk-fake-test-key", ASTRION_LEADER_BATCH_MS: "20" } });
});

afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

describe("search_knowledge through the engine", () => {
  it("offers it to a precise-fact task, which gets file:line-range passages; routing and call are on the timeline", async () => {
    const task = "What is the default value of the retry delay setting, and which file defines it?";
    const { entry, records } = await run(task);
    expect(entry.tools).toContain("search_knowledge");
    expect(entry.system).toContain("search_knowledge(query, paths?) finds the passages");
    const answer = JSON.parse(entry.result!);
    expect(answer.passages[0]).toMatchObject({ location: "README.md:5-8", file: "README.md", lines: "5-8", heading: "Payments > Configuration" });
    expect(answer.passages[0].text).toContain("defaults to 250 milliseconds");
    expect(answer).toMatchObject({ ranking: "bm25", reranked: false, index: { state: "ready" } });
    // the gitignored folder is not indexed
    expect(JSON.stringify(answer.passages)).not.toContain("secret/");
    const routing = records.find((r) => r.action === "knowledge_routing")!;
    expect(routing.envelope.payload).toMatchObject({ offered: true, precise_cues: expect.arrayContaining(["default value", "which file"]) });
    const call = records.find((r) => r.action === "search_knowledge")!;
    expect(call.status).toBe("ok");
    expect(call.envelope.payload).toMatchObject({ passages: expect.arrayContaining(["README.md:5-8"]), ranking: "bm25", reranked: false });
  });

  it("does not offer it to an explanatory task, and refuses a call made anyway", async () => {
    const { entry, records } = await run("Explain the architecture of this project in plain words.");
    expect(entry.tools).not.toContain("search_knowledge");
    expect(entry.system).not.toContain("search_knowledge(query, paths?)");
    const routing = records.find((r) => r.action === "knowledge_routing")!;
    expect(routing.envelope.payload).toMatchObject({ offered: false, precise_cues: [], explanatory_cues: expect.arrayContaining(["explain", "architecture"]) });

    const forced = await run("Summarize the project and explain its design [force]");
    expect(forced.entry.tools).not.toContain("search_knowledge");
    expect(JSON.parse(forced.entry.result!).error).toMatch(/search_knowledge is not offered for this task/);
    expect(forced.records.find((r) => r.action === "search_knowledge")).toMatchObject({ status: "refused", envelope: { payload: { code: "not_offered" } } });
  });

  it("narrows by paths and refuses a path outside the project", async () => {
    const { entry } = await run("Which field holds the order amount in cents? [docs]");
    const answer = JSON.parse(entry.result!);
    expect(answer.passages.length).toBeGreaterThan(0);
    expect(answer.passages.every((p: { file: string }) => p.file.startsWith("docs/"))).toBe(true);
    expect(answer.passages[0]).toMatchObject({ file: "docs/orders.md", heading: "Orders API > Fields" });

    const escape = await run("Which field holds the order id? [escape]");
    expect(JSON.parse(escape.entry.result!).error).toMatch(/contains a "\.\." segment/);
    expect(escape.records.find((r) => r.action === "search_knowledge")).toMatchObject({ status: "refused", envelope: { payload: { code: "parent_segment" } } });
  });

  it("reranks with the reranker key, and keeps the lexical order when its answer is unusable", async () => {
    writeModels({ reranker: "judge" });
    // the reranker puts the last passage it is shown first
    fake.reset();
    rerankAnswer = JSON.stringify({ scores: [{ id: 1, score: 0.1 }, { id: 2, score: 0.2 }, { id: 3, score: 0.95 }] });
    const task = "Where is the retry function with backoff defined? Which file?";
    const { entry, records } = await run(task);
    const answer = JSON.parse(entry.result!);
    expect(answer.reranked).toBe(true);
    const judged = fake.requests.find((r) => r.body?.model === "judge-model")!;
    expect(judged).toBeTruthy();
    const shown = [...String((judged.body!.messages as Msg[])[1]!.content).matchAll(/^\[(\d+)\] (\S+)/gm)].map((m) => m[2]);
    expect(shown.length).toBeGreaterThanOrEqual(3);
    expect(answer.passages[0].location).toBe(shown[2]);
    expect(records.find((r) => r.action === "search_knowledge")!.envelope.payload).toMatchObject({ reranked: true, reranker: "judge" });

    rerankAnswer = "I think passage 2 is best.";
    const bad = await run("Which file sets the default retry delay, and where is the retry function defined?");
    const badAnswer = JSON.parse(bad.entry.result!);
    expect(badAnswer.passages.length).toBeGreaterThan(1);
    expect(badAnswer.reranked).toBe(false);
    expect(badAnswer.note).toMatch(/reranker "judge" failed .*the lexical order is kept/);
    writeModels();
  });

  it("ranks with vectors from the embedding key's /v1/embeddings", async () => {
    writeModels({ embedding: "emb" });
    fake.reset();
    const { entry } = await run("Where is the default value of the retry delay setting defined?");
    const answer = JSON.parse(entry.result!);
    expect(answer.ranking).toBe("bm25+vectors");
    expect(answer.passages[0].file).toBe("README.md");
    const embedCalls = fake.requests.filter((r) => /\/embeddings$/.test(r.path));
    expect(embedCalls.length).toBeGreaterThanOrEqual(2);
    expect(embedCalls.every((r) => r.body?.model === "fake-embedding")).toBe(true);
    writeModels();
  });
});

describe("knowledge API", () => {
  it("lists the project's index with its progress and rebuilds it", async () => {
    const report = (await server.api("GET", "/api/knowledge")).json;
    const row = report.projects.find((p: { project_path: string }) => p.project_path.endsWith(path.basename(project)));
    expect(row).toMatchObject({ state: "ready", files_total: row.files_indexed });
    expect(row.files_indexed).toBeGreaterThanOrEqual(4);
    expect(row.skipped.gitignored).toBeGreaterThanOrEqual(1);
    expect(typeof row.last_update).toBe("string");
    expect(report.limits).toMatchObject({ max_file_bytes: 262144, max_files: 20000 });

    const bad = await server.api("POST", "/api/knowledge/rebuild", { project_path: "" });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe("validation_failed");
    const extra = await server.api("POST", "/api/knowledge/rebuild", { project_path: project, force: true });
    expect(extra.status).toBe(400);
    const unknown = await server.api("POST", "/api/knowledge/rebuild", { project_path: "/etc" });
    expect(unknown.status).toBe(404);
    const ok = await server.api("POST", "/api/knowledge/rebuild", { project_path: project });
    expect(ok.status).toBe(202);
    expect(ok.json.project.state).toBe("building");
    await until("the rebuild finished", async () => {
      const r = (await server.api("GET", "/api/knowledge")).json;
      const p = r.projects.find((x: { project_path: string }) => x.project_path === row.project_path);
      return p.state === "ready" && p.files_indexed === row.files_indexed ? p : null;
    });
  });
});
