/**
 * Test-only helpers: an in-memory project folder with the workspace tools' JSON shapes, and tiny
 * drivers that play the runtime's part (call the model, run the tools it asks for, feed results
 * back) so whole team runs can be simulated without the runtime. Not used by production code.
 */
import { agentTools, AGENT_TOOL_ARGS, leaderTools, LEADER_TOOL_ARGS, type RoleChoice } from "@/lib/team-tools";
import { parseToolArguments } from "@/lib/tools";
import { formatAgentMessage, nextSeedId, roleAbbreviation, type SeedCounters } from "@/lib/contracts/messages";
import { buildModelInput, collectPromotions, deriveWorkNotes, NOTE_HINT, PROMOTION_HINT } from "@/lib/context";
import type { Message } from "@/lib/contracts/on-disk";
import { capToolOutput } from "@/lib/workspace/cap";
import type { ChatMessage, ChatModel, ChatResult, ToolCall } from "@/lib/models/types";

/** The runtime's default cap on one tool result (characters; ASTRION_TOOL_OUTPUT_MAX). */
const TOOL_OUTPUT_MAX = 12_000;

/** The role library of the repository's `agents/` folder, as the runtime lists it in the catalog. */
export const ROLES: RoleChoice[] = [
  {
    id: "code-reviewer",
    name: "Code Reviewer",
    description:
      "Reviews code and diffs for correctness, security, tests and maintainability, and reports concrete findings with file and line references. Reads only; never edits.",
    capabilities: ["code-review", "diff-analysis", "security-review", "python", "typescript", "testing"],
  },
  {
    id: "full-stack-engineer",
    name: "Full-Stack Engineer",
    description:
      "Implements features end to end — API routes, data models, business logic and the UI wiring — and fixes bugs with small, well-tested changes.",
    capabilities: ["implementation", "backend", "frontend", "api", "database", "typescript", "javascript", "python", "bug-fix", "refactoring"],
  },
  {
    id: "researcher",
    name: "Researcher",
    description:
      "Investigates a question in the project's code and documents — how something works, where it lives, which option fits — and reports sourced findings and a recommendation. Reads only.",
    capabilities: ["research", "analysis", "codebase-exploration", "documentation", "comparison", "summarization"],
  },
  {
    id: "technical-writer",
    name: "Technical Writer",
    description: "Writes and updates READMEs, guides, API references and changelogs that match the code as it is, with commands and examples that work.",
    capabilities: ["documentation", "readme", "api-docs", "tutorials", "changelog", "markdown"],
  },
  {
    id: "test-engineer",
    name: "Test Engineer",
    description:
      "Writes and repairs automated tests — unit, integration and end-to-end — that pin down behaviour users rely on, and reports coverage gaps and failures found.",
    capabilities: ["testing", "unit-tests", "integration-tests", "e2e", "vitest", "jest", "pytest", "playwright", "regression"],
  },
  {
    id: "ui-operator",
    name: "UI Operator",
    description: "Front-end design and implementation — layouts, components, color schemes, responsive and accessible UI that matches the project's existing style.",
    capabilities: ["ui-design", "frontend", "css", "html", "react", "color-scheme", "responsive-design", "accessibility"],
  },
];

/** A small web app with an auth module, a data store, a page and a stylesheet. */
export const DEMO_PROJECT: Record<string, string> = {
  "README.md": "# Notes App\n\nA tiny notes app with login and local storage.\n\n## Install\n\nnpm install\n\n## Usage\n\nnpm start\n",
  "package.json": JSON.stringify(
    { name: "notes-app", version: "1.2.0", description: "Take notes in the browser", scripts: { start: "node server.js", build: "tsc", test: "vitest run" }, dependencies: { express: "^4.0.0" } },
    null,
    2,
  ),
  "server.js": "// HTTP server of the notes app.\nconst express = require('express');\nconst app = express();\napp.listen(3000);\n",
  "src/auth.ts":
    '/** Authentication: login and session tokens. */\nexport const API_KEY = "sk-live-123456";\n\nexport function login(user: string, password: string): boolean {\n  return password === "hunter2";\n}\n\nexport function sessionToken(): string {\n  return String(Math.random());\n}\n',
  "src/store.ts":
    "/** Stores notes in localStorage under one key. */\nexport const STORAGE_KEY = 'notes';\n\nexport function saveNotes(notes: string[]): void {\n  localStorage.setItem(STORAGE_KEY, JSON.stringify(notes));\n}\n\nexport function loadNotes(): string[] {\n  // TODO: handle corrupt data\n  return JSON.parse(localStorage.getItem(STORAGE_KEY) ?? '[]');\n}\n",
  "public/index.html":
    '<!doctype html>\n<html>\n<head><title>Notes</title><link rel="stylesheet" href="styles.css"></head>\n<body>\n<h1>My Notes</h1>\n<img src="logo.png">\n</body>\n</html>\n',
  "public/styles.css": "body { background: #ffffff; color: #333333; }\nh1 { color: #0070f3; }\n.note { border: 1px solid #eeeeee; }\n",
  "public/logo.png": "\u0000PNG",
};

/** The JSON text the runtime's workspace tools would return for one call on an in-memory tree. */
function runWorkspaceTool(files: Readonly<Record<string, string>>, name: string, args: Record<string, unknown>): string {
  const paths = Object.keys(files).sort();
  if (name === "list_files") {
    const dir = String(args.path ?? ".").replace(/^\.\/?/, "").replace(/\/$/, "");
    const prefix = dir ? `${dir}/` : "";
    if (dir && !paths.some((p) => p.startsWith(prefix))) return JSON.stringify({ error: `Folder not found: "${dir}"` });
    const dirs = new Set<string>();
    const fileEntries: Array<{ path: string; type: string; size: number }> = [];
    for (const p of paths) {
      if (!p.startsWith(prefix)) continue;
      const rest = p.slice(prefix.length);
      const slash = rest.indexOf("/");
      if (slash >= 0) dirs.add(prefix + rest.slice(0, slash));
      else fileEntries.push({ path: p, type: "file", size: files[p]!.length });
    }
    const all = [...[...dirs].sort().map((d) => ({ path: d, type: "dir" })), ...fileEntries];
    // the runtime's limits (lib/workspace/tools.ts WORKSPACE_LIMITS)
    const entries = all.slice(0, 200);
    return JSON.stringify({ path: dir || ".", entries, truncated: all.length > entries.length });
  }
  if (name === "read_file") {
    const path = String(args.path ?? "");
    const content = files[path];
    if (content === undefined) return JSON.stringify({ error: `File or folder not found: "${path}"` });
    if (content.includes("\u0000")) return JSON.stringify({ error: `Binary file, not shown: "${path}"` });
    return JSON.stringify({ path, content, size: content.length, truncated: false });
  }
  if (name === "search_files") {
    const query = String(args.query ?? "").toLowerCase();
    const under = typeof args.path === "string" && args.path && args.path !== "." ? `${args.path.replace(/\/$/, "")}/` : "";
    const matches: Array<{ path: string; line: number; text: string }> = [];
    for (const p of paths) {
      if (!p.startsWith(under)) continue;
      const content = files[p]!;
      if (content.includes("\u0000")) continue;
      content.split("\n").forEach((text, i) => {
        if (text.toLowerCase().includes(query)) matches.push({ path: p, line: i + 1, text: text.slice(0, 300) });
      });
      if (matches.length > 100) break;
    }
    return JSON.stringify({ query: args.query, matches: matches.slice(0, 100), truncated: matches.length > 100 });
  }
  if (name === "write_file") return JSON.stringify({ error: "write_file is not allowed in this test" });
  return JSON.stringify({ error: `unknown tool ${name}` });
}

/** The assistant message a runtime would store for a result. */
function assistantMessage(r: ChatResult): ChatMessage {
  return { role: "assistant", content: r.content, ...(r.tool_calls.length ? { tool_calls: r.tool_calls } : {}), ...(r.notes?.length ? { metadata: { private_notes: r.notes } } : {}) } as ChatMessage;
}

/** A role prompt as long as the library's (the runtime puts it in the agent's system message). */
const ROLE_PROMPT = Array.from({ length: 40 }, (_, i) => `${i + 1}. Work carefully: read what the task needs, cite files with line numbers, and say what you did not check.`).join("\n");

/** The system message of a sub-agent, in the runtime's wording, with a role prompt of realistic length. */
export function agentSystem(displayName: string, roleName: string, agentId: number): ChatMessage {
  return {
    role: "system",
    content: `你是智能体集群团队的一员。You are a member of a team of AI agents led by a Team Leader.\nYou are: ${displayName} (agent id ${agentId}, role ${roleName}).\nProject folder: /tmp/project. Use list_files, read_file and search_files on it.\n\n${ROLE_PROMPT}`,
  };
}

/** Options of {@link runSubAgent}. */
export interface SubAgentRunOptions {
  model: ChatModel;
  files: Readonly<Record<string, string>>;
  displayName: string;
  roleName: string;
  agentId?: number;
  task: string;
  canWrite?: boolean;
  /** Answers `ask_master`; called with the question. */
  answer?: (question: string) => string;
  /** Delivered as a user message after this many model calls. */
  inject?: { afterCalls: number; message: string };
  /** Overrides a tool's result text. */
  override?: (call: ToolCall) => string | undefined;
}

/** What a simulated sub-agent run produced. */
export interface SubAgentRun {
  messages: ChatMessage[];
  calls: ToolCall[];
  results: ChatResult[];
  questions: string[];
  report?: { summary: string; status: string };
  /** Tool-call arguments that failed the runtime's schemas. */
  invalid: string[];
  /** What each model call was sent (after the context window). */
  sent: ChatMessage[][];
}

/** Runs one sub-agent to its report against the in-memory project. */
export async function runSubAgent(o: SubAgentRunOptions): Promise<SubAgentRun> {
  const messages: ChatMessage[] = [
    agentSystem(o.displayName, o.roleName, o.agentId ?? 1),
    { role: "user", content: formatAgentMessage("task", "Team Leader", "task_001", o.task) },
  ];
  const run: SubAgentRun = { messages, calls: [], results: [], questions: [], invalid: [], sent: [] };
  // What the runtime sends (lib/runtime/team/agent-loop.ts): the real context window over the
  // saved history, with the default budgets, the agent's work notes and the promoted conclusions.
  const history = messages as unknown as Message[];
  const goal = /^Goal:\s*"(.*)"\s*$/m.exec(o.task)?.[1] ?? o.task;
  for (let i = 0; i < 20; i++) {
    if (o.inject && o.inject.afterCalls === i) messages.push({ role: "user", content: o.inject.message });
    const input = buildModelInput({
      kind: "agent",
      system: `${PROMOTION_HINT}\n${NOTE_HINT}`,
      messages: history,
      facts: { project_path: "/tmp/project", goal },
      promoted: collectPromotions(history),
      privateNotes: deriveWorkNotes(history),
    });
    run.sent.push(input.messages);
    const r = await o.model.stream({ messages: input.messages, tools: agentTools(o.canWrite ?? false), thinking: "on" });
    run.results.push(r);
    messages.push(assistantMessage(r));
    if (r.tool_calls.length === 0) break;
    let reported = false;
    for (const call of r.tool_calls) {
      run.calls.push(call);
      const schema = AGENT_TOOL_ARGS[call.function.name as keyof typeof AGENT_TOOL_ARGS];
      const parsed = schema ? parseToolArguments(schema, call.function.arguments) : { ok: false as const, error: "unknown tool" };
      if (!parsed.ok) run.invalid.push(`${call.function.name}: ${parsed.error}`);
      const args = JSON.parse(call.function.arguments) as Record<string, unknown>;
      let content = o.override?.(call);
      if (content === undefined) {
        if (call.function.name === "ask_master") {
          run.questions.push(String(args.question));
          content = JSON.stringify({ answer: o.answer?.(String(args.question)) ?? "No preference.", answered_by: "person" });
        } else if (call.function.name === "report_to_leader") {
          run.report = { summary: String(args.summary), status: String(args.status ?? "completed") };
          reported = true;
          content = JSON.stringify({ ok: true });
        } else content = runWorkspaceTool(o.files, call.function.name, args);
      }
      messages.push({ role: "tool", tool_call_id: call.id, content: capToolOutput(content, TOOL_OUTPUT_MAX) });
    }
    if (reported) break;
  }
  return run;
}

/** A created agent in a simulated team run. */
interface TeamAgent {
  agentId: number;
  displayName: string;
  roleId: string;
  task: string;
  run?: SubAgentRun;
}

/** What a simulated team run produced. */
export interface TeamRun {
  leader: ChatMessage[];
  leaderResults: ChatResult[];
  agents: TeamAgent[];
  /** Leader answers given right after a question arrived. */
  relays: string[];
  /** Leader answers given right after each report arrived. */
  afterReports: string[];
  invalid: string[];
}

/**
 * Runs a whole team on the in-memory project: the leader plans and creates agents, each agent runs
 * in turn; a question goes to the leader (who relays it) and is then answered by `personAnswer`;
 * each report goes to the leader, whose last answer is the summary.
 */
export async function runTeam(model: ChatModel, goal: string, files: Readonly<Record<string, string>>, personAnswer = "Focus on the colors."): Promise<TeamRun> {
  const leader: ChatMessage[] = [
    { role: "system", content: "You are the Team Leader of a team of AI agents.\nProject folder (the agents' workspace): /tmp/project" },
    { role: "user", content: goal },
  ];
  const tools = leaderTools(ROLES);
  const team: TeamRun = { leader, leaderResults: [], agents: [], relays: [], afterReports: [], invalid: [] };
  let counters: SeedCounters = {};
  const callLeader = async () => {
    const r = await model.stream({ messages: [...leader], tools, thinking: "on" });
    team.leaderResults.push(r);
    leader.push(assistantMessage(r));
    return r;
  };

  const plan = await callLeader();
  for (const call of plan.tool_calls) {
    const schema = LEADER_TOOL_ARGS[call.function.name as keyof typeof LEADER_TOOL_ARGS];
    const parsed = schema ? parseToolArguments(schema, call.function.arguments) : { ok: false as const, error: "unknown tool" };
    if (!parsed.ok) team.invalid.push(`${call.function.name}: ${parsed.error}`);
    const args = JSON.parse(call.function.arguments) as { role_id: string; task: string };
    const role = ROLES.find((r) => r.id === args.role_id);
    if (!role) {
      leader.push({ role: "tool", tool_call_id: call.id, content: JSON.stringify({ error: `unknown role ${args.role_id}` }) });
      continue;
    }
    const agentId = team.agents.length + 1;
    const displayName = `${role.name}_${agentId}`;
    const task = nextSeedId("task", counters);
    counters = task.counters;
    team.agents.push({ agentId, displayName, roleId: role.id, task: args.task });
    leader.push({ role: "tool", tool_call_id: call.id, content: JSON.stringify({ agent_id: agentId, display_name: displayName, task_id: task.id }) });
  }
  if (plan.tool_calls.length > 0) await callLeader();

  for (const agent of team.agents) {
    const role = ROLES.find((r) => r.id === agent.roleId)!;
    const abbrev = roleAbbreviation(role.id);
    agent.run = await runSubAgent({
      model,
      files,
      displayName: agent.displayName,
      roleName: role.name,
      agentId: agent.agentId,
      task: agent.task,
      answer: () => personAnswer,
      override: undefined,
    });
    team.invalid.push(...agent.run.invalid);
    for (const q of agent.run.questions) {
      const id = nextSeedId("question", counters, abbrev);
      counters = id.counters;
      leader.push({ role: "user", content: formatAgentMessage("message", agent.displayName, id.id, q) });
      team.relays.push((await callLeader()).content);
    }
    if (agent.run.report) {
      const id = nextSeedId("report", counters, abbrev);
      counters = id.counters;
      leader.push({ role: "user", content: formatAgentMessage("report", agent.displayName, id.id, agent.run.report.summary) });
      team.afterReports.push((await callLeader()).content);
    }
  }
  return team;
}
