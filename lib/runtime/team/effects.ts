import "server-only";
/**
 * Side effects run at most once, and recovery of tool calls a crash left without a result.
 *
 * The key of a side effect is who asked for it and the model's id for the call
 * (`agent:<n>:<tool_call_id>`, `leader:<tool_call_id>`), written durably to the action journal
 * before the effect runs. After a crash, a completed effect gives back its recorded result; one
 * that was cut short is reported as interrupted and not run again, except the effects that are one
 * change of the conversation's own state (they carry their key, so the change itself says whether
 * it happened).
 */
import { agentParty, LEADER_PARTY, SYSTEM_PARTY } from "@/lib/protocol";
import type { ToolCall } from "@/lib/models";
import { toolFailureMessage } from "./tool-failure";
import { abilityReplyOutcome, isAbilityCall, isAbilitySent } from "./ability-ledger";
import type { TeamState } from "./state";
import { awaitsApproval } from "./approvals";
import { killLeftovers } from "./command";
import { appendToolResult } from "./steps";
import { errorResult, leaderInbox, type AgentMeta } from "./types";

/**
 * Side effects that are one change of the conversation's own state (the change carries its
 * idempotency key): after a crash they are looked up rather than reported as interrupted.
 */
const INTERNAL_EFFECTS: ReadonlySet<string> = new Set(["report_to_leader", "create_sub_agent"]);

/** Runs one tool call of the leader (null) or an agent through the pipeline, which records its result unless it comes later. */
export type ToolRunner = (agentId: number | null, call: ToolCall) => Promise<{ type: "recorded" } | { type: "pending" }>;

/** The idempotency key of a side effect: who asked for it and the model's id for the call. */
function actionKey(agentId: number | null, call: ToolCall): string {
  return `${agentId === null ? "leader" : `agent:${agentId}`}:${call.id}`;
}

/**
 * Whether an internal effect whose run was cut short by a crash did happen: the change carries
 * its key. Its result when it did, null otherwise (or for effects outside the conversation, which
 * cannot be checked this way).
 */
async function effectOutcome(s: TeamState, key: string, call: ToolCall): Promise<string | null> {
  if (call.function.name === "report_to_leader") {
    const leader = await s.store.readLeaderMessages(s.convId);
    const report = [...leader.messages, ...leaderInbox(leader.metadata)].find((m) => m.metadata?.effect_key === key);
    // A report of an agent serving an ability call went to its caller instead.
    if (!report) return abilityReplyOutcome(s, key);
    const agentId = Number(report.metadata?.agent_id);
    if (Number.isSafeInteger(agentId)) await s.updateAgent(agentId, (m) => ({ ...m, reported: true }));
    return JSON.stringify({ delivered: true, report_id: /\nid: (\S+)/.exec(String(report.content))?.[1] ?? null });
  }
  if (call.function.name === "create_sub_agent") {
    const agent = (await s.store.listAgents(s.convId)).agents.find((a) => (a as AgentMeta).effect_key === key);
    if (!agent) return null;
    return JSON.stringify({ agent_id: agent.agent_id, display_name: agent.display_name, task_id: agent.pending_messages?.[0]?.id ?? null });
  }
  return null;
}

/**
 * How {@link once} treats an effect whose name is not one of the fixed internal ones (an ability
 * call's tool name is a role's): `internal` effects are looked up with `outcome` after a crash
 * and run again when it finds nothing.
 */
export interface OnceOptions {
  internal?: boolean;
  outcome?: (key: string) => Promise<string | null>;
  /**
   * The effect is wholly changes of this conversation's own state, made through its step log
   * after the `started` line (no other conversation, no file or process outside): the line need
   * not be durable before the effect runs, only ordered before its changes.
   */
  ordered?: boolean;
}

/** Runs a side-effecting action at most once under its idempotency key, written durably before it runs. */
export async function once(s: TeamState, agentId: number | null, call: ToolCall, action: (key: string) => Promise<string>, options: OnceOptions = {}): Promise<string> {
  const key = actionKey(agentId, call);
  const state = await s.journal.state(key);
  if (state.status === "done") return state.result;
  if (state.status === "started") {
    const found = options.outcome ? await options.outcome(key) : await effectOutcome(s, key, call);
    if (found !== null) {
      await s.journal.done(key, found);
      return found;
    }
    if (!INTERNAL_EFFECTS.has(call.function.name) && !options.internal) return errorResult(`interrupted earlier; ${call.function.name} was not run again`);
    // An internal effect is one change of the conversation's own state: not found, it did not happen.
  } else {
    await s.journal.started(key, { ordered: options.ordered });
  }
  let result: string;
  try {
    result = await action(key);
  } catch (error) {
    // It ran and failed: a replay answers with the same failure instead of "interrupted".
    await s.journal.done(key, errorResult(toolFailureMessage(call.function.name, error)));
    throw error;
  }
  await s.journal.done(key, result);
  return result;
}

/**
 * Tool calls that were asked for but have no result (the server died in between): read-only
 * ones run again; a side-effecting one that finished gives back its recorded result; one that
 * started but did not finish is recorded as interrupted and not run again on its own.
 */
export async function resolveDangling(s: TeamState, agentId: number | null, calls: ToolCall[], run: ToolRunner): Promise<void> {
  for (const call of calls) {
    if (agentId !== null) {
      const meta = await s.readAgent(agentId);
      // A question, an approval or an ability call still waiting: fine, its answer comes later.
      if ((meta.pending_tool_calls ?? []).some((p) => p.tool_call_id === call.id)) continue;
    }
    const key = actionKey(agentId, call);
    // A read is never journalled: it has no state, and runs again.
    const state = await s.journal.state(key);
    const found = state.status === "started" ? await effectOutcome(s, key, call) : null;
    if (state.status === "done") {
      // An ability call whose request left but whose caller no longer waits got no reply.
      await appendToolResult(s, agentId, call, isAbilitySent(state.result) ? errorResult(`${call.function.name} got no reply`) : state.result);
    } else if (found !== null) {
      await s.journal.done(key, found);
      await appendToolResult(s, agentId, call, found);
    } else if (state.status === "started" && !INTERNAL_EFFECTS.has(call.function.name) && !(agentId !== null && (await isAbilityCall(s, agentId, call.function.name)))) {
      // A command cut short may have left processes running (they are in their own process group, which the server's death does not end).
      if (call.function.name === "run_command") await killLeftovers(s, key);
      await appendToolResult(s, agentId, call, errorResult(`interrupted: the server stopped while ${call.function.name} was running; it was not run again. Check whether it took effect before trying again.`), { interrupted: true });
      if (agentId === null) s.notice("warning", "interrupted", "notice.msg.leaderInterrupted", { tool: call.function.name });
      else s.notice("warning", "interrupted", "notice.msg.agentInterrupted", { agent: agentId, tool: call.function.name }, agentId);
      await s.emitNow({ type: "event", from: SYSTEM_PARTY, to: agentId === null ? LEADER_PARTY : agentParty(agentId), payload: { tool: call.function.name }, action: call.function.name, resource: `tool_call:${call.id}`, status: "interrupted" });
    } else {
      // Read-only, never started, or an internal effect that did not happen (an ability call
      // whose caller does not wait on it sent nothing): run it (now).
      const outcome = await run(agentId, call);
      // Waiting for a person's approval: the calls after it wait too, and run in order once it is decided.
      if (outcome.type === "pending" && agentId !== null && (await awaitsApproval(s, agentId))) return;
    }
  }
}
