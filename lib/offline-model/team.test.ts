import { describe, expect, it } from "vitest";
import { agentTools, leaderTools } from "@/lib/team-tools";
import { formatAgentMessage } from "@/lib/contracts/messages";
import type { ChatMessage } from "@/lib/models/types";
import { ASK_ME_SENTENCE, createOfflineModel, decideOffline } from "./index";
import { matchRoles, parseCatalog } from "./leader-plan";
import { isAmbiguousGoal } from "./text";
import { generateProject, repoProject } from "@/test/helpers/projects";
import { MAX_STEPS } from "./sub-agent";
import { DEMO_PROJECT, ROLES, agentSystem, runSubAgent, runTeam } from "@/test/helpers/offline-kit";

const model = createOfflineModel("offline", { delayMs: 0 });
const catalog = parseCatalog(leaderTools(ROLES)[0]);

function plan(goal: string) {
  return decideOffline({ messages: [{ role: "system", content: "Leader" }, { role: "user", content: goal }], tools: leaderTools(ROLES), thinking: "on" });
}
function planned(goal: string): Array<{ role_id: string; task: string }> {
  return plan(goal).toolCalls.map((c) => c.args as { role_id: string; task: string });
}

describe("offline leader: choosing the team", () => {
  it("reads the role catalog from create_sub_agent", () => {
    expect(catalog.map((r) => r.id)).toEqual(ROLES.map((r) => r.id));
    expect(catalog.find((r) => r.id === "ui-operator")?.capabilities).toContain("color-scheme");
    expect(catalog.find((r) => r.id === "full-stack-engineer")?.name).toBe("Full-Stack Engineer");
  });

  it("sends a security review to the code reviewer", () => {
    const calls = planned("Review the authentication code for security issues");
    expect(calls.map((c) => c.role_id)).toEqual(["code-reviewer"]);
    expect(calls[0]!.task).toContain("Review the authentication code for security issues");
    expect(calls[0]!.task).toMatch(/file:line/);
    expect(calls[0]!.task).not.toContain(ASK_ME_SENTENCE);
  });

  it("sends a Chinese front-end color goal to the UI operator and answers in Chinese", () => {
    const d = plan("设计一个前端页面的配色方案");
    expect(d.toolCalls.map((c) => c.args.role_id)).toEqual(["ui-operator"]);
    expect(d.content).toMatch(/组建/);
    expect(String(d.toolCalls[0]!.args.task)).toContain("设计一个前端页面的配色方案");
  });

  it("splits research plus docs between a researcher and a technical writer, in the goal's order", () => {
    const calls = planned("Research how the app stores data and write docs for it");
    expect(calls.map((c) => c.role_id)).toEqual(["researcher", "technical-writer"]);
    expect(calls[0]!.task).not.toBe(calls[1]!.task);
    expect(calls[1]!.task).toMatch(/README/);
  });

  it("builds a team of three for a goal naming three kinds of work, never more", () => {
    const ids = planned("Fix the login bug, add regression tests and update the README").map((c) => c.role_id);
    expect(ids).toEqual(["full-stack-engineer", "test-engineer", "technical-writer"]);
    const many = planned("Review, test, document, research and redesign the UI of the whole app");
    expect(many.length).toBeGreaterThanOrEqual(1);
    expect(many.length).toBeLessThanOrEqual(3);
  });

  it("falls back to a researcher when nothing matches, and to the first role without one", () => {
    expect(planned("zzz qqq").map((c) => c.role_id)).toEqual(["researcher"]);
    const noResearcher = ROLES.filter((r) => r.id !== "researcher");
    expect(matchRoles("zzz qqq", parseCatalog(leaderTools(noResearcher)[0])).map((m) => m.role.id)).toEqual([noResearcher[0]!.id]);
  });

  it("only offers roles listed in the role_id enum", () => {
    const only = [ROLES.find((r) => r.id === "researcher")!];
    const d = decideOffline({ messages: [{ role: "user", content: "Review the authentication code for security issues" }], tools: leaderTools(only), thinking: "off" });
    expect(d.toolCalls.map((c) => c.args.role_id)).toEqual(["researcher"]);
  });

  it("marks ambiguous goals by rule", () => {
    expect(isAmbiguousGoal("Improve something")).toBe(true);
    expect(isAmbiguousGoal("Make the page better")).toBe(true);
    expect(isAmbiguousGoal("优化一下页面")).toBe(true);
    expect(isAmbiguousGoal("看看这个项目")).toBe(true);
    expect(isAmbiguousGoal("Fix it")).toBe(true);
    expect(isAmbiguousGoal("Review the authentication code for security issues")).toBe(false);
    expect(isAmbiguousGoal("设计一个前端页面的配色方案")).toBe(false);
  });

  it("puts the ask-me sentence in exactly the first task of an ambiguous goal", () => {
    const calls = planned("Maybe improve the docs and the tests");
    expect(calls.length).toBe(2);
    expect(calls[0]!.task.endsWith(ASK_ME_SENTENCE)).toBe(true);
    expect(calls.filter((c) => c.task.includes(ASK_ME_SENTENCE))).toHaveLength(1);
    expect(planned("Improve something")[0]!.task).toContain(ASK_ME_SENTENCE);
  });

  it("does not assemble a team for a greeting", () => {
    const d = plan("Hello, thanks!");
    expect(d.toolCalls).toEqual([]);
    expect(d.content).toMatch(/goal/);
  });
});

describe("offline sub-agent", () => {
  const task = 'Goal: "Review the authentication code for security issues"\nAs the Code Reviewer, review the project folder.';

  it("lists, descends, reads and searches, then reports what it really read", async () => {
    const run = await runSubAgent({ model, files: DEMO_PROJECT, displayName: "Code Reviewer_1", roleName: "Code Reviewer", task });
    expect(run.invalid).toEqual([]);
    const names = run.calls.map((c) => c.function.name);
    expect(names[0]).toBe("list_files");
    expect(JSON.parse(run.calls[0]!.function.arguments)).toEqual({ path: "." });
    expect(names).toContain("read_file");
    expect(names).toContain("search_files");
    expect(names[names.length - 1]).toBe("report_to_leader");
    expect(names).not.toContain("ask_master");
    // The reads of one step are parallel calls in one answer.
    expect(run.results.some((r) => r.tool_calls.filter((c) => c.function.name === "read_file").length >= 2)).toBe(true);
    const summary = run.report!.summary;
    expect(run.report!.status).toBe("completed");
    expect(summary).toContain("src/auth.ts");
    expect(summary).toContain("hard-coded secret");
    expect(summary).toContain("`login`");
    expect(summary).toMatch(/src\/auth\.ts:\d+/);
    expect(summary).toContain("**Recommendations**");
    // within the step budget, and never the same call twice
    expect(run.results.length).toBeLessThanOrEqual(MAX_STEPS);
    const keys = run.calls.map((c) => `${c.function.name} ${c.function.arguments}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("asks through ask_master when its task says so, and uses the answer", async () => {
    const run = await runSubAgent({
      model,
      files: DEMO_PROJECT,
      displayName: "UI Operator_1",
      roleName: "UI Operator",
      task: `Goal: "Make the page better"\nAs the UI Operator, study the pages.\n${ASK_ME_SENTENCE}`,
      answer: () => "Only the colors, please.",
    });
    expect(run.questions).toHaveLength(1);
    expect(run.questions[0]).toContain("Make the page better");
    expect(run.questions[0]).toMatch(/layout, the colors, or accessibility/);
    expect(run.questions[0]).toMatch(/index\.html|styles\.css/);
    const names = run.calls.map((c) => c.function.name);
    expect(names.indexOf("ask_master")).toBeLessThan(names.indexOf("report_to_leader"));
    expect(run.report!.summary).toContain("Only the colors, please.");
    expect(run.report!.summary).toContain("#0070f3");
  });

  it("descends into a folder when the top level has only folders", async () => {
    const files = { "web/index.html": "<html><head><title>Shop</title></head><body><h1>Shop</h1></body></html>", "web/site.css": "a { color: #ff0000; }" };
    const run = await runSubAgent({ model, files, displayName: "UI Operator_1", roleName: "UI Operator", task: 'Goal: "Propose a color palette for the shop page"' });
    const lists = run.calls.filter((c) => c.function.name === "list_files").map((c) => JSON.parse(c.function.arguments).path);
    expect(lists).toEqual([".", "web"]);
    expect(run.report!.summary).toContain("web/site.css");
    expect(run.report!.summary).toContain("#ff0000");
  });

  it("skips a file it cannot read and says so", async () => {
    const run = await runSubAgent({
      model,
      files: DEMO_PROJECT,
      displayName: "Researcher_1",
      roleName: "Researcher",
      task: 'Goal: "Research how the app stores notes in storage"',
      override: (call) =>
        call.function.name === "read_file" && JSON.parse(call.function.arguments).path === "README.md" ? JSON.stringify({ error: "Permission denied" }) : undefined,
    });
    expect(run.report!.summary).toMatch(/Could not read `README\.md`: Permission denied/);
    expect(run.report!.summary).toContain("src/store.ts");
  });

  it("acknowledges a teammate's message in its report", async () => {
    const run = await runSubAgent({
      model,
      files: DEMO_PROJECT,
      displayName: "Technical Writer_2",
      roleName: "Technical Writer",
      task: 'Goal: "Write docs for the notes storage"',
      inject: { afterCalls: 2, message: formatAgentMessage("message", "Researcher_1", "msg_r_001", "Notes live in localStorage under the key 'notes'.") },
    });
    expect(run.report!.summary).toContain("Message from Researcher_1");
    expect(run.report!.summary).toContain("localStorage under the key");
  });

  it("reports at its last step whatever its state, counting steps from its private notes", () => {
    const system = agentSystem("Researcher_1", "Researcher", 1);
    // what it kept of its first listing: a README and a folder still to look at
    const notes = `${system.content}\n\n## Your private notes (newest first)\n- step ${MAX_STEPS - 1} of at most ${MAX_STEPS}\n- listed .; entries: 2; dirs: src; files: README.md`;
    const messages: ChatMessage[] = [{ role: "system", content: notes }, { role: "user", content: formatAgentMessage("task", "Team Leader", "task_001", 'Goal: "Research the cache"') }];
    const d = decideOffline({ messages, tools: agentTools(false), thinking: "off" });
    expect(d.toolCalls.map((c) => c.name)).toEqual(["report_to_leader"]);
    // one step earlier it still works
    const earlier = messages.map((m, i) => (i === 0 ? { ...m, content: notes.replace(`step ${MAX_STEPS - 1}`, "step 2") } : m));
    expect(decideOffline({ messages: earlier, tools: agentTools(false), thinking: "off" }).toolCalls.map((c) => c.name)).not.toContain("report_to_leader");
  });

  it("does not report twice", async () => {
    const run = await runSubAgent({ model, files: DEMO_PROJECT, displayName: "Researcher_1", roleName: "Researcher", task: 'Goal: "Research the storage"' });
    const again = await model.stream({ messages: run.messages, tools: agentTools(false), thinking: "off" });
    expect(again.tool_calls).toEqual([]);
    expect(again.content).toMatch(/report is/);
  });

  it("handles an empty project folder", async () => {
    const run = await runSubAgent({ model, files: {}, displayName: "Researcher_1", roleName: "Researcher", task: 'Goal: "Research how configuration is loaded"' });
    expect(run.report!.summary).toMatch(/The project folder is empty\./);
    // nothing to search in: no search for the goal's words
    expect(run.calls.map((c) => c.function.name)).toEqual(["list_files", "report_to_leader"]);
  });
});

describe("offline sub-agent on real-sized projects, through the real context window", () => {
  const cases: Array<[string, () => Record<string, string>, string, string]> = [
    ["5 files of this repository", () => repoProject(5, ["lib/store/atomic.ts", "lib/store/atomic.test.ts", "lib/store/lock.ts"]), "Review lib/store for crash safety and write up test ideas for the atomic write path", "lib/store/atomic.ts"],
    ["300 files of this repository", () => repoProject(300), "Review lib/store for crash safety and write up test ideas for the atomic write path", "lib/store/atomic.ts"],
    ["3,000 generated files", () => generateProject(3_000, 3), "Review src/billing for error handling and list test ideas for the invoice path", "src/billing/"],
    ["20,000 generated files", () => generateProject(20_000, 20), "Review src/payments for error handling and list test ideas for refunds", "src/payments/"],
  ];
  for (const [name, project, goal, expectedPath] of cases) {
    it(`${name}: every role reports done within ${MAX_STEPS} calls, never repeating a call, with findings from what it read`, async () => {
      const files = project();
      for (const [display, role] of [["Code Reviewer_1", "Code Reviewer"], ["Test Engineer_2", "Test Engineer"], ["Researcher_3", "Researcher"]] as const) {
        const run = await runSubAgent({ model, files, displayName: display, roleName: role, task: `Goal: "${goal}"\nAs the ${role}, look into the project folder.` });
        expect(run.invalid).toEqual([]);
        expect(run.results.length).toBeLessThanOrEqual(MAX_STEPS);
        const keys = run.calls.map((c) => `${c.function.name} ${c.function.arguments}`);
        expect(new Set(keys).size, `${role} repeated a call: ${keys.join(" | ")}`).toBe(keys.length);
        expect(run.report?.status).toBe("completed");
        const summary = run.report!.summary;
        // concrete findings: the goal's folder, paths with line numbers that exist, the README, the test setup
        expect(summary).toContain(expectedPath);
        const refs = [...summary.matchAll(/`([\w./@-]+\.[a-z]+):(\d+)`/g)].map((m) => [m[1]!, Number(m[2])] as const);
        expect(refs.length, summary).toBeGreaterThan(0);
        for (const [file, line] of refs) expect(files[file]?.split("\n").length ?? 0, `${file}:${line} in ${role}'s report`).toBeGreaterThanOrEqual(line);
        expect(summary).toMatch(/The README \(`README\.md`\)/);
        expect(summary).toMatch(/Test setup: test command `[^`]+`/);
        expect(summary).not.toMatch(/\[failed\]|no matches for/i);
        // the context window left results out on the way (the notes carried them)
        if (Object.keys(files).length >= 300) expect(run.sent.some((sent) => sent.some((m) => m.role === "user" && /left out|omitted|not shown/i.test(String(m.content))))).toBe(true);
      }
    });
  }
});

describe("offline team runs", () => {
  it("runs a review goal end to end and summarizes the report's findings", async () => {
    const run = await runTeam(model, "Review the authentication code for security issues", DEMO_PROJECT);
    expect(run.invalid).toEqual([]);
    expect(run.agents.map((a) => a.roleId)).toEqual(["code-reviewer"]);
    const summary = run.afterReports[run.afterReports.length - 1]!;
    expect(summary).toMatch(/^## Team summary/);
    expect(summary).toContain("### Code Reviewer_1");
    expect(summary).toContain("hard-coded secret");
    expect(summary).toContain("### Next steps");
    expect(run.leaderResults[run.leaderResults.length - 1]!.tool_calls).toEqual([]);
  });

  it("reports progress while waiting and summarizes every report", async () => {
    const run = await runTeam(model, "Research how the app stores data and write docs for it", DEMO_PROJECT);
    expect(run.agents.map((a) => a.displayName)).toEqual(["Researcher_1", "Technical Writer_2"]);
    expect(run.leaderResults[1]!.content).toMatch(/Researcher_1 and Technical Writer_2 are working/);
    expect(run.afterReports[0]!.split("\n")[0]).toBe("The team is working: 1 of 2 reports in (waiting for Technical Writer_2).");
    // no internal marker line in what the person reads
    for (const text of [...run.leaderResults.map((r) => r.content), ...run.agents.flatMap((a) => a.run!.results.map((r) => r.content))]) expect(text).not.toMatch(/CONCLUSION:|NOTE:|of at most/);
    const summary = run.afterReports[1]!;
    for (const agent of run.agents) {
      expect(summary).toContain(`### ${agent.displayName}`);
      const firstFinding = agent.run!.report!.summary.split("\n").find((l) => l.startsWith("- "))!;
      expect(summary).toContain(firstFinding);
    }
    expect(summary).toContain("src/store.ts");
  });

  it("asks list_agents for its team when the window left the creating calls out, and never takes the placeholder for a goal", () => {
    const goal = "Research how the app stores data and write docs for it";
    const report = (name: string, id: string) => ({ role: "user" as const, content: formatAgentMessage("report", name, id, `**report** of ${name}\n\n**Findings**\n- \`src/store.ts:2\` holds the key.`) });
    const messages: ChatMessage[] = [
      { role: "system", content: "You are the Team Leader." },
      { role: "user", content: goal },
      { role: "user", content: "[4 earlier messages omitted here to fit the context budget; the full history is saved]" },
      report("Researcher_1", "out_r_001"),
      report("Technical Writer_2", "out_tw_001"),
    ];
    const ask = decideOffline({ messages, tools: leaderTools(ROLES), thinking: "off" });
    expect(ask.toolCalls).toEqual([{ name: "list_agents", args: {} }]);
    const agents = [
      { agent_id: 1, display_name: "Researcher_1", role_id: "researcher", status: "completed", task_summary: `Goal: "${goal}" As the Researcher, …` },
      { agent_id: 2, display_name: "Technical Writer_2", role_id: "technical-writer", status: "completed", task_summary: `Goal: "${goal}" As the Technical Writer, …` },
      { agent_id: 3, display_name: "UI Operator_3", role_id: "ui-operator", status: "completed", task_summary: 'Goal: "An earlier goal" …' },
    ];
    const listed = (upTo: number): ChatMessage[] => [
      ...messages.slice(0, upTo),
      { role: "assistant", content: "", tool_calls: [{ id: "la1", type: "function", function: { name: "list_agents", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "la1", content: JSON.stringify({ agents }) },
    ];
    const d = decideOffline({ messages: listed(5), tools: leaderTools(ROLES), thinking: "off" });
    expect(d.toolCalls).toEqual([]);
    expect(d.content).toContain("### Researcher_1");
    expect(d.content).toContain("### Technical Writer_2");
    expect(d.content).not.toContain("UI Operator_3");
    expect(d.content).not.toMatch(/omitted here to fit|CONCLUSION:/);
    // one report in: it waits, it does not assemble a new team
    const waiting = decideOffline({ messages: listed(4), tools: leaderTools(ROLES), thinking: "off" });
    expect(waiting.toolCalls).toEqual([]);
    expect(waiting.content).toMatch(/1 of 2 reports in/);
  });

  it("relays a question to the person once and puts the answer into the summary", async () => {
    const run = await runTeam(model, "Improve something", DEMO_PROJECT, "Focus on how notes are saved.");
    expect(run.agents).toHaveLength(1);
    expect(run.relays).toHaveLength(1);
    expect(run.relays[0]).toMatch(/^Researcher_1 asks: "/);
    expect(run.relays[0]).toContain("answer it in the agent's panel");
    expect(run.relays[0]).toContain("ask_r_001");
    expect(run.afterReports[0]).toContain("Focus on how notes are saved.");
    // After the relay, the leader does not relay the same question again.
    const idx = run.leader.findIndex((m) => m.content?.includes("answer it in the agent's panel"));
    const next = decideOffline({ messages: run.leader.slice(0, idx + 1), tools: leaderTools(ROLES), thinking: "off" });
    expect(next.content).not.toContain("asks:");
  });

  it("treats a question answered with answer_question as answered", () => {
    const messages: ChatMessage[] = [
      { role: "user", content: "Improve something" },
      { role: "assistant", content: "", tool_calls: [{ id: "c1", type: "function", function: { name: "create_sub_agent", arguments: JSON.stringify({ role_id: "researcher", task: "x" }) } }] },
      { role: "tool", tool_call_id: "c1", content: JSON.stringify({ agent_id: 1, display_name: "Researcher_1", task_id: "task_001" }) },
      { role: "user", content: formatAgentMessage("message", "Researcher_1", "ask_r_001", "Which part?") },
      { role: "assistant", content: "", tool_calls: [{ id: "c2", type: "function", function: { name: "answer_question", arguments: JSON.stringify({ question_id: "ask_r_001", answer: "The storage." }) } }] },
      { role: "tool", tool_call_id: "c2", content: JSON.stringify({ answered: true, agent_id: 1 }) },
    ];
    const d = decideOffline({ messages, tools: leaderTools(ROLES), thinking: "off" });
    expect(d.toolCalls).toEqual([]);
    expect(d.content).toMatch(/working/);
  });

  it("starts over for a new goal, and does not summarize twice", async () => {
    const first = await runTeam(model, "Research how the app stores data", DEMO_PROJECT);
    const leader = [...first.leader];
    const again = decideOffline({ messages: leader, tools: leaderTools(ROLES), thinking: "off" });
    expect(again.content).toMatch(/summarized above/);
    leader.push({ role: "user", content: "设计一个前端页面的配色方案" });
    const next = decideOffline({ messages: leader, tools: leaderTools(ROLES), thinking: "off" });
    expect(next.toolCalls.map((c) => c.args.role_id)).toEqual(["ui-operator"]);
  });

  it("explains a refused team instead of retrying", () => {
    const messages: ChatMessage[] = [
      { role: "user", content: "Review the authentication code for security issues" },
      { role: "assistant", content: "", tool_calls: [{ id: "c1", type: "function", function: { name: "create_sub_agent", arguments: JSON.stringify({ role_id: "code-reviewer", task: "x" }) } }] },
      { role: "tool", tool_call_id: "c1", content: JSON.stringify({ error: "sub-agent cap reached (8)" }) },
    ];
    const d = decideOffline({ messages, tools: leaderTools(ROLES), thinking: "off" });
    expect(d.toolCalls).toEqual([]);
    expect(d.content).toContain("sub-agent cap reached (8)");
  });

  it("runs the Chinese UI goal end to end with a Chinese summary of real findings", async () => {
    const run = await runTeam(model, "设计一个前端页面的配色方案", DEMO_PROJECT);
    expect(run.invalid).toEqual([]);
    const summary = run.afterReports[0]!;
    expect(summary).toMatch(/^## 团队总结/);
    expect(summary).toContain("#0070f3");
    expect(summary).toContain("### 后续步骤");
  });
});
