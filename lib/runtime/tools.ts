/**
 * The tools offered to the Team Leader and to sub-agents (OpenAI function calling), with one zod
 * schema per tool for its arguments. Pure: the runtime executes them. Invalid arguments become a
 * tool error the model can read and correct; they never crash a run.
 */
import { z } from "zod";
import { parseJsonWithin } from "@/lib/input-limits";
import type { ToolSpec } from "@/lib/models/types";

/** A role as the leader's `create_sub_agent` tool describes it. */
export interface RoleChoice {
  id: string;
  name: string;
  description: string;
  capabilities: string[];
}

const AgentIdArg = z.coerce.number().int().positive();
const Text = (max: number) => z.string().trim().min(1).max(max);

/** Argument schemas of the leader's tools (role_id is checked against the catalog separately). */
export const LEADER_TOOL_ARGS = {
  create_sub_agent: z.object({ role_id: z.string().min(1).max(100), task: Text(20_000), critical: z.boolean().default(true) }),
  send_message_to_agent: z.object({ agent_id: AgentIdArg, content: Text(20_000) }),
  answer_question: z.object({ question_id: Text(100), answer: Text(20_000) }),
  terminate_agent: z.object({ agent_id: AgentIdArg, reason: z.string().max(2000).default("") }),
  broadcast: z.object({ content: Text(20_000) }),
  list_agents: z.object({}).loose(),
} as const;

/** Argument schemas of a sub-agent's tools. */
export const AGENT_TOOL_ARGS = {
  report_to_leader: z.object({ summary: Text(50_000), status: z.enum(["completed", "partial", "failed"]).default("completed") }),
  ask_master: z.object({ question: Text(5000) }),
  send_message: z.object({ agent_id: AgentIdArg, content: Text(20_000) }),
  list_files: z.object({ path: z.string().max(4096).default(".") }),
  read_file: z.object({ path: z.string().min(1).max(4096) }),
  search_files: z.object({ query: Text(500), path: z.string().max(4096).optional(), glob: z.string().max(200).optional() }),
  write_file: z.object({ path: z.string().min(1).max(4096), content: z.string().max(1_000_000) }),
} as const;

export type LeaderToolName = keyof typeof LEADER_TOOL_ARGS;
export type AgentToolName = keyof typeof AGENT_TOOL_ARGS;

/** Tools that only read: safe to run again after a crash. */
export const READ_ONLY_TOOLS: ReadonlySet<string> = new Set(["list_agents", "list_files", "read_file", "search_files", "ask_master", "read_shared_context"]);

function fn(name: string, description: string, parameters: Record<string, unknown>): ToolSpec {
  return { type: "function", function: { name, description, parameters } };
}

/** One catalog line per role, in the format the offline model also reads. */
export function roleCatalog(roles: readonly RoleChoice[]): string {
  return roles
    .map((r) => `- ${r.id}: ${r.name} — ${r.description.replace(/\s+/g, " ").trim()} (capabilities: ${r.capabilities.join(", ")})`)
    .join("\n");
}

/** The leader's tools; `create_sub_agent.role_id` is an enum of exactly the roles given. */
export function leaderTools(roles: readonly RoleChoice[]): ToolSpec[] {
  const ids = roles.map((r) => r.id);
  return [
    fn(
      "create_sub_agent",
      `Create a sub-agent from a registered role and give it a concrete task. It starts working at once and reports back to you.\nAvailable roles:\n${roleCatalog(roles)}`,
      {
        type: "object",
        properties: {
          role_id: { type: "string", enum: ids, description: "The role to create the agent from." },
          task: { type: "string", description: "A concrete, self-contained task: what to look at, what to deliver." },
          critical: {
            type: "boolean",
            description: "Default true. false for work the answer does not depend on: once every critical agent has reported you are told to report partial results, and this agent's result is added when it arrives.",
          },
        },
        required: ["role_id", "task"],
      },
    ),
    fn("send_message_to_agent", "Send a message to one of your sub-agents (it reads it before its next step).", {
      type: "object",
      properties: { agent_id: { type: "integer" }, content: { type: "string" } },
      required: ["agent_id", "content"],
    }),
    fn("answer_question", "Answer a question a sub-agent asked you (question ids look like ask_uio_001).", {
      type: "object",
      properties: { question_id: { type: "string" }, answer: { type: "string" } },
      required: ["question_id", "answer"],
    }),
    fn("terminate_agent", "Stop a sub-agent for good.", {
      type: "object",
      properties: { agent_id: { type: "integer" }, reason: { type: "string" } },
      required: ["agent_id", "reason"],
    }),
    fn("broadcast", "Send the same message to every active sub-agent.", {
      type: "object",
      properties: { content: { type: "string" } },
      required: ["content"],
    }),
    fn("list_agents", "List your sub-agents with their status and task.", { type: "object", properties: {} }),
  ];
}

/** A sub-agent's tools; `write_file` only when its role has the `write` permission. */
export function agentTools(canWrite: boolean): ToolSpec[] {
  const tools = [
    fn("report_to_leader", "Report your finished work (or why you could not finish) to the Team Leader. This ends your task.", {
      type: "object",
      properties: {
        summary: { type: "string", description: "Your findings or deliverable, concrete, in Markdown." },
        status: { type: "string", enum: ["completed", "partial", "failed"] },
      },
      required: ["summary"],
    }),
    fn("ask_master", "Ask the Team Leader (or the person) a question and wait for the answer. Use it instead of guessing.", {
      type: "object",
      properties: { question: { type: "string" } },
      required: ["question"],
    }),
    fn("send_message", "Send a message to a teammate (another sub-agent) by its agent id.", {
      type: "object",
      properties: { agent_id: { type: "integer" }, content: { type: "string" } },
      required: ["agent_id", "content"],
    }),
    fn("list_files", "List files and folders in the project folder (paths relative to it).", {
      type: "object",
      properties: { path: { type: "string", description: "Folder relative to the project root; default '.'" } },
    }),
    fn("read_file", "Read a text file of the project folder.", {
      type: "object",
      properties: { path: { type: "string" } },
      required: ["path"],
    }),
    fn("search_files", "Search the project's text files for a string.", {
      type: "object",
      properties: { query: { type: "string" }, path: { type: "string" }, glob: { type: "string", description: "e.g. **/*.ts" } },
      required: ["query"],
    }),
  ];
  if (canWrite) {
    tools.push(
      fn("write_file", "Create or replace a text file in the project folder.", {
        type: "object",
        properties: { path: { type: "string" }, content: { type: "string" } },
        required: ["path", "content"],
      }),
    );
  }
  return tools;
}

/** Characters JSON may spend on one value of `schema`: a string of `max` characters could have every one escaped (`\u0000`, six). */
function valueBudget(schema: unknown): number {
  let s = schema;
  while (s instanceof z.ZodOptional || s instanceof z.ZodDefault || s instanceof z.ZodNullable || s instanceof z.ZodPipe) {
    s = s instanceof z.ZodPipe ? s.in : s.unwrap();
  }
  if (s instanceof z.ZodString) return 6 * (s.maxLength ?? 0) + 2;
  if (s instanceof z.ZodObject) return Object.entries(s.shape as Record<string, unknown>).reduce((n, [k, v]) => n + k.length + 4 + valueBudget(v), 2);
  return 64;
}

const budgets = new WeakMap<object, number>();

/**
 * The longest `arguments` text accepted for a tool with this argument schema, in characters:
 * what its longest allowed values can take in JSON, plus room for whitespace. Checked before any
 * parsing, so an oversize call costs nothing but its length check. Derived from the schema (its
 * string `max`s are the documented limits).
 */
export function maxArgumentChars(schema: z.ZodType): number {
  let n = budgets.get(schema);
  if (n === undefined) {
    n = valueBudget(schema) + 4096;
    budgets.set(schema, n);
  }
  return n;
}

/**
 * Parses a tool call's JSON arguments with its schema; an error text for the model otherwise.
 * Bounded work whatever the model sent: the length is checked against {@link maxArgumentChars}
 * and the nesting against `MAX_JSON_DEPTH` before `JSON.parse` runs.
 */
export function parseToolArguments<S extends z.ZodType>(schema: S, raw: string): { ok: true; args: z.infer<S> } | { ok: false; error: string } {
  const max = maxArgumentChars(schema);
  if (raw.length > max) return { ok: false, error: `arguments refused: they are ${raw.length} characters; this tool accepts at most ${max}` };
  const json = parseJsonWithin(raw.trim() === "" ? "{}" : raw, max);
  if (!json.ok) return { ok: false, error: json.reason === "invalid" ? `arguments are not valid JSON: ${json.message.replace(/^it is not valid JSON: /, "")}` : `arguments refused: ${json.message}` };
  const value = json.value;
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    return { ok: false, error: `invalid arguments: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}` };
  }
  return { ok: true, args: parsed.data };
}
