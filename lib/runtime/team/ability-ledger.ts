import "server-only";
/**
 * The ledger of ability calls (./abilities.ts routes them): which abilities the conversation
 * offers and whether a tool name is one, how a call's journalled result reads, and how a call
 * ends (the caller's tool result appended, its pending entry removed, the caller woken). What
 * the crash recovery of side effects (./effects.ts) needs to know of ability calls, apart from
 * their routing, so the two do not import each other.
 */
import { abilityTable, type OfferedAbility } from "@/lib/abilities";
import { allowListFromMetadata, authorizedRoles } from "@/lib/governance";
import type { Message, PendingToolCall } from "@/lib/store";
import { TOOLS } from "@/lib/team-tools";
import type { TeamState } from "./state";
import { appendToolResult } from "./steps";
import type { AgentMeta } from "./types";

/** The caller's pending entry of an ability call. */
export interface AbilityPending extends PendingToolCall {
  kind: "ability";
  key: string;
  role_id: string;
  ability: string;
  /** What the call was, so a request cut short by a crash can be delivered at resume. */
  input: Record<string, unknown>;
}

export const SENT = "ability_request_sent";

/** True for the journalled result of a call whose request was sent (its real result comes later). */
export function isAbilitySent(result: string): boolean {
  return result.startsWith(`{"${SENT}"`);
}

export function abilityEntries(meta: AgentMeta): AbilityPending[] {
  return (meta.pending_tool_calls ?? []).filter((p): p is AbilityPending => (p as { kind?: unknown }).kind === "ability");
}

/** The conversation's ability table: every authorized role's `provides:`, named (lib/abilities/naming.ts). */
export async function conversationAbilities(s: TeamState): Promise<Map<string, OfferedAbility>> {
  const { choices, byId } = await s.roleChoices();
  const allowed = authorizedRoles(choices, allowListFromMetadata(await s.store.get(s.convId)));
  const roles = allowed.flatMap((c) => {
    const detail = byId.get(c.id);
    return detail?.fields.provides?.length ? [{ role_id: c.id, role_name: detail.fields.name, provides: detail.fields.provides }] : [];
  });
  return abilityTable(roles, TOOLS.map((t) => t.name));
}

/**
 * Ends a call with `content` as the caller's tool result: appended unless one is there already,
 * then the pending entry removed (the caller runs again once none is left) and the caller woken.
 */
export async function finishCall(s: TeamState, callerId: number, toolCallId: string, content: string, extra: Record<string, unknown> = {}, wake = true): Promise<void> {
  const messages = (await s.store.readAgentMessages(s.convId, callerId)).messages;
  if (!messages.some((m) => m.role === "tool" && m.tool_call_id === toolCallId)) {
    await appendToolResult(s, callerId, { id: toolCallId, type: "function", function: { name: "", arguments: "" } }, content, extra);
  }
  const meta = await s.readAgent(callerId);
  if (!(meta.pending_tool_calls ?? []).some((p) => p.tool_call_id === toolCallId)) return;
  const rest = (meta.pending_tool_calls ?? []).filter((p) => p.tool_call_id !== toolCallId);
  if (meta.status === "waiting" && !rest.length) await s.agentEvent(callerId, "answer", (m) => ({ ...m, pending_tool_calls: rest }));
  else await s.publishAgent(await s.updateAgent(callerId, (m) => ({ ...m, pending_tool_calls: rest })));
  if (wake) s.notifyAgent(callerId);
}

/**
 * After a crash inside a callee's report: whether the reply reached its caller (the caller's tool
 * result carries the report's key). When it did, what was left undone is finished and the
 * report's result given back; null otherwise.
 */
export async function abilityReplyOutcome(s: TeamState, key: string): Promise<string | null> {
  const { agents } = await s.store.listAgents(s.convId);
  for (const a of agents) {
    const found = (await s.store.readAgentMessages(s.convId, a.agent_id)).messages.find((m: Message) => m.role === "tool" && m.metadata?.effect_key === key);
    if (!found) continue;
    const calleeId = Number(found.metadata?.from_agent_id);
    await finishCall(s, a.agent_id, String(found.tool_call_id), "");
    if (Number.isSafeInteger(calleeId)) await s.updateAgent(calleeId, (m) => ({ ...m, ability_request: undefined, reported: true }));
    return JSON.stringify({ delivered: true, report_id: found.metadata?.report_id ?? null });
  }
  return null;
}
