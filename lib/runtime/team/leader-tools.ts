import "server-only";
/**
 * The Team Leader's tools: create a sub-agent from a registered role, message, answer,
 * terminate, broadcast, list. Arguments are parsed with the tool's zod schema (lib/runtime/tools);
 * side effects run once under their idempotency key (./effects); hard caps are enforced here, in
 * code, not by the model.
 */
import { AstrionError } from "@/lib/contracts/errors";
import { checkInbox, roleRefusal } from "@/lib/governance";
import { type ToolCall } from "@/lib/models";
import { hasOwnKey } from "@/lib/own";
import { agentParty, LEADER_PARTY, SYSTEM_PARTY, USER_PARTY } from "@/lib/protocol";
import { executeSharedContextTool, isSharedContextTool, SHARED_CONTEXT_READ_ONLY_TOOLS } from "@/lib/shared-context";
import { LEADER_TOOL_ARGS, parseToolArguments } from "./tools";
import { endAbilityCalls } from "./abilities";
import { createSubAgent, LEADER_SENDER } from "./create-agent";
import { once } from "./effects";
import { answerQuestion, messageAgent } from "./mail";
import { dispatchMemoryTool, isMemoryToolName } from "./memory-tools";
import type { TeamState } from "./state";
import { errorResult, LEADER_DISPLAY_NAME, summarize } from "./types";


/** Terminates one agent: its model call is aborted, its token revoked, and it never runs again. */
export async function terminateAgent(s: TeamState, agentId: number, reason: string, by: string): Promise<void> {
  const meta = await s.readAgent(agentId);
  if (meta.status === "terminated") return;
  s.agentControllers.get(agentId)?.abort(new Error("terminated"));
  await endAbilityCalls(s, `${meta.display_name} was terminated${reason ? ` (${summarize(reason, 200)})` : ""}`, { agentId });
  s.deps.tokens.revoke(s.convId, agentId);
  await s.agentEvent(agentId, "terminate", (m) => ({ ...m, pending_tool_calls: [] }));
  s.setActivity(agentId, `terminated${reason ? `: ${summarize(reason, 80)}` : ""}`);
  await s.emitNow({ type: "control", from: by === LEADER_DISPLAY_NAME ? LEADER_PARTY : USER_PARTY, to: agentParty(agentId), payload: { reason: summarize(reason) }, action: "terminate_agent", resource: `agent:${agentId}` });
}

/** Runs one of the leader's tools (errors other than refusals are thrown to the dispatcher). */
export async function dispatchLeaderTool(s: TeamState, call: ToolCall): Promise<string> {
  const name = call.function.name;
  if (isSharedContextTool(name)) {
    const run = async () =>
      executeSharedContextTool(name, call.function.arguments, {
        conversationDir: s.dir,
        queues: s.deps.queues,
        actor: { display_name: LEADER_DISPLAY_NAME, role: "leader", party: LEADER_PARTY },
        emit: async (e) => void (await s.emitNow(e)),
        requestedAt: s.deps.clock.now(),
      });
    return SHARED_CONTEXT_READ_ONLY_TOOLS.has(name) ? run() : once(s, null, call, run);
  }
  if (isMemoryToolName(name)) return (await dispatchMemoryTool(s, null, null, call)) ?? errorResult("recall_memory could not run");
  if (!hasOwnKey(LEADER_TOOL_ARGS, name)) return errorResult(`unknown tool ${name}`);
  const parsed = parseToolArguments(LEADER_TOOL_ARGS[name as keyof typeof LEADER_TOOL_ARGS], call.function.arguments);
  if (!parsed.ok) return errorResult(parsed.error);
  const args = parsed.args as Record<string, unknown>;
  try {
    switch (name) {
      case "create_sub_agent": {
        // Only registered roles authorized for this conversation: refused in code, not by the model.
        const { all, allowList } = await s.authorizedChoices();
        const refusal = roleRefusal(String(args.role_id), all, allowList);
        if (refusal) {
          await s.emitNow({ type: "event", from: SYSTEM_PARTY, to: LEADER_PARTY, payload: { role_id: String(args.role_id), reason: refusal }, action: "create_sub_agent", resource: `role:${String(args.role_id)}`, status: "refused" });
          return errorResult(refusal);
        }
        // A new agent is changes of this conversation's state only (its files through the step log).
        return await once(s, null, call, (key) => createSubAgent(s, String(args.role_id), String(args.task), args.critical !== false, key), { ordered: true });
      }
      case "send_message_to_agent":
        return await once(s, null, call, async () => JSON.stringify({ delivered: true, message_id: await messageAgent(s, Number(args.agent_id), String(args.content), LEADER_SENDER) }));
      case "answer_question":
        return await once(s, null, call, async () => {
          const r = await answerQuestion(s, String(args.question_id), String(args.answer), LEADER_DISPLAY_NAME);
          return JSON.stringify({ answered: true, agent_id: r.agent_id });
        });
      case "terminate_agent":
        return await once(s, null, call, async () => {
          await terminateAgent(s, Number(args.agent_id), String(args.reason ?? ""), LEADER_DISPLAY_NAME);
          return JSON.stringify({ terminated: Number(args.agent_id) });
        });
      case "broadcast":
        return await once(s, null, call, () => broadcast(s, String(args.content)));
      case "list_agents": {
        const { agents } = await s.store.listAgents(s.convId);
        return JSON.stringify({ agents: agents.map((a) => ({ agent_id: a.agent_id, display_name: a.display_name, role_id: a.role_id, status: a.status, task_summary: a.task_summary ?? "" })) });
      }
    }
  } catch (error) {
    if (error instanceof AstrionError && error.status < 500) return errorResult(error.message);
    throw error;
  }
  return errorResult(`unknown tool ${name}`);
}

async function broadcast(s: TeamState, content: string): Promise<string> {
  const { agents } = await s.store.listAgents(s.convId);
  const live = agents.filter((a) => a.status !== "terminated");
  const busy = live.filter((a) => !checkInbox(a.display_name, (a.pending_messages ?? []).length).ok).map((a) => a.agent_id);
  const targets = live.filter((a) => !busy.includes(a.agent_id));
  for (const a of targets) await messageAgent(s, a.agent_id, content, LEADER_SENDER);
  await s.emitNow({ type: "broadcast", from: LEADER_PARTY, to: "all", payload: { content, recipients: targets.map((a) => a.agent_id) }, action: "broadcast", resource: null });
  return JSON.stringify({ delivered_to: targets.map((a) => a.agent_id), busy });
}
