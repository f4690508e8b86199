import "server-only";
/**
 * Ending one sub-agent, by the leader's `terminate_agent` or a person's Stop of that agent: its
 * model call is aborted, its ability calls ended, its token revoked, and it never runs again.
 */
import { authorParty, type Author } from "@/lib/contracts/people";
import { agentParty, LEADER_PARTY, USER_PARTY } from "@/lib/protocol";
import { endAbilityCalls } from "./abilities";
import type { TeamState } from "./state";
import { LEADER_DISPLAY_NAME, summarize } from "./types";

/** Terminates one agent: its model call is aborted, its token revoked, and it never runs again. */
export async function terminateAgent(s: TeamState, agentId: number, reason: string, by: string, author?: Author): Promise<void> {
  const meta = await s.readAgent(agentId);
  if (meta.status === "terminated") return;
  s.agentControllers.get(agentId)?.abort(new Error("terminated"));
  await endAbilityCalls(s, `${meta.display_name} was terminated${reason ? ` (${summarize(reason, 200)})` : ""}`, { agentId });
  s.deps.tokens.revoke(s.convId, agentId);
  await s.agentEvent(agentId, "terminate", (m) => ({ ...m, pending_tool_calls: [] }));
  s.setActivity(agentId, { kind: "terminated" });
  const from = author ? authorParty(author) : by === LEADER_DISPLAY_NAME ? LEADER_PARTY : USER_PARTY;
  await s.emitNow({ type: "control", from, to: agentParty(agentId), payload: { reason: summarize(reason) }, action: "terminate_agent", resource: `agent:${agentId}`, author });
}
