/**
 * The offline team end to end on the projects a new user tries, through the real runtime (a
 * TeamRun over in-memory storage, real workspace tools on a real folder, the default context
 * budgets): an npm package whose code is only under dist/, a monorepo, a Python project, a
 * 20,000-file repository, a 4-file project with test.js. Every claim of every report is checked
 * against the files (test/helpers/offline-fixtures.ts `checkReport`); the reports describe the
 * structure; no internal marker reaches messages.json or the Markdown export; a Chinese goal gets
 * Chinese throughout.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseConversationFolder } from "@/lib/export/bundle";
import { renderConversationMarkdown } from "@/lib/export/markdown";
import type { Message } from "@/lib/store";
import { checkReport, monorepoProject, npmDistProject, pythonProject, tinyProject } from "@/test/helpers/offline-fixtures";
import { generateProject, writeProject } from "@/test/helpers/projects";
import { agentMessages, filesOf, settled, TeamKit, teamEnvironment } from "@/test/support/team-kit";
import { createOfflineModel } from "./index";

const env = teamEnvironment();
const temp = mkdtempSync(path.join(os.tmpdir(), "astrion-offline-projects-"));
afterAll(() => {
  env.close();
  rmSync(temp, { recursive: true, force: true });
});

const never = () => {
  throw new Error("the offline model answers every call");
};

/** What a finished run left: the leader's and each agent's messages, the reports, the export. */
interface Finished {
  leader: Message[];
  agents: Array<{ id: number; name: string; role: string; status: string; messages: Message[]; report: string; reads: string[] }>;
  markdown: string;
}

async function runGoal(name: string, files: Record<string, string>, goal: string): Promise<Finished> {
  const project = path.join(temp, name);
  writeProject(project, files);
  const kit = new TeamKit(env, never, { chatModel: createOfflineModel("offline", { delayMs: 0 }), project, title: name });
  const p = kit.start();
  await p.run.postUserMessage(goal);
  await settled(p);
  return finished(kit, p);
}

async function finished(kit: TeamKit, p: ReturnType<TeamKit["start"]>): Promise<Finished> {
  const { conversation, leader, agents } = await filesOf(p, kit.convId);
  const out: Finished["agents"] = [];
  const folder = new Map<string, Uint8Array>([
    ["metadata.json", new TextEncoder().encode(JSON.stringify(conversation))],
    ["messages.json", new TextEncoder().encode(JSON.stringify(leader))],
  ]);
  for (const a of agents) {
    const file = await agentMessages(p, kit.convId, a.agent_id);
    folder.set(`agents/${a.agent_id}/metadata.json`, new TextEncoder().encode(JSON.stringify(a)));
    folder.set(`agents/${a.agent_id}/messages.json`, new TextEncoder().encode(JSON.stringify(file)));
    const calls = file.messages.flatMap((m) => m.tool_calls ?? []);
    const report = calls.find((c) => c.function.name === "report_to_leader");
    out.push({
      id: a.agent_id,
      name: a.display_name,
      role: a.role_id,
      status: a.status,
      messages: file.messages,
      report: report ? String((JSON.parse(report.function.arguments) as { summary: string }).summary) : "",
      reads: calls.filter((c) => c.function.name === "read_file").map((c) => String((JSON.parse(c.function.arguments) as { path: string }).path)),
    });
  }
  const markdown = renderConversationMarkdown(parseConversationFolder(kit.convId, folder, { strict: false }));
  return { leader: leader.messages, agents: out, markdown };
}

/** Checks what every finished run must hold: reports done and true, no markers anywhere a person or a model reads. */
function expectHonest(run: Finished, files: Record<string, string>): void {
  expect(run.agents.length).toBeGreaterThan(0);
  for (const a of run.agents) {
    expect(a.status, a.name).toBe("completed");
    expect(checkReport(a.report, files), a.report).toEqual([]);
    const calls = a.messages.flatMap((m) => m.tool_calls ?? []).map((c) => `${c.function.name} ${c.function.arguments}`);
    expect(new Set(calls).size, `${a.name} repeated a call`).toBe(calls.length);
    // generated and vendored files are never read
    for (const r of a.reads) expect(r).not.toMatch(/node_modules|\.venv|package-lock|pnpm-lock|\.min\.js/);
  }
  const summary = String(run.leader.at(-1)?.content ?? "");
  expect(summary).toMatch(/^## (Team summary|团队总结)/);
  expect(checkReport(summary, files), summary).toEqual([]);
  // no internal marker in the stored messages' text, nor in the export
  const texts = [...run.leader, ...run.agents.flatMap((a) => a.messages)].filter((m) => m.role === "assistant").map((m) => String(m.content ?? ""));
  for (const text of [...texts, run.markdown]) expect(text).not.toMatch(/CONCLUSION:|结论：|NOTE:|笔记：|step \d+ of at most/);
}

const ARCHITECTURE = "Analyse the architecture of this project and write a short summary of whether the test suite covers it";

describe("the offline team on real kinds of projects", () => {
  it("an npm package with its code only under dist/: reads the built code, its entry points and imports, never node_modules or the lockfile", async () => {
    const files = npmDistProject();
    const run = await runGoal("npm-dist", files, ARCHITECTURE);
    expectHonest(run, files);
    const report = run.agents[0]!.report;
    expect(run.agents[0]!.reads).toEqual(expect.arrayContaining(["README.md", "package.json", "dist/index.js"]));
    expect(run.agents[0]!.reads.some((r) => r.startsWith("dist/") && r !== "dist/index.js")).toBe(true);
    expect(report).toMatch(/The code is in `dist\/`, built output/);
    expect(report).toMatch(/Entry points: `main` → `dist\/index\.cjs`.*`module` → `dist\/index\.js`/);
    expect(report).toMatch(/Imported most \(from \d+ import lines a search found\): `dist\/channels\/base` by \d+ files/);
    expect(report).toMatch(/`StateGraph` \(`dist\/graph\/state\.js:\d+`\)|`Pregel` \(`dist\/pregel\/index\.js:\d+`\)/);
    expect(report).toMatch(/Top level: \d+ entries — folders `dist\/`/);
    // the searches are for names the code defines and for its imports, never the goal's filler words
    const queries = run.agents[0]!.messages.flatMap((m) => m.tool_calls ?? []).filter((c) => c.function.name === "search_files").map((c) => (JSON.parse(c.function.arguments) as { query: string }).query);
    expect(queries.length).toBeGreaterThan(0);
    for (const q of queries) expect(["short", "whether", "suite", "summary", "architecture"]).not.toContain(q.toLowerCase());
    expect(queries.some((q) => /StateGraph|Pregel|Channel|helper\d+/.test(q))).toBe(true);
  });

  it("a monorepo: lists the packages and reads their src/", async () => {
    const files = monorepoProject();
    const run = await runGoal("monorepo", files, ARCHITECTURE);
    expectHonest(run, files);
    const a = run.agents[0]!;
    expect(a.reads.some((r) => /^packages\/[^/]+\/src\//.test(r))).toBe(true);
    expect(a.report).toMatch(/Packages in `packages\/`: `cli`, `core` and `web`|Packages in `packages\/`: .*`core`/);
    expect(a.report).toContain("Test setup: test command `node run-tests.js`");
  });

  it("a Python project: its console script and __main__.py are the entry points, its tests are counted, .venv is never read", async () => {
    const files = pythonProject();
    const run = await runGoal("python", files, ARCHITECTURE);
    expectHonest(run, files);
    const a = run.agents[0]!;
    expect(a.reads).toEqual(expect.arrayContaining(["pyproject.toml", "ledger/cli.py"]));
    expect(a.report).toMatch(/Entry points: `script ledger` → `ledger\/cli\.py`/);
    expect(a.report).toMatch(/`ledger\/__main__\.py` \(runs with `python -m`\)/);
    expect(a.report).toMatch(/Imported most .*`ledger\/core` by \d+ files/);
    expect(a.report).toMatch(/test folder `tests\/`|\d+ test files? seen/);
  });

  it("a 20,000-file repository: bounded work, findings in the folder the goal names", async () => {
    const files = generateProject(20_000, 20);
    const run = await runGoal("big", files, "Review src/payments for error handling and list test ideas for refunds");
    expectHonest(run, files);
    for (const a of run.agents) {
      expect(a.messages.filter((m) => m.role === "assistant").length).toBeLessThanOrEqual(10);
      expect(a.report).toContain("src/payments/");
    }
  }, 120_000);

  it("a 4-file project: test.js read is counted as a test", async () => {
    const files = tinyProject();
    const run = await runGoal("tiny", files, "Check the test coverage of this project and what tests to add");
    expectHonest(run, files);
    const a = run.agents[0]!;
    expect(a.reads).toContain("test.js");
    expect(a.report).toMatch(/1 test file seen \(`test\.js`\)/);
    expect(a.report).not.toMatch(/no test files/);
  });

  it("a Chinese goal gets Chinese throughout: the plan, the task, the report's headings and content, the summary", async () => {
    const files = npmDistProject();
    const run = await runGoal("zh", files, "帮我分析这个项目的架构并写一份总结");
    expectHonest(run, files);
    const plan = run.leader.find((m) => m.role === "assistant")!;
    expect(String(plan.content)).toMatch(/我将组建/);
    const task = JSON.parse(plan.tool_calls![0]!.function.arguments) as { task: string };
    expect(task.task).toMatch(/^目标：“帮我分析这个项目的架构并写一份总结”\n作为 /);
    const report = run.agents[0]!.report;
    expect(report).toContain("**项目结构**");
    expect(report).toMatch(/入口：`main` → `dist\/index\.cjs`/);
    expect(report).toMatch(/被导入最多的模块/);
    // every line of the report is Chinese (names and quotes from the files aside)
    for (const line of report.split("\n").filter((l) => l.trim())) expect(line, line).toMatch(/[\u4e00-\u9fff]/);
    for (const m of run.agents[0]!.messages.filter((x) => x.role === "assistant" && x.content)) expect(String(m.content)).toMatch(/[\u4e00-\u9fff]/);
    expect(String(run.leader.at(-1)!.content)).toMatch(/^## 团队总结/);
  });
});
