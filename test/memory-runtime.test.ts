/**
 * Long-term memory in the runtime, through the real built server (issue 11): level enforcement on
 * recall into the global slice and on `recall_memory` (asserted on what the fake model received),
 * the audit of every read, recall within the slice's budget, and distillation on a final summary
 * and on archive — by the offline model's rules and by a scripted model on the `memory` key.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeText, fakeToolCalls, startFakeOpenAI, type FakeOpenAI, type FakeRequestBody, type Script } from "./helpers/fake-openai";
import { startServer, tempDir, type TestServer } from "./helpers/server";
import { until } from "./helpers/wait";

type Msg = { role: string; content?: string | null; tool_calls?: Array<{ function: { name: string } }> };
type TimelineRecord = { action: string; status: string; envelope: { to: string; payload: Record<string, unknown> } };
type Entry = { id: string; kind: string; statement: string; level: string; project_path: string | null; source: { conversation_id: string | null; message_ids: string[] } };

let fake: FakeOpenAI;
let server: TestServer;
let home: string;
let project: string;
let otherProject: string;
let distillAnswers: Script[] = [];

const NOW = "2026-11-30T12:00:00.000Z";
function entry(id: string, statement: string, level: string, project_path: string | null, grant: string[] = [], conversation_id: string | null = null) {
  return { id, kind: "fact", statement, subject: statement.split(" ").slice(0, 3).join(" ").toLowerCase(), project_path, level, grant, source: { conversation_id, message_ids: [] }, created_at: NOW, updated_at: NOW, confidence: 0.9, history: [], redactions: [], author: "person" };
}

const ROLE = (id: string, name: string, body: string) => `---\nid: ${id}\nname: ${name}\ndescription: ${name} checks ledgers\ncapabilities: [ledger]\n---\n${body}\n`;

const messagesOf = (b: FakeRequestBody) => (b.messages ?? []) as Msg[];
const systemOf = (b: FakeRequestBody) => String(messagesOf(b)[0]?.content ?? "");
const toolNames = (b: FakeRequestBody) => ((b.tools ?? []) as Array<{ function: { name: string } }>).map((t) => t.function.name);
const isLeader = (b: FakeRequestBody) => toolNames(b).includes("create_sub_agent");
const isDistiller = (b: FakeRequestBody) => !b.tools && systemOf(b).startsWith("You are a memory distiller");
const agentRole = (b: FakeRequestBody) => (systemOf(b).includes("ANALYST-A-PROMPT") ? "role-a" : systemOf(b).includes("ANALYST-B-PROMPT") ? "role-b" : null);

/** The scripted team: the leader creates both analysts, they recall memory and report, the leader sums up. */
function script(body: FakeRequestBody): Script {
  if (isDistiller(body)) return distillAnswers.shift() ?? fakeText('{"entries": []}');
  const msgs = messagesOf(body);
  const text = msgs.map((m) => String(m.content ?? "")).join("\n");
  const request = String([...msgs].reverse().find((m) => m.role === "user" && !String(m.content ?? "").startsWith("来自 "))?.content ?? "");
  if (isLeader(body)) {
    const reports = (text.match(/的任务完成汇报/g) ?? []).length;
    if (reports >= 2) return fakeText("## Summary\n- The ledger check is done.\n\nCONCLUSION: Ledger reconciliation of `ledger/reconcile.ts` must run after the nightly import.");
    if (msgs.some((m) => m.role === "tool")) return fakeText("The analysts are working.");
    if (/ledger/i.test(request))
      return fakeToolCalls([
        { name: "create_sub_agent", arguments: { role_id: "role-a", task: "Check the payment ledger." } },
        { name: "create_sub_agent", arguments: { role_id: "role-b", task: "Check the payment ledger." } },
      ]);
    return fakeText("Noted.");
  }
  if (toolNames(body).includes("report_to_leader")) {
    if (msgs.some((m) => m.role === "tool")) return fakeToolCalls([{ name: "report_to_leader", arguments: { summary: "- Checked the ledger entries I could read." } }]);
    return fakeToolCalls([{ name: "recall_memory", arguments: { query: "payment ledger", limit: 20 } }]);
  }
  return fakeText("ok");
}

async function newConversation(title: string, model_key: string, project_path = project): Promise<string> {
  const res = await server.api("POST", "/api/conversations", { title, project_path, model_key });
  expect(res.status).toBe(201);
  return res.json.conversation.id;
}

async function timeline(id: string): Promise<TimelineRecord[]> {
  return (await server.api("GET", `/api/conversations/${id}/timeline`)).json.records as TimelineRecord[];
}

async function leaderMessages(id: string): Promise<Array<Msg & { message_id: string; metadata?: Record<string, unknown> }>> {
  return (await server.api("GET", `/api/conversations/${id}/messages`)).json.messages;
}

function entriesFile(): Entry[] {
  try {
    return JSON.parse(readFileSync(path.join(home, "memory", "entries.json"), "utf8")).entries;
  } catch {
    return [];
  }
}

let sourceConv: string;

beforeAll(async () => {
  fake = await startFakeOpenAI({ script });
  home = tempDir("astrion-home-");
  project = tempDir("astrion-project-");
  otherProject = tempDir("astrion-other-");
  writeFileSync(path.join(project, "README.md"), "# Shop\nThe payment ledger service.\n");
  mkdirSync(path.join(project, "ledger"));
  writeFileSync(path.join(project, "ledger", "reconcile.ts"), "export function reconcile() {\n  // TODO: handle concurrent imports\n  return 1;\n}\n");
  mkdirSync(path.join(home, "agents"), { recursive: true });
  writeFileSync(path.join(home, "agents", "role-a.md"), ROLE("role-a", "Analyst A", "ANALYST-A-PROMPT"));
  writeFileSync(path.join(home, "agents", "role-b.md"), ROLE("role-b", "Analyst B", "ANALYST-B-PROMPT"));
  writeFileSync(
    path.join(home, "models.json"),
    JSON.stringify({
      default: "fake",
      models: {
        offline: { provider: "offline", label: "Offline (built-in)", model: "astrion-offline" },
        fake: { base_url: fake.url, api_key_env: "FAKE_OPENAI_KEY", model: "fake-model" },
      },
    }),
  );
  server = await startServer({ home, env: { FAKE_OPENAI_KEY: "sk-mem", ASTRION_LEADER_BATCH_MS: "20", ASTRION_OFFLINE_DELAY_MS: "0" } });
  sourceConv = await newConversation("Ledger history", "fake");
  await server.stop();
  // Seeded while the server is down (the service loads entries.json at start and builds its index).
  const long = (i: number) => `Warehouse inventory audit note ${i}: ${Array.from({ length: 70 }, (_, k) => `stock${k}`).join(" ")}`;
  mkdirSync(path.join(home, "memory"), { recursive: true });
  writeFileSync(
    path.join(home, "memory", "entries.json"),
    JSON.stringify({
      version: 1,
      entries: [
        entry("mem_pub00001", "Payment ledger tokpub module lives in src/ledger.", "public", null, [], sourceConv),
        entry("mem_proj0001", "Payment ledger tokproj reconciliation runs nightly for this shop.", "project", project),
        entry("mem_other001", "Payment ledger tokother of the other shop uses SAP.", "project", otherProject),
        entry("mem_resa0001", "Payment ledger tokresa admin account is held by finance.", "restricted", project, ["role-a"]),
        entry("mem_resn0001", "Payment ledger tokresnone vault keys are with the auditor.", "restricted", project, ["auditor"]),
        ...Array.from({ length: 40 }, (_, i) => entry(`mem_long${String(i).padStart(4, "0")}`, long(i), "public", null)),
      ],
    }),
  );
  server = await startServer({ home, env: { FAKE_OPENAI_KEY: "sk-mem", ASTRION_LEADER_BATCH_MS: "20", ASTRION_OFFLINE_DELAY_MS: "0" } });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

describe("memory levels through the runtime", () => {
  let id: string;
  let requests: FakeRequestBody[];

  beforeAll(async () => {
    const before = fake.requests.length;
    id = await newConversation("Ledger check", "fake");
    expect((await server.api("POST", `/api/conversations/${id}/messages`, { content: "Check the payment ledger please" })).status).toBe(202);
    await until("the leader's final summary", async () => (await leaderMessages(id)).some((m) => m.role === "assistant" && String(m.content ?? "").startsWith("## Summary")), 60_000);
    requests = fake.requests.slice(before).flatMap((r) => (r.body && r.body.tools ? [r.body] : []));
  }, 90_000);

  const FORBIDDEN: Record<string, string[]> = {
    leader: ["tokother", "tokresa", "tokresnone"],
    "role-a": ["tokother", "tokresnone"],
    "role-b": ["tokother", "tokresa", "tokresnone"],
  };

  it("no reader ever receives an entry it may not read, through the slice or the tool", () => {
    const readers = requests.map((b) => (isLeader(b) ? "leader" : agentRole(b)));
    expect(readers).toContain("leader");
    expect(readers).toContain("role-a");
    expect(readers).toContain("role-b");
    requests.forEach((b, i) => {
      const whole = JSON.stringify(b.messages);
      for (const token of FORBIDDEN[readers[i]!]!) expect(whole, `${readers[i]} received ${token}`).not.toContain(token);
    });
  });

  it("each reader gets the entries it may read in its global slice, cited to their source", () => {
    const first = (who: string) => requests.find((b) => (isLeader(b) ? "leader" : agentRole(b)) === who)!;
    for (const who of ["leader", "role-a", "role-b"]) {
      const system = systemOf(first(who));
      expect(system).toContain("Recalled from memory");
      expect(system).toContain("tokpub");
      expect(system).toContain("tokproj");
      // cited to its source conversation, with its title
      expect(system).toContain(`(from ${sourceConv} "Ledger history")`);
    }
    expect(systemOf(first("role-a"))).toContain("tokresa");
  });

  it("recall_memory answers role A with its restricted entry and role B without it", () => {
    const toolResult = (who: string) =>
      requests
        .filter((b) => agentRole(b) === who)
        .flatMap((b) => messagesOf(b).filter((m) => m.role === "tool"))
        .map((m) => String(m.content))
        .find((c) => c.includes('"entries"'));
    const a = JSON.parse(toolResult("role-a")!);
    const b = JSON.parse(toolResult("role-b")!);
    expect(a.entries.map((e: { id: string }) => e.id)).toEqual(expect.arrayContaining(["mem_pub00001", "mem_proj0001", "mem_resa0001"]));
    expect(b.entries.map((e: { id: string }) => e.id)).toEqual(expect.arrayContaining(["mem_pub00001", "mem_proj0001"]));
    for (const r of [a, b]) for (const e of r.entries) expect(["mem_other001", "mem_resn0001"]).not.toContain(e.id);
    expect(b.entries.some((e: { id: string }) => e.id === "mem_resa0001")).toBe(false);
    expect(a.entries.find((e: { id: string }) => e.id === "mem_pub00001").source).toEqual({ conversation_id: sourceConv, title: "Ledger history" });
  });

  it("every read is audited on the timeline with entry ids and levels, never their text", async () => {
    const recalls = (await timeline(id)).filter((r) => r.action === "memory_recall");
    const key = (r: TimelineRecord) => `${r.envelope.payload.via}:${r.envelope.payload.reader_role}`;
    expect(recalls.map(key)).toEqual(expect.arrayContaining(["slice:leader", "slice:role-a", "slice:role-b", "tool:role-a", "tool:role-b"]));
    // Once per request and reader, not per model call: the leader made more than one call in this request.
    expect(requests.filter(isLeader).length).toBeGreaterThanOrEqual(2);
    expect(recalls.filter((r) => key(r) === "slice:leader")).toHaveLength(1);
    expect(recalls.filter((r) => key(r) === "slice:role-a")).toHaveLength(1);
    for (const r of recalls) {
      const entries = r.envelope.payload.entries as Array<{ id: string; level: string }>;
      expect(entries.length).toBe(r.envelope.payload.count);
      for (const e of entries) expect(Object.keys(e).sort()).toEqual(["id", "level"]);
      expect(JSON.stringify(r)).not.toMatch(/tok(pub|proj|resa)/);
    }
    const toolA = recalls.find((r) => key(r) === "tool:role-a")!;
    expect(toolA.envelope.payload.entries).toEqual(expect.arrayContaining([{ id: "mem_resa0001", level: "restricted" }]));
    const sliceB = recalls.find((r) => key(r) === "slice:role-b")!;
    expect((sliceB.envelope.payload.entries as Array<{ id: string }>).map((e) => e.id)).not.toContain("mem_resa0001");
  });

  it("the context inspector's report shows the recalled entries as memory lines with citations", async () => {
    const answer = (await leaderMessages(id)).find((m) => m.role === "assistant")!;
    const report = (await server.api("GET", `/api/conversations/${id}/context/${answer.message_id}`)).json.report;
    const memoryLines = report.global.lines.filter((l: { label: string }) => l.label === "memory");
    expect(memoryLines.map((l: { memory: { entry_id: string } }) => l.memory.entry_id)).toEqual(expect.arrayContaining(["mem_pub00001", "mem_proj0001"]));
    expect(memoryLines.find((l: { memory: { entry_id: string } }) => l.memory.entry_id === "mem_pub00001").memory).toMatchObject({ conversation_id: sourceConv, title: "Ledger history", level: "public" });
  });
});

describe("recall into the global slice within its budget", () => {
  it("many long relevant entries: the slice stays within budget, the most relevant first, the rest reported as left out", async () => {
    const id = await newConversation("Inventory", "fake");
    const before = fake.requests.length;
    expect((await server.api("POST", `/api/conversations/${id}/messages`, { content: "Warehouse inventory audit: what do we know about stock?" })).status).toBe(202);
    const answer = await until("the leader's answer", async () => (await leaderMessages(id)).find((m) => m.role === "assistant"));
    const report = (await server.api("GET", `/api/conversations/${id}/context/${answer.message_id}`)).json.report;
    expect(report.global.used).toBeLessThanOrEqual(report.global.budget);
    const lines = report.global.lines.filter((l: { label: string }) => l.label === "memory") as Array<{ included: boolean; memory: { entry_id: string } }>;
    const kept = lines.filter((l) => l.included);
    expect(kept.length).toBeGreaterThan(0);
    expect(lines.length).toBeGreaterThan(kept.length);
    expect(lines.slice(0, kept.length).every((l) => l.included)).toBe(true);
    const system = systemOf(fake.requests.slice(before).find((r) => r.body?.tools)!.body!);
    for (const l of lines) expect(system.includes(`note ${Number(l.memory.entry_id.slice(8))}:`)).toBe(l.included);
  });
});

describe("distillation", () => {
  it("by the offline model's rules after a final summary; archiving adds nothing twice", async () => {
    const id = await newConversation("Offline review", "offline");
    expect((await server.api("POST", `/api/conversations/${id}/messages`, { content: "Review the ledger code. CONCLUSION: the ledger reconciliation must stay idempotent." })).status).toBe(202);
    const write = await until("a memory_write event", async () => (await timeline(id)).find((r) => r.action === "memory_write"), 90_000);
    expect(write.envelope.payload).toMatchObject({ trigger: "summary", distilled_by: "rules" });
    const added = write.envelope.payload.added as Array<{ id: string; kind: string; level: string }>;
    expect(added.length).toBeGreaterThan(0);
    expect(JSON.stringify(write)).not.toContain("idempotent");
    const messages = await leaderMessages(id);
    const ids = new Set(messages.map((m) => m.message_id));
    const mine = entriesFile().filter((e) => e.source.conversation_id === id);
    expect(mine.map((e) => e.id).sort()).toEqual(added.map((a) => a.id).sort());
    for (const e of mine) {
      expect(e.source.message_ids.length).toBeGreaterThan(0);
      for (const m of e.source.message_ids) expect(ids.has(m)).toBe(true);
    }
    const conclusion = mine.find((e) => e.statement.includes("idempotent"))!;
    expect(conclusion).toMatchObject({ kind: "fact", project_path: project });
    // The progress log's latest line for the conversation.
    const progressOf = (convId: string) =>
      readFileSync(path.join(home, "memory", "distilled.jsonl"), "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l))
        .filter((l) => l.conversation_id === convId)
        .at(-1);
    const state = progressOf(id);
    expect(state.through).toBe(messages.length);

    expect((await server.api("PATCH", `/api/conversations/${id}`, { status: "archived" })).status).toBe(200);
    // the archive run reads nothing new: no second write, no entry added twice
    await until("the archive run", () => progressOf(id).at !== state.at);
    expect(entriesFile().filter((e) => e.source.conversation_id === id).length).toBe(mine.length);
    expect((await timeline(id)).filter((r) => r.action === "memory_write").length).toBe(1);
    // The runs let go of the conversation while it was distilled: nothing stays open for it.
    await until("no log file held open", async () => ((await server.api("GET", "/api/health")).json.resident.log_files_open === 0 ? true : null));
  }, 120_000);

  it("by a scripted model on the memory key: an invalid answer is asked again once, the valid one is written with its sources", async () => {
    const models = JSON.parse(readFileSync(path.join(home, "models.json"), "utf8"));
    writeFileSync(path.join(home, "models.json"), JSON.stringify({ ...models, memory: "fake" }));
    distillAnswers = [
      fakeText("I think the ledger is fine."),
      fakeText(JSON.stringify({ entries: [{ kind: "preference", statement: "The person wants ledger answers with a table.", subject: "answer format", level: "project", confidence: 0.8, sources: ["c1"] }] })),
    ];
    const before = fake.requests.length;
    const id = await newConversation("Scripted distill", "offline");
    expect((await server.api("POST", `/api/conversations/${id}/messages`, { content: "I prefer answers with a table. Review the ledger code." })).status).toBe(202);
    const write = await until("a memory_write event", async () => (await timeline(id)).find((r) => r.action === "memory_write"), 90_000);
    expect(write.envelope.payload).toMatchObject({ trigger: "summary", distilled_by: "model:fake" });
    const calls = fake.requests.slice(before).filter((r) => r.body && isDistiller(r.body));
    expect(calls.length).toBe(2);
    expect(JSON.stringify(calls[1]!.body!.messages)).toContain("That answer is not valid");
    expect(systemOf(calls[0]!.body!)).toContain('"entries"');
    const mine = entriesFile().filter((e) => e.source.conversation_id === id);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ kind: "preference", statement: "The person wants ledger answers with a table.", level: "project", project_path: project });
    const person = (await leaderMessages(id)).find((m) => m.role === "user")!;
    expect(mine[0]!.source.message_ids).toEqual([person.message_id]);
  }, 120_000);

  it("a model that never answers validly: the rules distil instead", async () => {
    distillAnswers = [fakeText("nope"), fakeText('{"entries": [{"kind": "rumour"}]}')];
    const id = await newConversation("Fallback distill", "offline");
    expect((await server.api("POST", `/api/conversations/${id}/messages`, { content: "Review the ledger code. CONCLUSION: ledger imports are append-only." })).status).toBe(202);
    const write = await until("a memory_write event", async () => (await timeline(id)).find((r) => r.action === "memory_write"), 90_000);
    expect(write.envelope.payload).toMatchObject({ distilled_by: "rules_fallback" });
    expect(String(write.envelope.payload.model_error)).toBeTruthy();
    expect(entriesFile().some((e) => e.source.conversation_id === id && e.statement.includes("append-only"))).toBe(true);
  }, 120_000);
});
