import "server-only";
/**
 * Agents' capabilities as tools (seed 003 §3.2), the runtime side: which abilities a sub-agent is
 * offered, and a call's route — a `request` to an agent of the providing role (an idle one, else
 * a new one within the caps), the caller `waiting` durably like `ask_master`, and the callee's
 * report coming back as the caller's tool result instead of going to the leader.
 *
 * Durable record of a call: the caller's `pending_tool_calls` entry (`kind: "ability"`), written
 * before the request is delivered; the callee's `ability_request`, written with its task in one
 * change. Their order makes every crash recoverable without sending a request twice: an entry no
 * agent holds is delivered at resume ({@link resumeAbilityCalls}); a reply is appended to the
 * caller's messages (carrying the callee's report key) before either record is cleared.
 *
 * "Idle" callee: an agent of the role that is done with its work — status `idle` or `completed`
 * (the statuses a task may be assigned from), or still `running` the last step of a turn in which
 * it already reported (its loop takes a task that arrives meanwhile) — with an empty inbox, no
 * pending tool call, no ability request in hand, not DEGRADED, and holding a live token. The
 * lowest agent id wins. Every other agent of the role that is `running` or `waiting` is busy and
 * counts against the role's `max_concurrency`.
 */
import { abilityResult, abilityTaskText, checkAbilityInput, type OfferedAbility } from "@/lib/abilities";
import { allowListFromMetadata, roleRefusal } from "@/lib/governance";
import { agentParty, roleAbbreviation, SYSTEM_PARTY } from "@/lib/protocol";
import { epochSeconds, type Message, type PendingMessage } from "@/lib/store";
import { abilityEntries, conversationAbilities, finishCall, SENT, type AbilityPending } from "./ability-ledger";
import { createSubAgent } from "./create-agent";
import type { TeamState } from "./state";
import { atWork, errorResult, isErrorResult, traceCause, type AbilityRequest, type AgentMeta, type Sender } from "./types";

/**
 * Routing of one conversation's calls, one at a time: choosing a callee and handing it the
 * request is check-then-act (an idle agent, room under the caps), so two calls at once must not
 * both take the same idle agent or both take the last place.
 */
const routing = new WeakMap<TeamState, Promise<unknown>>();

function routed<T>(s: TeamState, work: () => Promise<T>): Promise<T> {
  const run = (routing.get(s) ?? Promise.resolve()).then(work, work);
  routing.set(s, run.catch(() => undefined));
  return run;
}

function senderOf(meta: AgentMeta): Sender {
  return { name: meta.display_name, agentId: meta.agent_id, party: agentParty(meta.agent_id), abbrev: roleAbbreviation(meta.role_id) };
}

type Plan = { ok: true; reuse: number | null } | { ok: false; code: string; reason: string };

/** Where a request goes: an idle agent of the role, else a new one if the caps allow, else a refusal. */
async function planCallee(s: TeamState, roleId: string): Promise<Plan> {
  const conv = await s.store.get(s.convId);
  const { choices } = await s.roleChoices();
  const refusal = roleRefusal(roleId, choices, allowListFromMetadata(conv));
  if (refusal) return { ok: false, code: "refused", reason: refusal };
  const agents = (await s.store.listAgents(s.convId)).agents as AgentMeta[];
  const ofRole = agents.filter((a) => a.role_id === roleId).sort((a, b) => a.agent_id - b.agent_id);
  const done = (a: AgentMeta) => a.status === "idle" || a.status === "completed" || (a.status === "running" && a.reported === true && !a.ability_request);
  const idle = ofRole.find(
    (a) => done(a) && !(a.pending_messages ?? []).length && !(a.pending_tool_calls ?? []).length && !a.ability_request && a.health !== "DEGRADED" && s.tokenOf(a.agent_id) !== undefined,
  );
  if (idle) return { ok: true, reuse: idle.agent_id };
  const role = await s.deps.roles.get(roleId).catch(() => null);
  if (role?.kind !== "role") return { ok: false, code: "refused", reason: `role ${roleId} cannot be loaded` };
  const busy = ofRole.filter(atWork).length;
  const max = role.fields.max_concurrency;
  if (max !== undefined && busy >= max) return { ok: false, code: "capped", reason: `cap reached: no idle agent of role ${roleId}, and the role allows at most ${max} at once (max_concurrency). Try again later.` };
  if (conv.agent_ids.length >= s.limits.maxAgents) return { ok: false, code: "capped", reason: `cap reached: no idle agent of role ${roleId}, and this conversation already has ${s.limits.maxAgents} sub-agents (the maximum). Try again later.` };
  return { ok: true, reuse: null };
}

/** A refused call, told: a notice when a cap was reached, and a timeline event either way. */
async function refused(s: TeamState, caller: AgentMeta, offered: OfferedAbility, code: string, reason: string): Promise<void> {
  if (code === "capped") s.notice("warning", "cap_agents", "notice.msg.abilityCapped", { agent: caller.display_name, tool: offered.tool_name, role: offered.role_id }, caller.agent_id);
  await s.emit(await s.causeFor(caller), { type: "event", from: SYSTEM_PARTY, to: agentParty(caller.agent_id), payload: { tool: offered.tool_name, role_id: offered.role_id, reason }, action: "ability_call", resource: `role:${offered.role_id}`, status: code });
}

/** Hands the request to its callee (the caller already waits on it); a refusal ends the call with a tool error. */
async function deliverRequest(s: TeamState, caller: AgentMeta, entry: AbilityPending, offered: OfferedAbility, planned?: Plan): Promise<void> {
  const plan = planned ?? (await planCallee(s, offered.role_id));
  if (!plan.ok) {
    await refused(s, caller, offered, plan.code, plan.reason);
    await finishCall(s, caller.agent_id, entry.tool_call_id, errorResult(plan.reason));
    return;
  }
  const from = senderOf(caller);
  const task = abilityTaskText(offered, entry.input, caller.display_name);
  const payload = { ability: offered.ability.name, tool: offered.tool_name, caller_tool_call_id: entry.tool_call_id };
  const request = (env: { trace_id: string; turn_id: string }): AbilityRequest => ({
    key: entry.key,
    request_id: entry.question_id,
    caller_agent_id: caller.agent_id,
    caller_display_name: caller.display_name,
    tool_call_id: entry.tool_call_id,
    tool_name: offered.tool_name,
    role_id: offered.role_id,
    ability: offered.ability.name,
    ...(offered.ability.output ? { output: offered.ability.output } : {}),
    trace_id: env.trace_id,
    turn_id: env.turn_id,
  });
  if (plan.reuse === null) {
    const created = await createSubAgent(s, offered.role_id, task, true, entry.key, { from, action: "ability_call", payload, taskId: entry.question_id, capHint: "Try again later.", extra: (env) => ({ ability_request: request(env) }) });
    if (isErrorResult(created)) await finishCall(s, caller.agent_id, entry.tool_call_id, created);
    return;
  }
  const calleeId = plan.reuse;
  const env = await s.emit(await s.causeFor(caller), { type: "request", from: from.party, to: agentParty(calleeId), payload: { task_id: entry.question_id, role_id: offered.role_id, task, ...payload }, action: "ability_call", resource: `agent:${calleeId}`, producer: "model" });
  const pending: PendingMessage = { id: entry.question_id, source_display_name: from.name, source_agent_id: from.agentId, message_type: "task", content: task, created_at: epochSeconds() };
  const updated = await s.updateAgent(calleeId, (m) => ({ ...m, pending_messages: [...(m.pending_messages ?? []), pending], ability_request: request(env), trace_id: env.trace_id, task_turn_id: env.turn_id }));
  s.setActivity(calleeId, { kind: "ability_work", target: offered.ability.name });
  await s.publishAgent(updated);
  s.notifyAgent(calleeId);
}

/**
 * An ability call's input checked against the ability's declared input: the input, or the
 * refusal (on the timeline) the caller reads as its tool result.
 */
export async function abilityInput(s: TeamState, agentId: number, offered: OfferedAbility, raw: string): Promise<{ ok: true; input: Record<string, unknown> } | { ok: false; result: string }> {
  const input = checkAbilityInput(offered, raw);
  if (input.ok) return { ok: true, input: input.input };
  await refused(s, await s.readAgent(agentId), offered, "refused", input.error);
  return { ok: false, result: errorResult(input.error) };
}

/**
 * Sends an ability call's request (journalled under `key` by the pipeline): the caller's pending
 * entry written, then the request delivered to a callee. The journalled result says the request
 * left (its real result comes later, as the callee's report); a refusal is an ordinary result.
 */
export function sendAbilityRequest(s: TeamState, agentId: number, toolCallId: string, offered: OfferedAbility, input: Record<string, unknown>, key: string): Promise<string> {
  return routed(s, async () => {
    const caller = await s.readAgent(agentId);
    // Refused before the caller waits, so a refusal is an ordinary tool result.
    const plan = await planCallee(s, offered.role_id);
    if (!plan.ok) {
      await refused(s, caller, offered, plan.code, plan.reason);
      return errorResult(plan.reason);
    }
    const entry: AbilityPending = { tool_call_id: toolCallId, tool_name: offered.tool_name, question_id: await s.nextId("task"), created_at: epochSeconds(), kind: "ability", key, role_id: offered.role_id, ability: offered.ability.name, input };
    const add = (m: AgentMeta): AgentMeta => ({ ...m, pending_tool_calls: [...(m.pending_tool_calls ?? []), entry] });
    // The caller's entry is the call's durable record: written before the request leaves.
    const waiting = caller.status === "running" ? await s.agentEvent(agentId, "ask", add) : await s.updateAgent(agentId, add);
    s.setActivity(agentId, { kind: "ability_wait", target: offered.tool_name });
    await deliverRequest(s, waiting, entry, offered, plan);
    return JSON.stringify({ [SENT]: entry.question_id });
  });
}

/** After a crash inside {@link sendAbilityRequest}: it happened if the caller waits on it (resume delivers it if needed). */
export async function sentAbilityOutcome(s: TeamState, agentId: number, toolCallId: string): Promise<string | null> {
  const entry = abilityEntries(await s.readAgent(agentId)).find((p) => p.tool_call_id === toolCallId);
  return entry ? JSON.stringify({ [SENT]: entry.question_id }) : null;
}

/**
 * Routes a callee's report to its caller as the result of the call (validated against the
 * declared output), instead of to the leader. Null when the agent holds no ability request.
 */
export async function replyToCaller(s: TeamState, calleeId: number, summary: string, status: string, effectKey?: string): Promise<string | null> {
  const meta = await s.readAgent(calleeId);
  const req = meta.ability_request;
  if (!req) return null;
  const reportId = await s.nextId("report", roleAbbreviation(meta.role_id));
  const outcome = abilityResult({ tool_name: req.tool_name, ability: { output: req.output } }, { from: meta.display_name, status, text: summary });
  await s.emit(traceCause(req.trace_id, req.turn_id), {
    type: "reply",
    from: agentParty(calleeId),
    to: agentParty(req.caller_agent_id),
    payload: { request_id: req.request_id, report_id: reportId, tool: req.tool_name, status, valid: outcome.ok, summary },
    action: "ability_reply",
    resource: `agent:${req.caller_agent_id}`,
    status: outcome.ok ? "ok" : "failed",
    reply: true,
  });
  // The caller's result first (a crash after it is finished by abilityReplyOutcome), then the
  // callee is free (reported, no request in hand) before the caller is woken: a caller that calls
  // again at once finds it idle.
  await finishCall(s, req.caller_agent_id, req.tool_call_id, outcome.result, { ability_reply: req.request_id, report_id: reportId, from_agent_id: calleeId, ...(effectKey ? { effect_key: effectKey } : {}) }, false);
  await s.updateAgent(calleeId, (m) => ({ ...m, ability_request: undefined, reported: true }));
  s.notifyAgent(req.caller_agent_id);
  s.setActivity(calleeId, { kind: "ability_reply", target: reportId });
  return reportId;
}

/**
 * No caller may wait for a reply that will not come. On Stop (no `agentId`) every open ability
 * call ends with a tool error. When agent `agentId` is terminated: the call it was serving ends
 * with a tool error for its caller; a call it was waiting on is dropped from its callee, which
 * keeps working and reports to the leader instead (terminating clears the caller's own entries).
 */
export async function endAbilityCalls(s: TeamState, reason: string, scope: { agentId?: number; wake?: boolean } = {}): Promise<void> {
  const agents = (await s.store.listAgents(s.convId)).agents as AgentMeta[];
  const wake = scope.wake ?? true;
  const fail = async (callerId: number, toolCallId: string, toolName: string, requestId: string) => {
    await s.emitNow({ type: "event", from: SYSTEM_PARTY, to: agentParty(callerId), payload: { request_id: requestId, tool: toolName, reason }, action: "ability_reply", resource: `agent:${callerId}`, status: "failed" });
    await finishCall(s, callerId, toolCallId, errorResult(`${toolName} got no reply: ${reason}`), { ability_reply: requestId }, wake);
  };
  for (const callee of agents) {
    const req = callee.ability_request;
    if (!req) continue;
    if (scope.agentId === undefined || scope.agentId === callee.agent_id) await fail(req.caller_agent_id, req.tool_call_id, req.tool_name, req.request_id);
    else if (scope.agentId !== req.caller_agent_id) continue;
    await s.updateAgent(callee.agent_id, (m) => ({ ...m, ability_request: undefined }));
  }
  if (scope.agentId !== undefined) return;
  // On Stop, entries no callee holds yet (stopped between the entry and its delivery) end too.
  for (const caller of agents) {
    if (caller.status === "terminated") continue;
    for (const entry of abilityEntries(await s.readAgent(caller.agent_id))) await fail(caller.agent_id, entry.tool_call_id, entry.tool_name, entry.question_id);
  }
}

/**
 * At resume: an ability call whose caller waits but that no agent holds (the server died between
 * the entry and the delivery) is delivered now; one whose result is already in the caller's
 * messages no longer waits.
 */
export async function resumeAbilityCalls(s: TeamState): Promise<void> {
  const agents = (await s.store.listAgents(s.convId)).agents as AgentMeta[];
  const held = new Set(agents.flatMap((a) => (a.ability_request ? [a.ability_request.key] : [])));
  const table = await conversationAbilities(s);
  for (const caller of agents) {
    if (caller.status === "terminated") continue;
    for (const entry of abilityEntries(caller)) {
      const messages = (await s.store.readAgentMessages(s.convId, caller.agent_id)).messages;
      if (messages.some((m) => m.role === "tool" && m.tool_call_id === entry.tool_call_id)) {
        await finishCall(s, caller.agent_id, entry.tool_call_id, "");
        continue;
      }
      if (held.has(entry.key)) continue;
      const offered = table.get(entry.tool_name);
      if (!offered || offered.role_id !== entry.role_id) {
        await finishCall(s, caller.agent_id, entry.tool_call_id, errorResult(`${entry.tool_name} is no longer offered in this conversation`));
        continue;
      }
      await routed(s, async () => deliverRequest(s, await s.readAgent(caller.agent_id), entry, offered));
    }
  }
}

/**
 * A callee that ends its turn with text and no report: its last answer is the reply, so the
 * caller never waits for a report that will not come. Returns whether it replied.
 */
export async function replyAtTurnEnd(s: TeamState, calleeId: number, messages: Message[]): Promise<boolean> {
  const meta = await s.readAgent(calleeId);
  if (!meta.ability_request || meta.reported) return false;
  const last = [...messages].reverse().find((m) => m.role === "assistant");
  await replyToCaller(s, calleeId, String(last?.content ?? ""), "completed");
  await s.updateAgent(calleeId, (m) => ({ ...m, reported: true }));
  return true;
}
