/**
 * A small but complete conversation folder for tests, as the files an export reads: a leader
 * thread with a delegation, an inter-agent report and a tool call, one sub-agent, token usage, a
 * timeline and shared context. Every file fits its schema.
 */
import { formatAgentMessage } from "@/lib/contracts/messages";
import { startTrace, follow } from "@/lib/contracts/envelope";
import { timelineRecord } from "@/lib/contracts/timeline-record";

/** The id of the fixture conversation. */
export const FIXTURE_ID = "conv_20260711_210000_001";

/** Options of {@link fixtureFolder}. */
export interface FixtureOptions {
  id?: string;
  title?: string;
  /** Text of the person's first message (hostile content goes here). */
  userText?: string;
  /** Text of the leader's final answer. */
  finalText?: string;
  projectPath?: string;
  /** The leader's `token_statistics` (default: token counts without any cost). */
  tokenStatistics?: Record<string, unknown>;
}

const json = (value: unknown) => new TextEncoder().encode(`${JSON.stringify(value, null, 2)}\n`);

/** The files of a fixture conversation, by path relative to its folder. */
export function fixtureFolder(opts: FixtureOptions = {}): Map<string, Uint8Array> {
  const id = opts.id ?? FIXTURE_ID;
  const title = opts.title ?? "Landing page review";
  const ts = "2026-07-11T21:00:00";
  const meta = {
    id, title, created_at: ts, updated_at: ts, project_path: opts.projectPath ?? "/tmp/project", model_key: "fake", thinking_mode: false,
    run_mode: "fast", status: "active", agent_count: 1, agent_ids: [3], phase: "IDLE",
  };
  const leaderMessages = [
    { role: "system", content: "BASE PROMPT (hidden)", message_id: "msg_system_1", metadata: { message_source: "system", visibility: "hidden" } },
    { role: "user", content: opts.userText ?? "Review the landing page", message_id: "msg_user_1", metadata: { message_source: "user", visibility: "chat", starts_work: true } },
    {
      role: "assistant", content: "Assembling a team.", message_id: "msg_assistant_1",
      tool_calls: [{ id: "call_1", type: "function", function: { name: "create_sub_agent", arguments: JSON.stringify({ role_id: "researcher", task: "Map the project" }) } }],
      metadata: { message_source: "leader", visibility: "chat" },
    },
    { role: "tool", content: JSON.stringify({ agent_id: 3, display_name: "Researcher_3" }), tool_call_id: "call_1", message_id: "msg_tool_1", metadata: { message_source: "system", visibility: "compact" } },
    {
      role: "user", content: formatAgentMessage("report", "Researcher_3", "out_r_001", "The page has 3 sections.\nAll fine."), message_id: "msg_user_2",
      metadata: { message_source: "sub_agent", visibility: "compact", starts_work: false, agent_id: 3 },
    },
    { role: "assistant", content: opts.finalText ?? "SUMMARY: the page is fine.", message_id: "msg_assistant_2", metadata: { message_source: "leader", visibility: "chat" } },
  ];
  const bucket = (n: number) => ({ prompt_tokens: n * 10, completion_tokens: n, total_tokens: n * 11, calls: n });
  const leader = {
    id, title, created_at: ts, updated_at: ts, messages: leaderMessages, metadata: {},
    token_statistics: opts.tokenStatistics ?? { total: bucket(5), by_agent: { leader: bucket(2), agent_3: bucket(3) }, by_model: { fake: bucket(5) } },
  };
  const agentMeta = {
    agent_id: 3, role_id: "researcher", display_name: "Researcher_3", status: "completed", created_at: ts, updated_at: ts,
    task_summary: "Map the project", model_key: "fake", thinking_mode: "fast", pending_messages: [], pending_tool_calls: [],
  };
  const agentMessages = {
    agent_id: 3, role_id: "researcher", display_name: "Researcher_3", created_at: ts, updated_at: ts,
    messages: [
      { role: "system", content: "ROLE PROMPT", message_id: "msg_system_2", metadata: { visibility: "hidden" } },
      { role: "user", content: formatAgentMessage("task", "Team Leader", "task_001", "Map the project"), message_id: "msg_user_3", metadata: { message_source: "leader", visibility: "chat" } },
      {
        role: "assistant", content: null, message_id: "msg_assistant_3",
        tool_calls: [{ id: "call_2", type: "function", function: { name: "read_file", arguments: JSON.stringify({ path: "README.md" }) } }],
      },
      { role: "tool", content: "# Acme\nREADME BODY", tool_call_id: "call_2", message_id: "msg_tool_2" },
      { role: "assistant", content: "AGENT THOUGHT: three sections", message_id: "msg_assistant_4" },
    ],
  };
  const first = startTrace("user", "leader", { text: "Review the landing page" });
  const second = follow(first, { type: "request", from: "leader", to: "agent:3", payload: { task: "Map the project" }, producer: "model" });
  const third = follow(second, { type: "reply", from: "agent:3", to: "leader", payload: { summary: "done" }, producer: "model" });
  const at = (s: number) => new Date(Date.UTC(2026, 6, 11, 13, 0, s));
  const timeline = [
    timelineRecord(first, { action: "user_message", now: at(0) }),
    timelineRecord(second, { action: "create_sub_agent", resource: "agent:3", now: at(5) }),
    timelineRecord(third, { action: "report", status: "refused", resource: "agent:3", now: at(9) }),
  ];
  return new Map<string, Uint8Array>([
    ["metadata.json", json(meta)],
    ["messages.json", json(leader)],
    ["agents/3/metadata.json", json(agentMeta)],
    ["agents/3/messages.json", json(agentMessages)],
    ["timeline.jsonl", new TextEncoder().encode(timeline.map((r) => JSON.stringify(r)).join("\n") + "\n")],
    ["shared_context.json", json({ version: 1, entries: {}, pending: [], history: [] })],
  ]);
}
