/**
 * The offline team asks to run a command when the goal asks to run the tests, through the real
 * runtime: the agent whose role may execute calls run_command with the project's own test
 * command (package.json `scripts.test` → `npm test`), the approval card waits for a person; once
 * approved the command really runs and the report gives its exit code and the end of its output;
 * once refused the report says so.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkReport, tinyProject } from "@/test/helpers/offline-fixtures";
import { codeSpan } from "./agent-text";
import { writeProject } from "@/test/helpers/projects";
import { agentMessages, agentReached, filesOf, settled, TeamKit, teamEnvironment } from "@/test/support/team-kit";
import { createOfflineModel } from "./index";
import { runRequest } from "./sub-agent-situation";

const env = teamEnvironment();
const temp = mkdtempSync(path.join(os.tmpdir(), "astrion-offline-command-"));
afterAll(() => {
  env.close();
  rmSync(temp, { recursive: true, force: true });
});

async function runTests(name: string, goal: string, decision: "approve" | "deny", pass = true) {
  const files = tinyProject(pass);
  const project = path.join(temp, name);
  writeProject(project, files);
  const kit = new TeamKit(env, () => ({ content: "unused" }), { chatModel: createOfflineModel("offline", { delayMs: 0 }), project });
  const p = kit.start();
  await p.run.postUserMessage(goal);
  await settled(p);
  // the agent waits for a person: the approval card's data is in its metadata
  const waiting = (await filesOf(p, kit.convId)).agents[0]!;
  expect(waiting.role_id).toBe("test-engineer");
  expect(waiting.status).toBe("waiting");
  const pending = waiting.pending_tool_calls?.[0];
  expect(pending).toMatchObject({ tool_name: "run_command", kind: "approval" });
  const asked = (await agentMessages(p, kit.convId, waiting.agent_id)).messages.flatMap((m) => m.tool_calls ?? []).find((c) => c.function.name === "run_command")!;
  expect(JSON.parse(asked.function.arguments)).toMatchObject({ command: "npm test" });
  await p.run.decideApproval(waiting.agent_id, { tool_call_id: pending!.tool_call_id, decision, by: "User", ...(decision === "deny" ? { reason: "not now" } : {}) });
  await p.when(agentReached(waiting.agent_id, "completed"));
  await settled(p);
  const { agents, leader } = await filesOf(p, kit.convId);
  const messages = (await agentMessages(p, kit.convId, waiting.agent_id)).messages;
  const report = JSON.parse(messages.flatMap((m) => m.tool_calls ?? []).find((c) => c.function.name === "report_to_leader")!.function.arguments) as { summary: string };
  expect(agents[0]!.status).toBe("completed");
  expect(checkReport(report.summary, files)).toEqual([]);
  return { report: report.summary, summary: String(leader.messages.at(-1)!.content) };
}

describe("the offline team runs the tests when asked", () => {
  it("reads a goal's request to run tests or a build, in English and Chinese", () => {
    expect(runRequest("Run the tests and tell me whether they pass")).toBe("test");
    expect(runRequest("运行测试，告诉我结果")).toBe("test");
    expect(runRequest("Build it and report errors")).toBe("build");
    expect(runRequest("Review the test suite for gaps")).toBeNull();
  });

  it("approved: npm test really runs, and the report gives its exit code and output", async () => {
    const { report, summary } = await runTests("approve", "Run the tests and tell me whether they pass", "approve");
    expect(report).toMatch(/I ran `npm test`: exit code 0 \(passed\) in \d+\.\d s; the output ends with `[^`]*1 test passed[^`]*`/);
    expect(summary).toContain("I ran `npm test`: exit code 0");
  });

  it("approved on a failing suite: the real non-zero exit code and the error it printed", async () => {
    const { report } = await runTests("fail", "Run the tests and tell me whether they pass", "approve", false);
    expect(report).toMatch(/I ran `npm test`: exit code 1 \(failed\).*add is wrong/);
    expect(report).toContain("Fix what makes `npm test` fail, then run it again.");
  });

  it("refused: the report says it was refused and did not run", async () => {
    const { report } = await runTests("deny", "运行测试", "deny");
    expect(report).toMatch(/我请求运行 `npm test`，被拒绝了（denied by User: not now）；命令没有运行。/);
    expect(report).not.toMatch(/退出码/);
  });
});

describe("codeSpan", () => {
  it("fences a command's output as code, whatever backticks it holds", () => {
    expect(codeSpan("1 test passed")).toBe("`1 test passed`");
    expect(codeSpan("use `npm ci`")).toBe("`` use `npm ci` ``");
    expect(codeSpan("a``b")).toBe("```a``b```");
  });
});
