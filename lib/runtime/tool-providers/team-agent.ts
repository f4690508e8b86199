import "server-only";
/**
 * A sub-agent's team tools: report to the leader, ask the leader a question (`ask_master`: the
 * agent waits, the answer arrives later as the call's result), message a teammate. Their
 * definitions are the registry's (lib/team-tools); what they do is the engine's mail. A sub-agent
 * that names the leader's `create_sub_agent` is refused visibly: sub-agents do not spawn.
 */
import { agentParty, formatAgentMessage, LEADER_PARTY, roleAbbreviation, SYSTEM_PARTY } from "@/lib/protocol";
import { AGENT_TOOLS, CREATE_SUB_AGENT } from "@/lib/team-tools";
import { epochSeconds, type Message } from "@/lib/store";
import { deliverReport, messageAgent, toLeaderInbox } from "@/lib/runtime/team/mail";
import type { TeamState } from "@/lib/runtime/team/state";
import { named, rawArguments, toolFrom, type TeamTool, type ToolProvider } from "@/lib/runtime/team/tool-kit";
import { errorResult, leaderInbox, messageId, type AgentMeta } from "@/lib/runtime/team/types";
import { abilityReplyOutcome } from "@/lib/runtime/team/ability-ledger";

/** `ask_master`: the agent waits; the question goes to the leader's inbox and to the person's screen. */
async function askMaster(s: TeamState, agentId: number, meta: AgentMeta, toolCallId: string, question: string): Promise<void> {
  const questionId = await s.nextId("question", roleAbbreviation(meta.role_id));
  const updated = await s.agentEvent(agentId, "ask", (m) => ({
    ...m,
    pending_tool_calls: [...(m.pending_tool_calls ?? []), { tool_call_id: toolCallId, tool_name: "ask_master", question_id: questionId, created_at: epochSeconds(), question }],
  }));
  const leaderMessage: Message = {
    role: "user",
    content: formatAgentMessage("message", meta.display_name, questionId, question),
    message_id: messageId("msg_auto"),
    metadata: { message_source: "sub_agent", visibility: "compact", starts_work: false, agent_id: agentId, trace_id: meta.trace_id },
  };
  const q = s.questionsOf([updated]).find((x) => x.question_id === questionId);
  if (q) s.publish({ type: "question", question: q });
  await s.emit(await s.causeFor(meta), { type: "request", from: agentParty(agentId), to: LEADER_PARTY, payload: { question_id: questionId, question }, action: "ask_master", resource: `question:${questionId}`, producer: "model" });
  await toLeaderInbox(s, leaderMessage);
}

/** The agent a tool object runs for (the pipeline gives sub-agent tools a sub-agent caller). */
function agentOf(caller: { agentId: number | null; meta: AgentMeta | null }): { agentId: number; meta: AgentMeta } {
  if (caller.agentId === null || !caller.meta) throw new Error("a sub-agent tool was called by the leader");
  return { agentId: caller.agentId, meta: caller.meta };
}

/**
 * Whether a `report_to_leader` that a crash cut short was delivered: the report carries the call's
 * key (in the leader's messages or inbox, or, for an agent serving an ability call, its caller's).
 * Its result when it was, null otherwise.
 */
async function deliveredReport(s: TeamState, key: string): Promise<string | null> {
  const leader = await s.store.readLeaderMessages(s.convId);
  const report = [...leader.messages, ...leaderInbox(leader.metadata)].find((m) => m.metadata?.effect_key === key);
  if (!report) return abilityReplyOutcome(s, key);
  const agentId = Number(report.metadata?.agent_id);
  if (Number.isSafeInteger(agentId)) await s.updateAgent(agentId, (m) => ({ ...m, reported: true }));
  return JSON.stringify({ delivered: true, report_id: /\nid: (\S+)/.exec(String(report.content))?.[1] ?? null });
}

const TOOLS: readonly TeamTool[] = [
  toolFrom(named(AGENT_TOOLS, "report_to_leader"), {
    scope: "message:leader",
    approval: true,
    // One change of the conversation's own state: after a crash it is looked up by its key, and sent when it is not there.
    journal: ({ s }) => ({ internal: true, outcome: (key) => deliveredReport(s, key) }),
    execute: async ({ s, caller, key }, args) => {
      const { agentId, meta } = agentOf(caller);
      const reportId = await deliverReport(s, agentId, meta, args.summary, args.status ?? "completed", key);
      await s.updateAgent(agentId, (m) => ({ ...m, reported: true }));
      return JSON.stringify({ delivered: true, report_id: reportId });
    },
  }),
  toolFrom(named(AGENT_TOOLS, "ask_master"), {
    scope: "message:leader",
    approval: true,
    execute: async ({ s, caller, call }, args) => {
      const { agentId, meta } = agentOf(caller);
      await askMaster(s, agentId, meta, call.id, args.question);
      return null;
    },
  }),
  toolFrom(named(AGENT_TOOLS, "send_message"), {
    scope: "message:teammates",
    approval: true,
    authorize: async ({ s, caller }, args) => {
      if (args.agent_id === caller.agentId) return { refused: errorResult("you cannot message yourself") };
      if (!(await s.store.get(s.convId)).agent_ids.includes(args.agent_id)) return { refused: errorResult(`no agent ${args.agent_id} in this team`) };
      return {};
    },
    execute: async ({ s, caller }, args) => {
      const { agentId, meta } = agentOf(caller);
      const id = await messageAgent(s, args.agent_id, args.content, { name: meta.display_name, agentId, party: agentParty(agentId), abbrev: roleAbbreviation(meta.role_id) });
      return JSON.stringify({ delivered: true, message_id: id });
    },
  }),
];

/** Never offered to a sub-agent; named anyway, it is refused on the timeline and with a notice. */
const SPAWN_REFUSED: TeamTool<string> = {
  name: CREATE_SUB_AGENT.name,
  spec: TOOLS[0]!.spec,
  effect: "internal",
  approval: false,
  scope: "message:leader",
  journal: false,
  parse: rawArguments,
  authorize: async ({ s, caller }) => {
    const agentId = agentOf(caller).agentId;
    await s.emitNow({ type: "event", from: SYSTEM_PARTY, to: agentParty(agentId), payload: { tool: CREATE_SUB_AGENT.name }, action: "create_sub_agent", resource: `agent:${agentId}`, status: "refused" });
    s.notice("warning", "cap_spawn", "notice.msg.spawnRefused", { agent: agentId }, agentId);
    return { refused: errorResult("sub-agents cannot create sub-agents; ask the Team Leader with ask_master if you need help") };
  },
  execute: () => Promise.reject(new Error("create_sub_agent is refused to sub-agents before it runs")),
};

const BY_NAME = new Map<string, TeamTool>(TOOLS.map((t) => [t.name, t]));

/** A sub-agent's team tools (always offered, so it can always report back). */
export const agentTeamTools: ToolProvider = {
  name: "team (sub-agent)",
  offer: async ({ caller }) => ({ tools: caller.agentId === null ? [] : [...TOOLS] }),
  resolve: async (name, { caller }) => {
    if (caller.agentId === null) return undefined;
    return name === SPAWN_REFUSED.name ? SPAWN_REFUSED : BY_NAME.get(name);
  },
};
