/**
 * Tool results that do not fit the tool output cap reach the model as valid JSON, against the
 * real server and a scripted model (ASTRION_TOOL_OUTPUT_MAX=3000):
 * - search_files with thousands of matches: whole matches, `omitted` counting the rest, a note;
 * - list_files of a wide folder: whole entries and a count;
 * - read_file of a long file: cut at a line boundary, lines shown of the total;
 * - read_shared_context (no shaping of its own) holding 60,000 characters: shrunk by the generic
 *   cap, still JSON;
 * all kept so in the agent's messages.json; what the model is then sent may be cut further by the
 * context window to fit its scene budget, and is still valid JSON.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeText, fakeToolCalls, startFakeOpenAI, type FakeOpenAI, type FakeRequestBody } from "./helpers/fake-openai";
import { startServer, tempDir, type TestServer } from "./helpers/server";
import { until } from "./helpers/wait";

type Msg = { role: string; content?: string | null; tool_calls?: Array<{ id: string }>; tool_call_id?: string };

const CAP = 3000;
const FILES = 40;
const LINES = 60;
const LOG_LINES = 4000;

let fake: FakeOpenAI;
let server: TestServer;
let project: string;
/** The tool results the agent's model was sent, by call id. */
const sent = new Map<string, string>();

const msgs = (b: FakeRequestBody) => (b.messages ?? []) as Msg[];
const isLeader = (b: FakeRequestBody) => JSON.stringify(b.tools ?? []).includes("create_sub_agent");
const reported = (b: FakeRequestBody) => msgs(b).some((m) => m.role === "user" && String(m.content).includes("的任务完成汇报"));

function handler(body: FakeRequestBody) {
  if (isLeader(body)) {
    if (!msgs(body).some((m) => (m.tool_calls ?? []).length)) return fakeToolCalls([{ name: "create_sub_agent", arguments: { role_id: "researcher", task: "Look at the project" } }]);
    return fakeText(reported(body) ? "SUMMARY done" : "waiting");
  }
  const results = msgs(body).filter((m) => m.role === "tool");
  if (results.length === 0) {
    return fakeToolCalls([
      { id: "t_search", name: "search_files", arguments: { query: "atomic" } },
      { id: "t_list", name: "list_files", arguments: { path: "wide" } },
      { id: "t_read", name: "read_file", arguments: { path: "log.txt" } },
      { id: "t_shared", name: "read_shared_context", arguments: {} },
    ]);
  }
  for (const m of results) sent.set(m.tool_call_id!, String(m.content));
  return fakeToolCalls([{ id: "t_report", name: "report_to_leader", arguments: { summary: "looked" } }]);
}

beforeAll(async () => {
  fake = await startFakeOpenAI({ script: handler });
  const home = tempDir("astrion-home-");
  writeFileSync(
    path.join(home, "models.json"),
    JSON.stringify({ default: "fake", models: { fake: { base_url: fake.url, api_key_env: "FAKE_OPENAI_KEY", model: "fake-model", timeouts: { idle_ms: 60_000 } } } }),
  );
  project = tempDir("astrion-project-");
  mkdirSync(path.join(project, "src"));
  for (let f = 0; f < FILES; f++) {
    writeFileSync(path.join(project, "src", `m${String(f).padStart(2, "0")}.ts`), Array.from({ length: LINES }, (_, i) => `export const atomic_${f}_${i} = "中文 \\"q\\"";`).join("\n") + "\n");
  }
  mkdirSync(path.join(project, "wide"));
  for (let i = 0; i < 400; i++) writeFileSync(path.join(project, "wide", `entry-${String(i).padStart(3, "0")}.md`), "x");
  writeFileSync(path.join(project, "log.txt"), Array.from({ length: LOG_LINES }, (_, i) => `${i}\tevent "ok"\tvalue=${i * 7}`).join("\n") + "\n");
  server = await startServer({ home, env: { FAKE_OPENAI_KEY: "sk-fake-test-key", ASTRION_LEADER_BATCH_MS: "20", ASTRION_TOOL_OUTPUT_MAX: String(CAP) } });
});

afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

describe("tool results over the output cap", () => {
  it("reach the model as valid JSON within the cap, cut by whole items, lines or structure", async () => {
    const conv = (await server.api("POST", "/api/conversations", { title: "Shapes", project_path: project })).json.conversation;
    for (let k = 0; k < 3; k++) {
      const put = await server.api("PUT", `/api/conversations/${conv.id}/shared-context`, { key: `notes_${k}`, value: `${k}:${"note text 中文 ".repeat(1500)}`, mode: "append" });
      expect(put.status).toBe(200);
    }
    await server.api("POST", `/api/conversations/${conv.id}/messages`, { content: "Go" });
    await until("the agent's model saw its tool results", () => sent.size === 4, 60_000);

    // what the agent's messages.json keeps: each result within the cap, shaped by the tool itself
    const { agents } = (await server.api("GET", `/api/conversations/${conv.id}/agents`)).json;
    const detail = (await server.api("GET", `/api/conversations/${conv.id}/agents/${agents[0].metadata.agent_id}`)).json;
    const saved = new Map<string, string>(detail.messages.filter((m: Msg) => m.role === "tool").map((m: Msg) => [m.tool_call_id!, String(m.content)]));
    for (const id of sent.keys()) {
      const text = saved.get(id)!;
      expect(text.length, id).toBeLessThanOrEqual(CAP);
      expect(() => JSON.parse(text), id).not.toThrow();
    }

    const search = JSON.parse(saved.get("t_search")!) as { matches: Array<{ path: string; line: number; text: string }>; truncated: boolean; omitted: number; note: string };
    const shown = search.matches.length;
    expect(shown).toBeGreaterThan(10);
    search.matches.forEach((m, k) => expect(m).toEqual({ path: `src/m${String(Math.floor(k / LINES)).padStart(2, "0")}.ts`, line: (k % LINES) + 1, text: `export const atomic_${Math.floor(k / LINES)}_${k % LINES} = "中文 \\"q\\"";` }));
    expect(search).toMatchObject({ truncated: true, omitted: FILES * LINES - shown, note: `${FILES * LINES - shown} more matches not shown; narrow the query (a more specific word, or path/glob)` });

    const list = JSON.parse(saved.get("t_list")!) as { entries: Array<{ path: string }>; truncated: boolean; omitted: number; note: string };
    expect(list.entries[0]).toEqual({ path: "wide/entry-000.md", type: "file", size: 1 });
    expect(list).toMatchObject({ truncated: true, omitted: 400 - list.entries.length, note: `${400 - list.entries.length} more files not shown; list a subfolder` });

    const read = JSON.parse(saved.get("t_read")!) as { content: string; truncated: boolean; linesShown: number; totalLines: number; note: string };
    expect(read.content.endsWith("\n")).toBe(true);
    expect(read.content.split("\n").length - 1).toBe(read.linesShown);
    expect(read).toMatchObject({ truncated: true, totalLines: LOG_LINES, note: expect.stringMatching(new RegExp(`^lines 1-${read.linesShown} of ${LOG_LINES} shown`)) });

    // the shared context has no shaping of its own: the generic cap shrank its JSON
    const shared = saved.get("t_shared")!;
    expect(shared).toMatch(/…\[cut \d+ chars\]/);
    expect(shared).toContain("notes_0");

    // what the model was sent: the same, or cut further by the context window (3,000-token scene)
    // — and still JSON, its matches the first of those saved
    for (const [id, text] of sent) {
      expect(() => JSON.parse(text), id).not.toThrow();
      expect(text.length, id).toBeLessThanOrEqual(saved.get(id)!.length);
    }
    const sentMatches = (JSON.parse(sent.get("t_search")!) as { matches: unknown[] }).matches.filter((m) => typeof m !== "string");
    expect(sentMatches.length).toBeGreaterThan(0);
    expect(sentMatches).toEqual(search.matches.slice(0, sentMatches.length));
  });
});
