import "server-only";
/**
 * What happens when an error escapes a team loop (the leader's or an agent's): recorded, never
 * silent. Split from lib/runtime/team-run.ts, which hands it to both loops.
 */
import { AstrionError } from "@/lib/contracts/errors";
import { agentParty, LEADER_PARTY, SYSTEM_PARTY } from "@/lib/protocol";
import { reportFailure } from "./mail";
import { crashRefs } from "./retry";
import type { TeamState } from "./state";
import { faultReason, faultSummary } from "./tool-failure";

/**
 * An error escaped a loop (not from a tool: those become tool errors). Nothing may die
 * silently: it is logged, the person gets a notice, the timeline an event, and a sub-agent ends
 * in a visible failed state (idle, with `failure` in its metadata) and reports the failure to
 * the leader, so nobody waits for it. The next message or task it receives clears the failure.
 */
export async function loopCrashed(s: TeamState, agentId: number | null, error: unknown): Promise<void> {
  if (error instanceof AstrionError && error.code === "not_found") return; // deleted under us
  // Halted: the loop failed on a refused write; the halt was logged, and nothing can be recorded.
  if (s.halted) return;
  const who = agentId === null ? "Team Leader" : `agent ${agentId}`;
  console.error(`[astrion] ${s.convId} trace=${s.lastTrace?.trace_id ?? "-"} ${who} loop failed`, error);
  const fault = faultSummary(error);
  // The work it failed on is marked (with Retry when the loop can take it up again).
  const extras = { ...(await crashRefs(s, agentId).catch(() => ({}))), detail: fault };
  if (agentId === null) s.notice("error", "leader_failed", "notice.msg.leaderFailed", { reason: faultReason(error) }, null, extras);
  else s.notice("error", "agent_failed", "notice.msg.agentFailed", { agent: agentId, reason: faultReason(error) }, agentId, extras);
  try {
    await s.emitNow({ type: "event", from: SYSTEM_PARTY, to: agentId === null ? LEADER_PARTY : agentParty(agentId), payload: { fault }, action: agentId === null ? "leader_failed" : "agent_failed", resource: agentId === null ? "leader" : `agent:${agentId}`, status: "failed" });
    if (agentId === null) return;
    const failure = { code: "internal_error", fault, at: new Date().toISOString() };
    const meta = await s.readAgent(agentId);
    const updated = meta.status === "running" ? await s.agentEvent(agentId, "pause", (m) => ({ ...m, failure })) : await s.updateAgent(agentId, (m) => ({ ...m, failure }));
    if (meta.status !== "running") await s.publishAgent(updated);
    await reportFailure(s, agentId, updated, `I stopped on an internal error (${fault}) and could not finish my task.`);
  } catch (again) {
    console.error(`[astrion] ${s.convId} could not record the failure of the ${who}`, again);
  }
}
