/**
 * A conversation as a Markdown report, from its parsed folder (./bundle.ts): the facts, token
 * usage, a summary of the audit timeline, the Team Leader's thread as a person saw it, and each
 * sub-agent's whole conversation folded in a `<details>` block. Pure.
 *
 * Everything that came from a person or a model is made inert (./markdown-text.ts): message text
 * sits in fences longer than any backtick run inside it; names and titles are escaped. Inter-agent
 * messages (the seed's `来自 … 的任务发布 / 消息 / 任务完成汇报` headers) become quoted cards.
 */
import { parseAgentMessage, type AgentMessageKind } from "@/lib/contracts/messages";
import { normalizeTokenStatistics, tokenCountsOf, type UsageBucket } from "@/lib/models/usage";
import { formatUsd } from "@/lib/models/cost";
import type { Message } from "@/lib/contracts/on-disk";
import type { ConversationFolder, FolderAgent } from "./bundle";
import { clipped, fenced, htmlInline, inline, quoted, table } from "./markdown-text";
import { AuthorSchema } from "@/lib/contracts/people";

/** Characters of one message body kept in the report (the zip export keeps everything). */
const MAX_MESSAGE_CHARS = 20_000;
/** Characters of a tool call's arguments or a tool result kept in the report. */
const MAX_TOOL_CHARS = 1_000;
/** Timeline notices (failed, refused, interrupted, capped records, conflict resolutions) listed. */
const MAX_NOTICES = 50;

/** Timeline statuses reported as notices. */
const NOTICE_STATUSES = new Set(["failed", "refused", "interrupted", "capped"]);

const CARD_TITLES: Record<AgentMessageKind, string> = {
  task: "Task assignment",
  message: "Message",
  report: "Completion report",
};

/** Options of {@link renderConversationMarkdown}. */
export interface RenderOptions {
  /** When the report was made (shown in its header). */
  now?: Date;
  /** The app version (shown in its header). */
  appVersion?: string;
}

/** A bucket's cost as the report writes it: dollars, or a dash for calls that had no prices. */
function costText(b: UsageBucket | undefined): string {
  const cost = tokenCountsOf(b).cost_usd;
  return cost === null ? "—" : formatUsd(cost, "en-US");
}

function usageRow(label: string, b: UsageBucket, priced: boolean): Array<string | number> {
  const row: Array<string | number> = [label, b.calls, b.prompt_tokens, b.cached_tokens, b.completion_tokens, b.total_tokens];
  return priced ? [...row, costText(b)] : row;
}

function renderUsage(folder: ConversationFolder): string {
  const stats = normalizeTokenStatistics(folder.leader.token_statistics);
  const names = new Map(folder.agents.map((a) => [`agent_${a.meta.agent_id}`, a.meta.display_name]));
  // A cost column only when some call had prices: without prices the report gives tokens only.
  const priced = stats.total.priced_calls > 0;
  const header = ["", "calls", "prompt tokens", "cached prompt tokens", "completion tokens", "total tokens", ...(priced ? ["cost (USD)"] : [])];
  let out = "## Token usage\n\n";
  out += table(header, [usageRow("Total", stats.total, priced)]);
  const byAgent = Object.entries(stats.by_agent);
  if (byAgent.length) {
    out += `\nBy agent:\n\n${table(header, byAgent.map(([key, b]) => usageRow(key === "leader" ? "Team Leader" : names.get(key) ?? key, b, priced)))}`;
  }
  const byModel = Object.entries(stats.by_model);
  if (byModel.length) out += `\nBy model:\n\n${table(header, byModel.map(([key, b]) => usageRow(key, b, priced)))}`;
  if (priced) {
    out += "\nCost is in US dollars at the prices each call was made at, recorded with the call.";
    if (stats.total.priced_calls < stats.total.calls) out += ` ${stats.total.calls - stats.total.priced_calls} of ${stats.total.calls} calls had no prices and are not in it.`;
    out += "\n";
  }
  return `${out}\n`;
}

function renderTimeline(folder: ConversationFolder): string {
  const records = folder.timeline;
  let out = "## Timeline summary\n\n";
  if (records.length === 0) return `${out}No timeline records.\n\n`;
  const times = records.map((r) => r.timestamp).sort();
  const traces = new Set(records.map((r) => r.trace_id));
  out += `${records.length.toLocaleString("en-US")} records in ${traces.size} trace(s), from ${inline(times[0]!)} to ${inline(times.at(-1)!)}.\n\n`;
  const byAction = new Map<string, { total: number; statuses: Map<string, number> }>();
  for (const r of records) {
    const row = byAction.get(r.action) ?? { total: 0, statuses: new Map<string, number>() };
    row.total++;
    row.statuses.set(r.status, (row.statuses.get(r.status) ?? 0) + 1);
    byAction.set(r.action, row);
  }
  const rows = [...byAction.entries()]
    .sort((a, b) => b[1].total - a[1].total || a[0].localeCompare(b[0]))
    .map(([action, row]): Array<string | number> => [action, row.total, [...row.statuses.entries()].map(([s, n]) => `${s} ${n}`).join(", ")]);
  out += table(["action", "records", "by status"], rows);
  const notices = records.filter((r) => NOTICE_STATUSES.has(r.status) || r.action === "conflict_resolution");
  if (notices.length) {
    out += `\nNotices (${notices.length}${notices.length > MAX_NOTICES ? `, the first ${MAX_NOTICES} shown` : ""}):\n\n`;
    for (const r of notices.slice(0, MAX_NOTICES)) {
      out += `- ${inline(r.timestamp)} · ${inline(r.action)} · ${inline(r.status)}${r.resource ? ` · ${inline(r.resource)}` : ""} · ${inline(`${r.from_agent} → ${r.to_agent}`)}\n`;
    }
  }
  return `${out}\n`;
}

function renderToolCalls(message: Message): string {
  if (!message.tool_calls?.length) return "";
  return message.tool_calls
    .map((call) => {
      const args = call.function.arguments.trim();
      return `- Tool call \`${call.function.name.replace(/[^A-Za-z0-9_.-]/g, "?")}\`\n${args && args !== "{}" ? `\n${indent(fenced(clipped(args, MAX_TOOL_CHARS), "json"))}` : ""}`;
    })
    .join("");
}

function indent(block: string): string {
  return block
    .replace(/\n$/, "")
    .split("\n")
    .map((l) => (l ? `  ${l}` : l))
    .join("\n")
    .concat("\n");
}

/** Who a message is from, for its heading. */
function authorOf(message: Message, owner: string, toolNames: Map<string, string>): string {
  if (message.role === "assistant") return owner;
  if (message.role === "tool") return `Tool result${toolNames.has(message.tool_call_id ?? "") ? ` of ${toolNames.get(message.tool_call_id ?? "")}` : ""}`;
  if (message.role === "system") return "System";
  const source = message.metadata?.message_source;
  if (source === "sub_agent") return "Sub-agent";
  if (source === "system") return "System";
  if (source === "leader") return "Team Leader";
  // A signed-in person's message names them (issue 32); the one person of an unconfigured machine stays "Person".
  const author = AuthorSchema.safeParse(message.metadata?.author);
  return author.success && author.data.via !== undefined && author.data.via !== "local" ? `Person: ${author.data.name}` : "Person";
}

function renderMessage(message: Message, owner: string, toolNames: Map<string, string>): string {
  const body = message.content ?? "";
  const card = message.role === "user" ? parseAgentMessage(body) : null;
  if (card) {
    const head = `**${CARD_TITLES[card.kind]}** from ${inline(card.sender)} · id ${inline(card.id)}\n\n`;
    return `${quoted(`${head}${fenced(clipped(card.body.trim(), MAX_MESSAGE_CHARS))}`)}\n`;
  }
  const author = authorOf(message, owner, toolNames);
  const parts = [`**${inline(author)}**${message.role === "tool" ? " (compact)" : ""}\n`];
  if (body.trim()) parts.push(fenced(clipped(body, message.role === "tool" ? MAX_TOOL_CHARS : MAX_MESSAGE_CHARS)));
  const calls = renderToolCalls(message);
  if (calls) parts.push(calls);
  return `${parts.join("\n")}\n`;
}

function renderThread(messages: Message[], owner: string): string {
  const toolNames = new Map<string, string>();
  for (const m of messages) for (const call of m.tool_calls ?? []) toolNames.set(call.id, call.function.name);
  // What a person saw: hidden messages (the system prompt, internal nudges) stay out.
  const shown = messages.filter((m) => m.role !== "system" && m.metadata?.visibility !== "hidden");
  if (shown.length === 0) return "No messages.\n\n";
  return shown.map((m) => renderMessage(m, owner, toolNames)).join("");
}

function renderAgent(agent: FolderAgent, stats: ReturnType<typeof normalizeTokenStatistics>): string {
  const { meta, messages } = agent;
  const usage = stats.by_agent[`agent_${meta.agent_id}`];
  const summary = `${meta.display_name} · ${meta.role_id} · ${meta.status} · ${messages.messages.length} messages`;
  let out = `<details>\n<summary>${htmlInline(summary)}</summary>\n\n`;
  if (meta.task_summary) out += `Task: ${inline(meta.task_summary, 1000)}\n\n`;
  if (usage) {
    const cost = tokenCountsOf(usage).cost_usd;
    out += `Tokens: ${usage.total_tokens.toLocaleString("en-US")} in ${usage.calls} call(s)${cost === null ? "" : `, cost ${costText(usage)}`}.\n\n`;
  }
  out += renderThread(messages.messages, meta.display_name);
  return `${out}</details>\n\n`;
}

/**
 * The Markdown report of a conversation. Deterministic for the same folder and options.
 */
export function renderConversationMarkdown(folder: ConversationFolder, options: RenderOptions = {}): string {
  const meta = folder.metadata;
  const stats = normalizeTokenStatistics(folder.leader.token_statistics);
  let out = `# ${inline(meta.title || folder.id)}\n\n`;
  out += table(
    ["", ""],
    [
      ["Conversation", folder.id],
      ["Created", meta.created_at],
      ["Updated", meta.updated_at],
      ["Model", meta.model_key],
      ["Run mode", meta.run_mode],
      ["Status", `${meta.status}${meta.phase ? ` (${meta.phase})` : ""}`],
      ["Project folder", meta.project_path],
      ["Sub-agents", folder.agents.length],
    ],
  );
  if (options.now || options.appVersion) {
    out += `\n_Exported${options.now ? ` ${inline(options.now.toISOString())}` : ""}${options.appVersion ? ` by Astrion Team ${inline(options.appVersion)}` : ""}._\n`;
  }
  out += `\n${renderUsage(folder)}${renderTimeline(folder)}`;
  out += `## Team Leader thread\n\n${renderThread(folder.leader.messages, "Team Leader")}`;
  out += `## Sub-agents\n\n`;
  out += folder.agents.length ? folder.agents.map((a) => renderAgent(a, stats)).join("") : "No sub-agents.\n\n";
  return out;
}
