/**
 * Memory keeps conclusions, not the flow (seed 003 §5.2; issue 30), over finished offline runs on
 * a real project: a copy of the `picomatch` package from node_modules, read by the built-in
 * offline team with the real workspace tools through the built server. The person's goal states a
 * conclusion (English, then Chinese); once the run's summary is distilled by the rules, EVERY
 * memory entry is listed and none may be trivia of the run: no tally of a tool's results, no tool
 * narration, no self-reference, no repetition, no step note, no clipped quote; every title is a
 * phrase of its entry in the entry's own case, never a bare file reference. The person's stated
 * conclusion is kept, and so is a finding of the team.
 */
import { cpSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, startServer, tempDir, type TestServer } from "./helpers/server";
import { until } from "./helpers/wait";

type Entry = { id: string; kind: string; statement: string; subject: string; source: { conversation_id: string | null; message_ids: string[] } };
type Msg = { role: string; content?: string | null; message_id: string; metadata?: { message_source?: string } };

let server: TestServer;
let project: string;

beforeAll(async () => {
  project = tempDir("astrion-picomatch-");
  cpSync(path.join(REPO_ROOT, "node_modules", "picomatch"), project, { recursive: true });
  server = await startServer({ env: { ASTRION_OFFLINE_DELAY_MS: "0" } });
});

afterAll(async () => {
  await server?.stop();
});

/** Shapes of the run's flow that memory must never hold, written apart from the distiller's own rules. */
const TRIVIA: RegExp[] = [
  /\b\d+\+?\s+match(?:es)?\b/i,
  /^search(?:ed)?\s+(?:for\s+)?["“'`]/i,
  /\(\d+\s+(?:lines?|entries)\)|entries at the top level/i,
  /^(?:read|listed|looked at|inspected|opened)\s/i,
  /^(?:defined in the files read|inside `)/i,
  /same findings as above|^see above|同上|与上文相同/i,
  /I changed no files|this report is|\bI asked for clarification\b|taken into account/i,
  /\breports? came back\b|\bteam is working\b|team for "/i,
  /\bstep\s+\d+|\bbudget\b|第\s*\d+\s*步/i,
  /…["”]?\.?$|…"/,
  /处匹配|读取了|我没有修改/,
];

/** A bare file reference: a path, a file name or `path:line`, nothing else. */
const BARE_REFERENCE = /^`?(?:[\w@.+-]+\/)*(?:[\w@.+-]+\.[A-Za-z]{1,5}|[\w@.+-]+\/)(?::\d+(?:-\d+)?)?`?$|^`?[\w@.+/-]+:\d+`?$/;

async function run(goal: string): Promise<{ id: string; goalMessage: string }> {
  const created = await server.api("POST", "/api/conversations", { title: "picomatch", project_path: project });
  expect(created.status).toBe(201);
  const id = created.json.conversation.id as string;
  expect((await server.api("POST", `/api/conversations/${id}/messages`, { content: goal })).status).toBe(202);
  await until(
    "the run's memory_write",
    async () => ((await server.api("GET", `/api/conversations/${id}/timeline`)).json.records as Array<{ action: string }>).some((r) => r.action === "memory_write"),
    90_000,
  );
  const messages = (await server.api("GET", `/api/conversations/${id}/messages`)).json.messages as Msg[];
  const goalMessage = messages.find((m) => m.role === "user" && m.metadata?.message_source === "user")!.message_id;
  // The run really was a team run on the folder: reports came back and were summarized.
  expect(messages.filter((m) => String(m.content).includes("的任务完成汇报")).length).toBeGreaterThan(0);
  return { id, goalMessage };
}

/** Every entry in memory, all pages. */
async function allEntries(): Promise<Entry[]> {
  const res = await server.api("GET", "/api/memory/entries?limit=200");
  expect(res.status).toBe(200);
  expect(res.json.total).toBe(res.json.entries.length);
  return res.json.entries as Entry[];
}

/** Fails on any trivial entry (see the module comment). */
function expectNoTrivia(entries: readonly Entry[]): void {
  for (const e of entries) {
    const trivial = TRIVIA.filter((shape) => shape.test(e.statement)).map(String);
    expect({ statement: e.statement, trivial }).toEqual({ statement: e.statement, trivial: [] });
    expect({ statement: e.statement, subject: e.subject, empty: e.subject.trim() === "", bare: BARE_REFERENCE.test(e.subject.trim()) }).toEqual({ statement: e.statement, subject: e.subject, empty: false, bare: false });
    // the title is the entry's own words, in their case
    const words = e.statement.replace(/`/g, "");
    const foreign = e.subject.split(/\s+/).filter((w) => !words.includes(w));
    expect({ subject: e.subject, statement: e.statement, foreign }).toEqual({ subject: e.subject, statement: e.statement, foreign: [] });
  }
}

describe("memory after a finished offline run on a real project", () => {
  it("keeps the person's stated conclusion and the team's findings, never the run's trivia (English)", async () => {
    const conclusion = "picomatch compiles every glob to a regular expression before matching.";
    const { id, goalMessage } = await run(`Research how picomatch matches globs and review it for security issues. Findings to keep: ${conclusion}`);
    const entries = await allEntries();
    const mine = entries.filter((e) => e.source.conversation_id === id);
    expect(mine.length).toBe(entries.length);
    expectNoTrivia(entries);
    const stated = mine.find((e) => e.statement === conclusion);
    expect(stated).toMatchObject({ kind: "fact", subject: "picomatch", source: { message_ids: [goalMessage] } });
    // the team's findings are kept beside it
    expect(mine.filter((e) => !e.source.message_ids.includes(goalMessage)).length).toBeGreaterThan(0);
  });

  it("keeps a Chinese stated conclusion and preference, never the run's trivia", async () => {
    const { id, goalMessage } = await run("研究 picomatch 如何匹配 glob，并审查安全问题。结论：picomatch 在匹配前会把每个 glob 编译成正则表达式。我更喜欢简短的回答。");
    const entries = await allEntries();
    expectNoTrivia(entries);
    const mine = entries.filter((e) => e.source.conversation_id === id);
    expect(mine.find((e) => e.statement === "picomatch 在匹配前会把每个 glob 编译成正则表达式。")).toMatchObject({ kind: "fact", source: { message_ids: [goalMessage] } });
    expect(mine.find((e) => e.statement === "我更喜欢简短的回答。")).toMatchObject({ kind: "preference" });
  });
});
