/**
 * Turns a stored conversation (leader or sub-agent) into what the chat shows: system and hidden
 * messages dropped, inter-agent texts parsed into cards, and each tool result folded into the
 * call it answers. Pure: unit-tested beside it.
 */
import { parseAgentMessage, type AgentMessage } from "@/lib/contracts/messages";
import type { Message } from "@/lib/contracts/on-disk";
import { ownValue } from "@/lib/own";

/** How an inter-agent message is shown: `question` is a message whose id starts with `ask_`. */
export type AgentCardVariant = "task" | "message" | "report" | "question";

/** One row of the chat. */
export type ThreadItem =
  | { kind: "person"; key: string; message: Message }
  | { kind: "agent-card"; key: string; message: Message; parsed: AgentMessage; variant: AgentCardVariant }
  /** A user-role text that is neither a person's words nor a seed-format message (e.g. a system note). */
  | { kind: "note"; key: string; message: Message }
  | { kind: "assistant"; key: string; message: Message; toolResults: ReadonlyMap<string, Message> }
  /** A tool result whose call is not in the list (e.g. the call was hidden). */
  | { kind: "tool"; key: string; message: Message };

/** The card variant of a parsed inter-agent message. */
function agentCardVariant(parsed: AgentMessage): AgentCardVariant {
  return parsed.id.startsWith("ask_") ? "question" : parsed.kind;
}

/** The chat rows of `messages`, in order. */
export function buildThreadItems(messages: readonly Message[]): ThreadItem[] {
  const visible = messages.filter((m) => m.role !== "system" && m.metadata?.visibility !== "hidden");
  const callIds = new Set<string>();
  for (const m of visible) for (const call of m.tool_calls ?? []) callIds.add(call.id);
  const results = new Map<string, Message>();
  for (const m of visible) if (m.role === "tool" && m.tool_call_id && callIds.has(m.tool_call_id)) results.set(m.tool_call_id, m);

  const items: ThreadItem[] = [];
  visible.forEach((message, index) => {
    const key = message.message_id ? `${message.message_id}#${index}` : `i${index}`;
    if (message.role === "tool") {
      if (!message.tool_call_id || !callIds.has(message.tool_call_id)) items.push({ kind: "tool", key, message });
      return;
    }
    if (message.role === "assistant") {
      items.push({ kind: "assistant", key, message, toolResults: results });
      return;
    }
    const parsed = parseAgentMessage(message.content ?? "");
    if (parsed) {
      items.push({ kind: "agent-card", key, message, parsed, variant: agentCardVariant(parsed) });
      return;
    }
    const source = message.metadata?.message_source;
    items.push({ kind: source === "sub_agent" || source === "system" || source === "leader" ? "note" : "person", key, message });
  });
  return items;
}

/**
 * The error text of a tool result written as `{"error": …}` (a string or `{message}`), or null
 * when the result is not an error.
 */
export function toolResultError(content: string | null | undefined): string | null {
  if (!content) return null;
  const trimmed = content.trim();
  if (!trimmed.startsWith("{")) return null;
  try {
    const value: unknown = JSON.parse(trimmed);
    if (!value || typeof value !== "object" || !("error" in value)) return null;
    const error = (value as { error: unknown }).error;
    if (error === null || error === undefined || error === false) return null;
    if (typeof error === "string") return error;
    if (typeof error === "object" && "message" in error && typeof error.message === "string") return error.message;
    return JSON.stringify(error);
  } catch {
    return null;
  }
}

/** The arguments that say what a call does, per tool; other tools show their first two arguments. */
const KEY_ARGUMENTS: Readonly<Record<string, readonly string[]>> = {
  create_sub_agent: ["role_id", "task"],
  send_message_to_agent: ["agent_id", "content"],
  answer_question: ["question_id", "answer"],
  terminate_agent: ["agent_id", "reason"],
  broadcast: ["content"],
  list_agents: [],
  report_to_leader: ["status", "summary"],
  ask_master: ["question"],
  send_message: ["agent_id", "content"],
  list_files: ["path"],
  read_file: ["path"],
  search_files: ["query", "pattern", "path"],
  write_file: ["path"],
  read_shared_context: [],
  update_shared_context: ["key", "mode"],
};

/** A tool call's arguments, parsed, and the few worth showing on its card. */
export interface ToolCallSummary {
  /** Null when the arguments are not a JSON object (the model wrote something broken). */
  args: Record<string, unknown> | null;
  keyArgs: Array<{ name: string; value: string }>;
}

function argText(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

/** Parses a call's JSON arguments and picks its key arguments. */
export function summarizeToolCall(name: string, argumentsText: string): ToolCallSummary {
  let args: Record<string, unknown> | null = null;
  try {
    const value: unknown = JSON.parse(argumentsText || "{}");
    if (value && typeof value === "object" && !Array.isArray(value)) args = value as Record<string, unknown>;
  } catch {
    args = null;
  }
  if (!args) return { args: null, keyArgs: [] };
  const parsed = args;
  const names = ownValue(KEY_ARGUMENTS, name) ?? Object.keys(parsed).slice(0, 2);
  const keyArgs = names
    .filter((n) => parsed[n] !== undefined && parsed[n] !== null && parsed[n] !== "")
    .map((n) => ({ name: n, value: argText(parsed[n]) }));
  return { args: parsed, keyArgs };
}
