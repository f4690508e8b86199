/**
 * No input within the documented limits may block the server's event loop for more than 200 ms.
 * Against the real built server: the largest bodies each API route accepts (and one byte more),
 * in shapes that stall naive tokenizers, parsers and regular expressions; the largest tool
 * arguments a model may send, through a scripted fake model; deeply nested JSON to every JSON
 * route; and a restart that resumes a conversation holding a 1,000,000-character message.
 * The server reports its own event-loop delay per second in `GET /api/health`; every attack is
 * measured there, while `/api/health` is pinged and must keep answering. An idle probe process runs
 * beside the server: a second over the budget fails the test only when the probe was on time then
 * (the app held its loop); one the machine held too is reported on stderr, not failed.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { judged, measured as measuredBy, type LoopMeasure } from "./helpers/event-loop";
import { startLoopProbe, type LoopProbe } from "./helpers/loop-probe";
import { fakeText, fakeToolCalls, startFakeOpenAI, type FakeOpenAI, type FakeRequestBody, type FakeToolCall, type Script } from "./helpers/fake-openai";
import { seedRolesAllowingWrites } from "./helpers/roles";
import { snapshotOf, startServer, tempDir, type TestServer } from "./helpers/server";
import { until } from "./helpers/wait";
import { writeFakeModels } from "./helpers/models-file";

/** The guarantee, as the README states it. */
const BUDGET_MS = 200;

type Msg = { role: string; content?: string | null; tool_call_id?: string; tool_calls?: Array<{ function: { name: string; arguments: string } }> };

let fake: FakeOpenAI;
let server: TestServer;
let probe: LoopProbe;
let home: string;
let project: string;

// ---------------------------------------------------------------- texts

const MILLION = 1_000_000;
/** Deterministic CJK text: varied characters, no punctuation (one tokenizer piece per run). */
const cjk = (n: number) => Array.from({ length: n }, (_, i) => String.fromCodePoint(0x4e00 + ((i * 7919) % 20_000))).join("");
const base64 = (n: number) => Buffer.from(Array.from({ length: Math.ceil((n * 3) / 4) }, (_, i) => (i * 7919 + (i >> 3)) % 256)).toString("base64").slice(0, n);
/** Shapes that were quadratic somewhere (tokenizer, a regular expression, the offline model), each `n` characters. */
const shapes = (n: number): Array<[string, string]> => [
  ["one character", "x".repeat(n)],
  ["two alternating characters", "xy".repeat(n / 2)],
  ["digits", "1234567890".repeat(n / 10)],
  ["base64", base64(n)],
  ["a CJK run", cjk(n)],
  ["spaces then a letter", `${" ".repeat(n - 1)}x`],
  ["newlines", "\n".repeat(n - 1) + "x"],
  ["a conclusion marker and spaces", `CONCLUSION:${" ".repeat(n - 20)}\u2028x`],
  ["a. a. a.", "a.".repeat(n / 2)],
  ["role words", "review test ui color security docs research ".repeat(n / 44)],
];

// ---------------------------------------------------------------- the scripted model

function msgs(body: FakeRequestBody): Msg[] {
  return (body.messages ?? []) as Msg[];
}
function system(body: FakeRequestBody): string {
  return String(msgs(body)[0]?.content ?? "");
}
function isLeader(body: FakeRequestBody): boolean {
  return JSON.stringify(body.tools ?? []).includes("create_sub_agent");
}
const scenarioOf = (body: FakeRequestBody) => /Conversation: (\S+)/.exec(system(body))?.[1] ?? "?";
const selfId = (body: FakeRequestBody) => Number(/agent id (\d+)/.exec(system(body))?.[1] ?? 0);
const roleOf = (body: FakeRequestBody) => /role ([^)]+)\)/.exec(system(body))?.[1] ?? "";
const last = (body: FakeRequestBody) => msgs(body)[msgs(body).length - 1]!;

/** Model calls per agent so far: agents follow a fixed list of steps, one per call. */
const steps = new Map<string, number>();
function step(key: string): number {
  const n = steps.get(key) ?? 0;
  steps.set(key, n + 1);
  return n;
}
/** Reports the leader has seen per scenario (the scene may leave older ones out). */
const seenReports = new Map<string, Set<string>>();

const call = (name: string, args: Record<string, unknown> | string): FakeToolCall => ({ name, arguments: args });
const calls = (...list: FakeToolCall[]) => fakeToolCalls(list);

/** The pathological globs of `search_files`: each must be refused or matched quickly. */
const GLOBS = [
  `${"**/".repeat(18)}Z`,
  `${"**".repeat(18)}Z`,
  "*a*a*a*a*Z",
  "{1..100000}",
  "{1..1000000}",
  "{a,{b,{c,{d}}}}",
  `{${Array.from({ length: 100 }, (_, i) => `a${i}`).join(",")}}`,
  "+(a|aa)+(a|aa)+(a|aa)Z",
  "(a|aa)+(a|aa)+Z",
  "@(a|b)*(c)!(d)",
  `${"?".repeat(100)}*Z`,
  "[a]*[a]*Z",
  "a/".repeat(100),
];

/** `text` cut to at most `bytes` bytes of UTF-8 (write_file takes at most 1,000,000 bytes as well as characters). */
function fitBytes(text: string, bytes: number): string {
  let out = text;
  while (Buffer.byteLength(out) > bytes) out = Array.from(out).slice(0, Math.floor(Array.from(out).length * (bytes / Buffer.byteLength(out)))).join("");
  return out;
}

/** write_file contents at the limit, one agent each: an agent's history holds one of them (`write-<index>`). */
const WRITES = shapes(MILLION).map(([name, text]): [string, string] => [name, fitBytes(text, MILLION)]);

function engineerStep(body: FakeRequestBody, n: number): Script {
  const teammate = selfId(body) + 1;
  switch (n) {
    case 0:
      return calls(call("write_file", { path: "big/x.txt", content: "x".repeat(MILLION) }));
    case 1:
      return calls(call("update_shared_context", { key: "k".repeat(200), value: "v".repeat(20_000), mode: "append" }), call("update_shared_context", { key: "plan", value: cjk(20_000), mode: "overwrite", expected_version: 1 }));
    case 2:
      return calls(call("search_files", { query: "q".repeat(500) }), ...GLOBS.map((glob) => call("search_files", { query: "x", glob })));
    case 3:
      return calls(call("send_message", { agent_id: teammate, content: "m".repeat(20_000) }));
    case 4:
      return calls(call("ask_master", { question: "Q".repeat(5000) }));
    case 5:
      return calls(call("report_to_leader", { summary: "s".repeat(50_000) }));
    default:
      return fakeText("noted");
  }
}

/** Over the limits: each must come back as a tool error, at the cost of a length check. */
function overStep(n: number): Script {
  if (n === 0)
    return calls(
      call("write_file", { path: "big/over.txt", content: "x".repeat(MILLION + 1) }),
      call("write_file", `{"path":"deep.txt","content":${"[".repeat(100_000)}${"]".repeat(100_000)}}`),
      call("report_to_leader", { summary: "s".repeat(400_000) }),
    );
  return n === 1 ? calls(call("report_to_leader", { summary: "refused, as expected" })) : fakeText("noted");
}

function writerStep(index: number, n: number): Script {
  const [name, content] = WRITES[index]!;
  if (n === 0) return calls(call("write_file", { path: `big/${name.replace(/\W+/g, "-")}.txt`, content }));
  return n === 1 ? calls(call("report_to_leader", { summary: `wrote ${name}` })) : fakeText("noted");
}

function researcherStep(n: number): Script {
  switch (n) {
    case 0:
      return calls(call("read_file", { path: "big/x.txt" }), call("list_files", { path: "p".repeat(4096) }));
    case 1:
      return calls(call("search_files", { query: "x".repeat(500), glob: "*.txt" }), call("read_shared_context", {}));
    case 2:
      return calls(call("report_to_leader", { summary: cjk(50_000) }));
    default:
      return fakeText("noted");
  }
}

function leaderStep(s: string, body: FakeRequestBody): Script {
  const m = msgs(body);
  const reports = seenReports.get(s) ?? new Set<string>();
  seenReports.set(s, reports);
  for (const r of m) {
    const id = /的任务完成汇报\nid: (\S+)/.exec(String(r.content ?? ""))?.[1];
    if (id) reports.add(id);
  }
  const question = last(body).role === "user" ? /的消息\nid: (ask_\w+)/.exec(String(last(body).content ?? "")) : null;
  const n = step(`${s}:leader`);
  if (s === "tools") {
    if (n === 0) return calls(call("create_sub_agent", { role_id: "full-stack-engineer", task: `W${"x".repeat(19_999)}` }), call("create_sub_agent", { role_id: "researcher", task: "ab".repeat(10_000) }));
    if (n === 1) {
      const created = m.filter((x) => x.role === "tool").map((x) => /"agent_id":(\d+)/.exec(String(x.content))?.[1]).filter(Boolean);
      return calls(
        call("send_message_to_agent", { agent_id: Number(created[0]), content: "m".repeat(20_000) }),
        call("broadcast", { content: cjk(20_000) }),
        call("update_shared_context", { key: "plan", value: "p".repeat(20_000), mode: "overwrite", expected_version: 0 }),
      );
    }
    if (question) return calls(call("answer_question", { question_id: question[1], answer: "A".repeat(20_000) }));
    return fakeText(reports.size >= 2 ? "SUMMARY tools" : "waiting");
  }
  if (s === "over" || s.startsWith("write-")) {
    if (n === 0) return calls(call("create_sub_agent", { role_id: "full-stack-engineer", task: "Write" }));
    return fakeText(reports.size >= 1 ? `SUMMARY ${s}` : "waiting");
  }
  if (s === "ask") {
    if (n === 0) return calls(call("create_sub_agent", { role_id: "researcher", task: "Ask the person" }));
    return fakeText(reports.size >= 1 ? "SUMMARY ask" : "the person will answer");
  }
  if (s === "restart") {
    // The answer to the million-character message comes late, so the work around it happens
    // after start-up, inside the measured window.
    const text = String(last(body).content ?? "");
    return text.length >= MILLION ? fakeText("SUMMARY restart", { delayMs: 3000 }) : fakeText("ok");
  }
  return fakeText(`SUMMARY ${s}`);
}

function handler(body: FakeRequestBody): Script {
  const s = scenarioOf(body);
  if (isLeader(body)) return leaderStep(s, body);
  const n = step(`${s}:${selfId(body)}`);
  if (s === "tools") return roleOf(body).startsWith("Full-Stack") ? engineerStep(body, n) : researcherStep(n);
  if (s === "over") return overStep(n);
  if (s.startsWith("write-")) return writerStep(Number(s.slice(6)), n);
  if (s === "ask") return n === 0 ? calls(call("ask_master", { question: "Which one?" })) : n === 1 ? calls(call("report_to_leader", { summary: "answered" })) : fakeText("noted");
  return fakeText("noted");
}

// ---------------------------------------------------------------- helpers

function writeModels(url: string) {
  writeFakeModels(home, url, { timeouts: { idle_ms: 20_000, first_response_ms: 20_000 } });
}

const serverEnv = { FAKE_OPENAI_KEY: "sk-fake", ASTRION_LEADER_BATCH_MS: "30", ASTRION_OFFLINE_DELAY_MS: "0", ASTRION_INBOX_LIMIT: "50" };

async function newConversation(title: string, model_key?: string): Promise<string> {
  const res = await server.api("POST", "/api/conversations", { title, project_path: project, ...(model_key ? { model_key } : {}) });
  expect(res.status).toBe(201);
  return res.json.conversation.id;
}

async function leaderMessages(id: string): Promise<Msg[]> {
  return (await server.api("GET", `/api/conversations/${id}/messages`)).json.messages;
}

/** The first event of the conversation's stream: the whole live state. */
async function snapshot(id: string): Promise<{ leader: { busy: boolean }; agents: Array<{ metadata: { status: string } }> }> {
  return snapshotOf(server, id);
}

/** Waits until the conversation's leader is idle and no agent runs (agents waiting for a person are at rest). */
async function settled(id: string, timeoutMs = 90_000): Promise<void> {
  await until(
    `${id} at rest`,
    async () => {
      const snap = await snapshot(id);
      return !snap.leader.busy && snap.agents.every((a) => a.metadata.status !== "running");
    },
    timeoutMs,
  );
}

/**
 * Waits until the server has finished starting: Next loads the app's code in the first seconds
 * after it answers (about a second of work, once per process, whatever the input), which the
 * guarantee does not cover. Done when two seconds in a row stayed within the budget.
 */
async function startedUp(): Promise<void> {
  await until(
    "start-up finished",
    async () => {
      const seconds = (await server.api("GET", "/api/health")).json.event_loop.max_ms_per_second as Array<{ max_ms: number }>;
      return seconds.length >= 3 && seconds.slice(-2).every((x) => x.max_ms <= BUDGET_MS / 2);
    },
    30_000,
  );
}

/** The tool results an agent of `roleId` got in a conversation. */
async function toolResults(id: string, roleId: string): Promise<string[]> {
  const { agents } = (await server.api("GET", `/api/conversations/${id}/agents`)).json;
  const agent = agents.find((a: { metadata: { role_id: string } }) => a.metadata.role_id === roleId);
  const detail = (await server.api("GET", `/api/conversations/${id}/agents/${agent.metadata.agent_id}`)).json;
  return detail.messages.filter((x: Msg) => x.role === "tool").map((x: Msg) => String(x.content));
}

/**
 * Serves every API route once and runs one small offline conversation. The first request to a
 * route loads its code, and the first model call loads the runtime and the tokenizer (a few
 * hundred milliseconds, once per process, whatever the input): start-up work, not input handling.
 */
async function warmUp(): Promise<void> {
  const id = await newConversation("warm-up", "offline");
  const bad = { nope: true };
  for (const [method, p, body] of [
    ["GET", "/api/conversations", undefined],
    ["GET", "/api/models", undefined],
    ["GET", "/api/roles", undefined],
    ["GET", "/api/roles/researcher", undefined],
    ["PUT", "/api/roles/researcher", bad],
    ["POST", "/api/roles", bad],
    ["POST", "/api/roles/import", bad],
    ["DELETE", "/api/roles/no-such-role", undefined],
    ["POST", "/api/auth/signin", bad],
    ["GET", `/api/conversations/${id}`, undefined],
    ["PATCH", `/api/conversations/${id}`, bad],
    ["GET", `/api/conversations/${id}/messages`, undefined],
    ["POST", `/api/conversations/${id}/messages`, bad],
    ["GET", `/api/conversations/${id}/agents`, undefined],
    ["GET", `/api/conversations/${id}/agents/1`, undefined],
    ["POST", `/api/conversations/${id}/agents/1/messages`, bad],
    ["POST", `/api/conversations/${id}/agents/1/answers`, bad],
    ["DELETE", `/api/conversations/${id}/agents/1`, undefined],
    ["GET", `/api/conversations/${id}/timeline`, undefined],
    ["GET", `/api/conversations/${id}/context/msg_none`, undefined],
    ["GET", `/api/conversations/${id}/shared-context`, undefined],
    ["PUT", `/api/conversations/${id}/shared-context`, bad],
    ["POST", `/api/conversations/${id}/shared-context/decisions`, bad],
    ["POST", `/api/conversations/${id}/stop`, undefined],
    ["GET", "/api/nowhere", undefined],
  ] as const) {
    await server.api(method, p, body);
  }
  await server.api("POST", `/api/conversations/${id}/messages`, { content: "Review the README" });
  await until("the warm-up answer", async () => (await leaderMessages(id)).some((x) => x.role === "assistant"), 60_000);
  await settled(id);
}

/** An attack measured with the idle probe beside the server. */
const measured = (s: TestServer, attack: () => Promise<void>) => measuredBy(s, attack, probe);

/**
 * Fails when a second since the attack began was over the budget and the app held it: the idle
 * probe beside the server was on time then. A second the machine held (the probe was held as long)
 * is reported, not failed (see test/helpers/loop-verdict.ts).
 */
function expectWithinBudget(m: LoopMeasure): void {
  expect(m.complete, "the attack outlasted the 60 s the server keeps").toBe(true);
  expect(m.seconds.length).toBeGreaterThan(0);
  expect(m.pings).toBeGreaterThan(0);
  expect(m.failedPings).toEqual([]);
  expect(m.probe, "the idle probe answered").not.toBeNull();
  const verdict = judged(m, BUDGET_MS);
  expect(verdict.kind === "app" ? verdict.message : "", `event-loop delay per second: ${JSON.stringify(m.seconds)}`).toBe("");
}

/** A JSON body of exactly `bytes` bytes: `{"content":"xxx…"}`. */
const bodyOfBytes = (bytes: number) => `{"content":"${"x".repeat(bytes - 14)}"}`;

beforeAll(async () => {
  probe = await startLoopProbe();
  fake = await startFakeOpenAI({ script: handler });
  home = tempDir("astrion-home-");
  // The product roles, allowing writes: this file tests the engine, not approval.
  seedRolesAllowingWrites(home);
  writeModels(fake.url);
  project = tempDir("astrion-project-");
  writeFileSync(path.join(project, "README.md"), "# Demo\n\nA demo project.\n");
  writeFileSync(path.join(project, `${"a".repeat(200)}.txt`), "a long name\n");
  server = await startServer({ home, env: serverEnv });
  await startedUp();
  await warmUp();
});

afterAll(async () => {
  if (process.env.DEBUG_SERVER_OUTPUT) console.log(server?.output());
  await server?.stop();
  await fake?.close();
  await probe?.stop();
});

// ---------------------------------------------------------------- the attacks

describe("a person's messages", () => {
  it.each(shapes(100_000))("the largest message allowed, of %s, is accepted and handled without blocking", async (name, content) => {
    const id = await newConversation(`shape-${name.replace(/\W+/g, "-")}`, "offline");
    const m = await measured(server, async () => {
      const res = await server.api("POST", `/api/conversations/${id}/messages`, { content });
      expect(res.status).toBe(202);
      await until("the leader answered", async () => (await leaderMessages(id)).some((x) => x.role === "assistant"), 60_000);
      await settled(id);
    });
    expectWithinBudget(m);
  });

  it("one character more is a 400, one byte over the body limit a 413 answered before the body is read", async () => {
    const id = await newConversation("limits", "offline");
    const m = await measured(server, async () => {
      expect((await server.api("POST", `/api/conversations/${id}/messages`, { content: "x".repeat(100_001) })).status).toBe(400);
      const limit = 512 * 1024;
      const headers = { "content-type": "application/json", origin: server.url };
      expect((await server.request({ method: "POST", path: `/api/conversations/${id}/messages`, headers, body: bodyOfBytes(limit) })).status).toBe(400);
      const over = await server.request({ method: "POST", path: `/api/conversations/${id}/messages`, headers, body: bodyOfBytes(limit + 1) });
      expect(over.status).toBe(413);
      expect(over.json.error.code).toBe("payload_too_large");
    });
    expectWithinBudget(m);
  });
});

describe("a model's largest tool arguments", () => {
  it("every tool at its limit, over it, and with hostile globs: answered, never blocking", async () => {
    const id = await newConversation("tools");
    const m = await measured(server, async () => {
      expect((await server.api("POST", `/api/conversations/${id}/messages`, { content: "Build it" })).status).toBe(202);
      await until("SUMMARY tools", async () => (await leaderMessages(id)).some((x) => String(x.content ?? "").includes("SUMMARY tools")), 100_000);
      await settled(id);
    });
    expectWithinBudget(m);

    // The work really happened: the file written at full size, hostile globs refused with reasons.
    expect(readFileSync(path.join(project, "big/x.txt"), "utf8")).toHaveLength(MILLION);
    const results = await toolResults(id, "full-stack-engineer");
    for (const reason of [/ranges like \{1\.\.9\}/, /nested \{…\} groups/, /in one path segment/]) expect(results.some((r) => reason.test(r)), String(reason)).toBe(true);
    const shared = (await server.api("GET", `/api/conversations/${id}/shared-context`)).json.shared_context;
    expect(shared.entries["k".repeat(200)].value).toHaveLength(20_000);
  });

  it("arguments over a tool's limits come back as tool errors, without blocking", async () => {
    const id = await newConversation("over");
    const m = await measured(server, async () => {
      await server.api("POST", `/api/conversations/${id}/messages`, { content: "Write too much" });
      await until("SUMMARY over", async () => (await leaderMessages(id)).some((x) => x.content === "SUMMARY over"), 60_000);
      await settled(id);
    });
    expectWithinBudget(m);
    const results = await toolResults(id, "full-stack-engineer");
    expect(results.some((r) => /content: .*1000000/.test(r))).toBe(true);
    expect(results.some((r) => /more than 64 levels/.test(r))).toBe(true);
    expect(results.some((r) => /arguments refused: they are \d+ characters/.test(r))).toBe(true);
  });

  it.each(WRITES.map(([name], i) => [name, i] as const))("write_file of 1,000,000 characters of %s, without blocking", async (name, index) => {
    const id = await newConversation(`write-${index}`);
    const m = await measured(server, async () => {
      await server.api("POST", `/api/conversations/${id}/messages`, { content: "Write" });
      await until(`SUMMARY write-${index}`, async () => (await leaderMessages(id)).some((x) => x.content === `SUMMARY write-${index}`), 60_000);
      await settled(id);
    });
    expectWithinBudget(m);
    expect(readFileSync(path.join(project, `big/${name.replace(/\W+/g, "-")}.txt`), "utf8")).toBe(WRITES[index]![1]);
  });

  it("a person answers a question and messages an agent with the largest texts allowed", async () => {
    const id = await newConversation("ask");
    const m = await measured(server, async () => {
      await server.api("POST", `/api/conversations/${id}/messages`, { content: "Go" });
      const question = await until("a question", async () => (await server.api("GET", `/api/conversations/${id}/agents`)).json.questions[0]);
      const answer = await server.api("POST", `/api/conversations/${id}/agents/${question.agent_id}/answers`, { question_id: question.question_id, answer: "a".repeat(100_000) });
      expect(answer.status).toBe(200);
      await until("SUMMARY ask", async () => (await leaderMessages(id)).some((x) => String(x.content ?? "").includes("SUMMARY ask")), 60_000);
      const msg = await server.api("POST", `/api/conversations/${id}/agents/${question.agent_id}/messages`, { content: cjk(100_000) });
      expect(msg.status).toBe(202);
      await settled(id);
    });
    expectWithinBudget(m);
  });
});

describe("request bodies", () => {
  /** Every JSON route with ids that exist, and its body limit. */
  async function routes(): Promise<Array<{ method: string; path: string; limit: number }>> {
    const id = await newConversation("routes");
    return [
      { method: "POST", path: "/api/conversations", limit: 64 * 1024 },
      { method: "PATCH", path: `/api/conversations/${id}`, limit: 128 * 1024 },
      { method: "POST", path: `/api/conversations/${id}/messages`, limit: 512 * 1024 },
      { method: "POST", path: `/api/conversations/${id}/agents/1/messages`, limit: 512 * 1024 },
      { method: "POST", path: `/api/conversations/${id}/agents/1/answers`, limit: 512 * 1024 },
      { method: "PUT", path: `/api/conversations/${id}/shared-context`, limit: 128 * 1024 },
      { method: "POST", path: `/api/conversations/${id}/shared-context/decisions`, limit: 16 * 1024 },
      { method: "POST", path: "/api/roles", limit: 1024 * 1024 },
      { method: "PUT", path: "/api/roles/researcher", limit: 1024 * 1024 },
      { method: "POST", path: "/api/roles/import", limit: 1024 * 1024 },
      { method: "POST", path: "/api/auth/signin", limit: 4 * 1024 },
    ];
  }

  it("deeply nested JSON to every JSON route is refused with a 400 or 413, never parsed into a stall", async () => {
    const list = await routes();
    const headers = { "content-type": "application/json", origin: "" };
    const m = await measured(server, async () => {
      for (const r of list) {
        headers.origin = server.url;
        const arrays = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
        const fits = Math.floor((r.limit - 16) / 2);
        const objects = `${'{"a":'.repeat(Math.floor(fits / 3))}1${"}".repeat(Math.floor(fits / 3))}`;
        for (const body of [arrays, `${"[".repeat(fits)}${"]".repeat(fits)}`, objects.length <= r.limit ? objects : "[]"]) {
          const res = await server.request({ method: r.method, path: r.path, headers, body });
          expect([400, 413], `${r.method} ${r.path} ${body.length}`).toContain(res.status);
          expect(res.json?.error?.code).toBeTruthy();
        }
      }
    });
    expectWithinBudget(m);
  });

  it("a 50 MB body is refused: with a content-length at once, chunked after one byte past the limit", async () => {
    const net = await import("node:net");
    const m = await measured(server, async () => {
      // content-length: the answer comes while 49.99 MB are still unsent
      const declared = await new Promise<string>((resolve, reject) => {
        const s = net.connect(server.port, "127.0.0.1");
        let got = "";
        s.on("data", (d) => {
          got += d;
          if (got.includes("\r\n\r\n")) {
            s.destroy();
            resolve(got);
          }
        });
        s.on("error", reject);
        s.write(`POST /api/conversations HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nContent-Type: application/json\r\nContent-Length: ${50 * 1024 * 1024}\r\n\r\n{"title":"`);
      });
      expect(declared).toMatch(/^HTTP\/1\.1 413 /);
      // chunked: a client that sends 2 MB and then stalls is answered or disconnected, not waited for
      const closed = await new Promise<string>((resolve) => {
        const s = net.connect(server.port, "127.0.0.1");
        let got = "";
        s.on("data", (d) => (got += d));
        s.on("close", () => resolve(got));
        s.on("error", () => undefined);
        s.write(`POST /api/conversations HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`);
        const piece = "x".repeat(64 * 1024);
        for (let i = 0; i < 32; i++) s.write(`${piece.length.toString(16)}\r\n${piece}\r\n`);
      });
      expect(closed).not.toMatch(/^HTTP\/1\.1 [25]/);
      // chunked and complete: 50 MB go through the wire, 64 KiB and one byte reach the app, 413
      const http = await import("node:http");
      const status = await new Promise<number>((resolve, reject) => {
        const req = http.request({ host: "127.0.0.1", port: server.port, method: "POST", path: "/api/conversations", agent: false, headers: { "content-type": "application/json", origin: server.url } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on("error", reject);
        const piece = Buffer.alloc(1024 * 1024, 0x78);
        let sent = 0;
        const pump = () => {
          while (sent < 50) {
            sent++;
            if (!req.write(piece)) return void req.once("drain", pump);
          }
          req.end();
        };
        pump();
      });
      expect(status).toBe(413);
    });
    expectWithinBudget(m);
  });

  it("long single-character runs in every text field of every body are answered without blocking", async () => {
    const id = await newConversation("fields");
    const x = (n: number) => "x".repeat(n);
    const role = (raw: string) => ({ content: raw, file_name: "hostile.md", overwrite: true });
    const m = await measured(server, async () => {
      const answers = await Promise.all([
        server.api("POST", "/api/conversations", { title: x(200), project_path: `/${x(4095)}` }),
        server.api("POST", "/api/conversations", { title: x(201), project_path: project }),
        server.api("PATCH", `/api/conversations/${id}`, { title: x(200), allowed_roles: Array.from({ length: 500 }, () => x(100)) }),
        server.api("PUT", `/api/conversations/${id}/shared-context`, { key: x(200), value: x(20_000), mode: "append" }),
        server.api("PUT", `/api/conversations/${id}/shared-context`, { key: x(200), value: "\n".repeat(20_000), mode: "overwrite", expected_version: 1 }),
        server.api("POST", `/api/conversations/${id}/shared-context/decisions`, { conflict_id: `conflict_${x(64)}`, choice: "keep_current" }),
        server.api("POST", `/api/conversations/${id}/agents/1/answers`, { question_id: `ask_${x(90)}_001`, answer: x(100_000) }),
        server.api("POST", "/api/roles", { fields: { id: x(100), name: x(120), description: x(4000), capabilities: Array.from({ length: 64 }, (_, i) => `${i}${x(60)}`), tools: Array.from({ length: 100 }, () => x(100)) }, body: x(200_000) }),
        server.api("POST", "/api/roles/import", role(`---\nname: ${x(120)}\ndescription: ${x(4000)}\n---\n${x(250_000)}`)),
        server.api("POST", "/api/roles/import", role(`---\nname: a\ndescription: ${"- ".repeat(3000)}\n---\nbody`)),
        server.api("POST", "/api/roles/import", role(`---\n${"- ".repeat(4000)}x\n---\nbody`)),
        server.api("POST", "/api/roles/import", role(`---\nname: a\ntools: [${"a, ".repeat(60_000)}a]\n---\nbody`)),
        server.api("POST", "/api/roles/import", role(`---\nname: a\nx: ${"[".repeat(100_000)}\n---\nbody`)),
        server.api("POST", "/api/auth/signin", { token: x(1024) }),
      ]);
      for (const a of answers) expect(a.status, JSON.stringify(a.json).slice(0, 300)).toBeLessThan(500);
      const raw = await server.api("GET", "/api/roles/researcher");
      const put = await server.api("PUT", "/api/roles/researcher", { etag: raw.json.role.etag, raw: `---\nid: researcher\nname: R\ndescription: ${"? ".repeat(3000)}\n---\n${x(250_000)}` });
      expect(put.status).toBeLessThan(500);
      expect((await server.api("GET", "/api/roles")).status).toBe(200);
    });
    expectWithinBudget(m);
  });
});

describe("a restart", () => {
  it("resumes a conversation whose leader must answer a persisted 1,000,000-character message, without stalling", async () => {
    const id = await newConversation("restart");
    await server.api("POST", `/api/conversations/${id}/messages`, { content: "hello" });
    await until("ok", async () => (await leaderMessages(id)).some((x) => x.content === "ok"));
    await settled(id);
    await server.stop();
    // What a person's message looks like on disk, a million characters long (written by another
    // tool or an older version: the limits apply to what arrives, not to what is already saved).
    const file = path.join(home, "conversations", id, "messages.json");
    const saved = JSON.parse(readFileSync(file, "utf8"));
    const first = saved.messages.find((x: { role: string }) => x.role === "user");
    saved.messages.push({ ...first, content: "x".repeat(MILLION), message_id: "msg_user_restart" });
    writeFileSync(file, JSON.stringify(saved, null, 2));
    server = await startServer({ home, env: serverEnv });
    await startedUp();
    await warmUp();
    // Leader replies, counted in the timeline (polling the million-character messages.json would itself load the server).
    const replies = async () => (await server.api("GET", `/api/conversations/${id}/timeline`)).json.records.filter((r: { action: string }) => r.action === "leader_reply").length as number;
    const m = await measured(server, async () => {
      // The resumed leader answers the million characters; then a new message makes it build its
      // next call from a history that holds them.
      await until("the resumed answer", async () => (await replies()) >= 2, 60_000);
      expect((await server.api("POST", `/api/conversations/${id}/messages`, { content: "and now?" })).status).toBe(202);
      await until("the next answer", async () => (await replies()) >= 3, 60_000);
    });
    const texts = (await leaderMessages(id)).filter((x) => x.role === "assistant").map((x) => x.content);
    expect(texts.slice(-2)).toEqual(["SUMMARY restart", "ok"]);
    expectWithinBudget(m);
  });
});
