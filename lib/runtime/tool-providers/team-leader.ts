import "server-only";
/**
 * The Team Leader's own tools: create a sub-agent from a registered role, message, answer,
 * terminate, broadcast, list. Their definitions are the registry's (lib/team-tools); what they do
 * is the engine's (create-agent, mail, terminate). Hard caps and the role catalog are enforced
 * here, in code, not by the model. Every call passes the one pipeline (lib/runtime/team/pipeline.ts):
 * the side effects run once under their idempotency key.
 */
import { checkInbox, roleRefusal } from "@/lib/governance";
import { LEADER_PARTY, SYSTEM_PARTY } from "@/lib/protocol";
import { LEADER_TOOLS, leaderTools } from "@/lib/team-tools";
import { createSubAgent, LEADER_SENDER } from "@/lib/runtime/team/create-agent";
import { answerQuestion, messageAgent } from "@/lib/runtime/team/mail";
import type { TeamState } from "@/lib/runtime/team/state";
import { terminateAgent } from "@/lib/runtime/team/terminate";
import { named, toolFrom, type TeamTool, type ToolProvider } from "@/lib/runtime/team/tool-kit";
import { errorResult, LEADER_DISPLAY_NAME, type AgentMeta } from "@/lib/runtime/team/types";

/** The leader's tools are its own coordination: no token (it holds none) and no person's approval. */
const LEADER = { scope: "message:teammates", approval: false } as const;

/**
 * Whether a `create_sub_agent` that a crash cut short made its agent: the agent carries the call's
 * key. Its result when it did, null otherwise.
 */
async function createdAgent(s: TeamState, key: string): Promise<string | null> {
  const agent = (await s.store.listAgents(s.convId)).agents.find((a) => (a as AgentMeta).effect_key === key);
  if (!agent) return null;
  return JSON.stringify({ agent_id: agent.agent_id, display_name: agent.display_name, task_id: agent.pending_messages?.[0]?.id ?? null });
}

const createSubAgentTool = toolFrom(named(LEADER_TOOLS, "create_sub_agent"), {
  ...LEADER,
  // A new agent is changes of this conversation's state only (its files through the step log):
  // after a crash it is looked up by the call's key, and made when it is not there.
  journal: ({ s }) => ({ ordered: true, internal: true, outcome: (key) => createdAgent(s, key) }),
  authorize: async ({ s }, args) => {
    // Only registered roles authorized for this conversation: refused in code, not by the model.
    const { all, allowList } = await s.authorizedChoices();
    const refusal = roleRefusal(args.role_id, all, allowList);
    if (!refusal) return {};
    await s.emitNow({ type: "event", from: SYSTEM_PARTY, to: LEADER_PARTY, payload: { role_id: args.role_id, reason: refusal }, action: "create_sub_agent", resource: `role:${args.role_id}`, status: "refused" });
    return { refused: errorResult(refusal) };
  },
  execute: ({ s, key }, args) => createSubAgent(s, args.role_id, args.task, args.critical !== false, key),
});

async function broadcast(s: TeamState, content: string): Promise<string> {
  const { agents } = await s.store.listAgents(s.convId);
  const live = agents.filter((a) => a.status !== "terminated");
  const busy = live.filter((a) => !checkInbox(a.display_name, (a.pending_messages ?? []).length).ok).map((a) => a.agent_id);
  const targets = live.filter((a) => !busy.includes(a.agent_id));
  for (const a of targets) await messageAgent(s, a.agent_id, content, LEADER_SENDER);
  await s.emitNow({ type: "broadcast", from: LEADER_PARTY, to: "all", payload: { content, recipients: targets.map((a) => a.agent_id) }, action: "broadcast", resource: null });
  return JSON.stringify({ delivered_to: targets.map((a) => a.agent_id), busy });
}

const TOOLS: readonly TeamTool[] = [
  createSubAgentTool,
  toolFrom(named(LEADER_TOOLS, "send_message_to_agent"), {
    ...LEADER,
    execute: async ({ s }, args) => JSON.stringify({ delivered: true, message_id: await messageAgent(s, args.agent_id, args.content, LEADER_SENDER) }),
  }),
  toolFrom(named(LEADER_TOOLS, "answer_question"), {
    ...LEADER,
    execute: async ({ s }, args) => JSON.stringify({ answered: true, agent_id: (await answerQuestion(s, args.question_id, args.answer, LEADER_DISPLAY_NAME)).agent_id }),
  }),
  toolFrom(named(LEADER_TOOLS, "terminate_agent"), {
    ...LEADER,
    execute: async ({ s }, args) => {
      await terminateAgent(s, args.agent_id, args.reason ?? "", LEADER_DISPLAY_NAME);
      return JSON.stringify({ terminated: args.agent_id });
    },
  }),
  toolFrom(named(LEADER_TOOLS, "broadcast"), { ...LEADER, execute: ({ s }, args) => broadcast(s, args.content) }),
  toolFrom(named(LEADER_TOOLS, "list_agents"), {
    ...LEADER,
    execute: async ({ s }) => {
      const { agents } = await s.store.listAgents(s.convId);
      return JSON.stringify({ agents: agents.map((a) => ({ agent_id: a.agent_id, display_name: a.display_name, role_id: a.role_id, status: a.status, task_summary: a.task_summary ?? "" })) });
    },
  }),
];

const BY_NAME = new Map(TOOLS.map((t) => [t.name, t]));

/** The leader's team tools; `create_sub_agent` is shown the roles authorized for this conversation. */
export const leaderTeamTools: ToolProvider = {
  name: "team (leader)",
  offer: async ({ s, caller }) => {
    if (caller.agentId !== null) return { tools: [] };
    const specs = new Map(leaderTools((await s.authorizedChoices()).allowed).map((spec) => [spec.function.name, spec]));
    return { tools: TOOLS.map((t) => ({ ...t, spec: specs.get(t.name) ?? t.spec })) };
  },
  resolve: async (name, { caller }) => (caller.agentId === null ? BY_NAME.get(name) : undefined),
};
