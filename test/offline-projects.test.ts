/**
 * The offline team on real-sized projects, through the real built server with the default
 * context budgets and tool limits: 5 and 300 files of this repository, 3,000 and 20,000 generated
 * files. Every sub-agent reports done within 12 model calls, never repeats a tool call, and
 * reports concrete findings (paths with line numbers that exist, the README, the test setup);
 * the leader's summary synthesizes them with no failure and no placeholder quoted.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateProject, repoProject, writeProject } from "./helpers/projects";
import { startServer, tempDir, type TestServer } from "./helpers/server";
import { until } from "./helpers/wait";

let server: TestServer;

beforeAll(async () => {
  server = await startServer({ env: { ASTRION_OFFLINE_DELAY_MS: "0" } });
});

afterAll(async () => {
  await server?.stop();
});

interface Msg {
  role: string;
  content: string | null;
  tool_calls?: Array<{ function: { name: string; arguments: string } }>;
}

const CASES: Array<{ name: string; files: () => Record<string, string>; goal: string; folder: string }> = [
  { name: "5 files of this repository", files: () => repoProject(5, ["lib/store/atomic.ts", "lib/store/atomic.test.ts", "lib/store/lock.ts"]), goal: "Review lib/store for crash safety and write up test ideas for the atomic write path", folder: "lib/store/" },
  { name: "300 files of this repository", files: () => repoProject(300), goal: "Review lib/store for crash safety and write up test ideas for the atomic write path", folder: "lib/store/" },
  { name: "3,000 generated files", files: () => generateProject(3_000, 3), goal: "Review src/billing for error handling and list test ideas for the invoice path", folder: "src/billing/" },
  { name: "20,000 generated files", files: () => generateProject(20_000, 20), goal: "Review src/payments for error handling and list test ideas for refunds", folder: "src/payments/" },
];

describe("the offline team on real projects", () => {
  for (const c of CASES) {
    it(`${c.name}: every sub-agent reports done within 12 calls with concrete findings, and the summary synthesizes them`, async () => {
      const files = c.files();
      const project = tempDir("astrion-offline-project-");
      writeProject(project, files);
      const created = await server.api("POST", "/api/conversations", { title: c.name, project_path: project });
      expect(created.status).toBe(201);
      const id = created.json.conversation.id as string;
      expect((await server.api("POST", `/api/conversations/${id}/messages`, { content: c.goal })).status).toBe(202);

      // The run is over when the leader is idle again and has answered after the reports.
      const leader = await until(
        "the leader's summary",
        async () => {
          const conv = (await server.api("GET", `/api/conversations/${id}`)).json.conversation;
          if (conv.phase !== "IDLE") return null;
          const messages = (await server.api("GET", `/api/conversations/${id}/messages`)).json.messages as Msg[];
          const last = messages.at(-1);
          return last?.role === "assistant" && !last.tool_calls?.length && messages.some((m) => m.role === "user" && String(m.content).includes("的任务完成汇报")) ? messages : null;
        },
        180_000,
      );
      const agents = ((await server.api("GET", `/api/conversations/${id}/agents`)).json.agents as Array<{ metadata: { agent_id: number; display_name: string } }>).map((a) => a.metadata);
      expect(agents.length).toBeGreaterThan(0);
      for (const agent of agents) {
        const detail = (await server.api("GET", `/api/conversations/${id}/agents/${agent.agent_id}`)).json;
        const messages = detail.messages as Msg[];
        const calls = messages.filter((m) => m.role === "assistant");
        expect(calls.length, `${agent.display_name}'s model calls`).toBeLessThanOrEqual(12);
        const toolCalls = calls.flatMap((m) => m.tool_calls ?? []).map((t) => `${t.function.name} ${t.function.arguments}`);
        expect(new Set(toolCalls).size, `${agent.display_name} repeated a call`).toBe(toolCalls.length);
        expect(detail.agent.metadata.status).toBe("completed");
        const reportCall = calls.flatMap((m) => m.tool_calls ?? []).find((t) => t.function.name === "report_to_leader");
        const report = JSON.parse(reportCall!.function.arguments) as { summary: string; status: string };
        expect(report.status).toBe("completed");
        // concrete findings: paths with line numbers that exist, in the goal's folder among them
        const refs = [...report.summary.matchAll(/`([\w./@-]+\.[a-z]+):(\d+)`/g)].map((m) => [m[1]!, Number(m[2])] as const);
        expect(refs.length, report.summary).toBeGreaterThan(0);
        for (const [file, line] of refs) expect(files[file]?.split("\n").length ?? 0, `${file}:${line}`).toBeGreaterThanOrEqual(line);
        expect(report.summary).toContain(c.folder);
        expect(report.summary).toMatch(/The README \(`README\.md`\)/);
        expect(report.summary).toMatch(/Test setup: test command `[^`]+`/);
        expect(report.summary).not.toMatch(/\[failed\]|reached the limit/i);
      }
      const summary = String(leader.at(-1)!.content);
      expect(summary).not.toMatch(/\[failed\]|\[partial\]|reached the limit|omitted here to fit/i);
      // it synthesizes: names files of the project that the agents found
      const named = [...summary.matchAll(/`([\w./@-]+\.[a-z]+)(?::\d+)?`/g)].map((m) => m[1]!);
      expect(named.filter((f) => files[f] !== undefined).length, summary).toBeGreaterThan(0);
    }, 240_000);
  }
});
