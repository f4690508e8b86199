/**
 * The team tools: the Team Leader's (create and steer sub-agents) and a sub-agent's (report, ask,
 * message a teammate, the workspace tools), made with the tool kernel (lib/tools). The runtime
 * executes them (lib/runtime/team-run.ts).
 */
import { z } from "zod";
import { argsByName, defineTool } from "@/lib/tools/define";

/** Models sometimes send an id as a string (`"3"`); coerced, still shown to the model as an integer. */
const AgentIdArg = z.coerce.number().int().positive();
const Text = (max: number) => z.string().trim().min(1).max(max);

/** The leader's `create_sub_agent`; `role_id` is checked against the role catalog when the call runs. */
export const CREATE_SUB_AGENT = defineTool({
  name: "create_sub_agent",
  audience: "leader",
  readOnly: false,
  effect: "internal",
  description: "Create a sub-agent from a registered role and give it a concrete task. It starts working at once and reports back to you.",
  args: z.object({
    role_id: z.string().min(1).max(100).describe("The role to create the agent from."),
    task: Text(20_000).describe("A concrete, self-contained task: what to look at, what to deliver."),
    critical: z
      .boolean()
      .default(true)
      .describe(
        "Default true. false for work the answer does not depend on: once every critical agent has reported you are told to report partial results, and this agent's result is added when it arrives.",
      ),
  }),
});

/** The Team Leader's tools, in the order they are offered. */
export const LEADER_TOOLS = [
  CREATE_SUB_AGENT,
  defineTool({
    name: "send_message_to_agent",
    audience: "leader",
    readOnly: false,
    effect: "internal",
    description: "Send a message to one of your sub-agents (it reads it before its next step).",
    args: z.object({ agent_id: AgentIdArg.describe("The sub-agent's id, as list_agents shows it."), content: Text(20_000) }),
  }),
  defineTool({
    name: "answer_question",
    audience: "leader",
    readOnly: false,
    effect: "internal",
    description: "Answer a question a sub-agent asked you (question ids look like ask_uio_001).",
    args: z.object({ question_id: Text(100), answer: Text(20_000) }),
  }),
  defineTool({
    name: "terminate_agent",
    audience: "leader",
    readOnly: false,
    effect: "internal",
    description: "Stop a sub-agent for good.",
    args: z.object({ agent_id: AgentIdArg.describe("The sub-agent's id, as list_agents shows it."), reason: z.string().max(2000).default("") }),
  }),
  defineTool({
    name: "broadcast",
    audience: "leader",
    readOnly: false,
    effect: "internal",
    description: "Send the same message to every active sub-agent.",
    args: z.object({ content: Text(20_000) }),
  }),
  defineTool({
    name: "list_agents",
    audience: "leader",
    readOnly: true,
    description: "List your sub-agents with their status and task.",
    // Loose: a model that sends `{"verbose": true}` to a tool without arguments still gets its list.
    args: z.object({}).loose(),
  }),
] as const;

/** A sub-agent's tools, in the order they are offered. */
export const AGENT_TOOLS = [
  defineTool({
    name: "report_to_leader",
    audience: "agent",
    action: { kind: "report" },
    readOnly: false,
    effect: "internal",
    description: "Report your finished work (or why you could not finish) to the Team Leader. This ends your task.",
    args: z.object({
      summary: Text(50_000).describe("Your findings or deliverable, concrete, in Markdown."),
      status: z.enum(["completed", "partial", "failed"]).default("completed"),
    }),
  }),
  defineTool({
    name: "ask_master",
    audience: "agent",
    action: { kind: "ask_leader", target: "question" },
    // Asking changes no state outside the agent: a question cut short by a restart is asked again.
    readOnly: true,
    description: "Ask the Team Leader (or the person) a question and wait for the answer. Use it instead of guessing.",
    args: z.object({ question: Text(5000) }),
  }),
  defineTool({
    name: "send_message",
    audience: "agent",
    action: { kind: "message", target: "agent_id" },
    readOnly: false,
    effect: "internal",
    description: "Send a message to a teammate (another sub-agent) by its agent id.",
    args: z.object({ agent_id: AgentIdArg.describe("The teammate's agent id."), content: Text(20_000) }),
  }),
  defineTool({
    name: "list_files",
    audience: "agent",
    action: { kind: "list", target: "path" },
    readOnly: true,
    description: "List files and folders in the project folder (paths relative to it).",
    args: z.object({ path: z.string().max(4096).default(".").describe("Folder relative to the project root; default '.'") }),
  }),
  defineTool({
    name: "read_file",
    audience: "agent",
    action: { kind: "read", target: "path" },
    readOnly: true,
    description: "Read a text file of the project folder.",
    args: z.object({ path: z.string().min(1).max(4096).describe("File path relative to the project root.") }),
  }),
  defineTool({
    name: "search_files",
    audience: "agent",
    action: { kind: "search", target: "query" },
    readOnly: true,
    description: "Search the project's text files for a string.",
    args: z.object({
      query: Text(500),
      path: z.string().max(4096).optional().describe("Folder to search, relative to the project root; default the whole project."),
      glob: z.string().max(200).optional().describe("e.g. **/*.ts"),
    }),
  }),
  defineTool({
    name: "write_file",
    audience: "agent",
    action: { kind: "write", target: "path" },
    readOnly: false,
    permission: "write",
    description: "Create or replace a text file in the project folder.",
    args: z.object({ path: z.string().min(1).max(4096).describe("File path relative to the project root."), content: z.string().max(1_000_000) }),
  }),
  defineTool({
    name: "run_command",
    audience: "agent",
    action: { kind: "run", target: "command" },
    readOnly: false,
    effect: "execute",
    permission: "execute",
    description:
      "Run a command in the project folder (always there: a `cd` inside the command does not change where the next one starts). A person may have to approve it first. Returns the exit code, the output (head and tail when long) and the duration.",
    args: z.object({
      command: z.string().trim().min(1).max(10_000).describe("The command line, e.g. `npm test` or `ls -la src | head`."),
      timeout_seconds: z.coerce.number().int().min(1).max(86_400).optional().describe("Deadline in seconds; the server's maximum applies."),
    }),
  }),
] as const;

/** Argument schemas of the leader's tools (role_id is checked against the catalog separately). */
export const LEADER_TOOL_ARGS = argsByName(LEADER_TOOLS);

/** Argument schemas of a sub-agent's tools. */
export const AGENT_TOOL_ARGS = argsByName(AGENT_TOOLS);

