import "server-only";
/**
 * Tool dispatch: one entry for every tool call of the leader or a sub-agent. Whatever a tool
 * throws becomes a tool result the model can read, so the loop goes on: a refusal (bad
 * arguments, a forbidden path) with its message; any other fault is logged, put on the timeline,
 * and told to the model in plain words.
 */
import type { ToolCall } from "@/lib/models";
import { agentParty, LEADER_PARTY, SYSTEM_PARTY } from "@/lib/protocol";
import { failpoint } from "./failpoints";
import { faultSummary, isRefusal, toolFailureMessage } from "./tool-failure";
import { dispatchAgentTool } from "./agent-tools";
import { dispatchLeaderTool } from "./leader-tools";
import type { TeamState } from "./state";
import { errorResult } from "./types";

async function toolFailed(s: TeamState, agentId: number | null, call: ToolCall, error: unknown): Promise<string> {
  const message = toolFailureMessage(call.function.name, error);
  if (isRefusal(error)) return errorResult(message);
  console.error(`[astrion] ${s.convId} trace=${s.lastTrace?.trace_id ?? "-"} ${agentId === null ? "leader" : `agent ${agentId}`} tool ${call.function.name} failed`, error);
  const party = agentId === null ? LEADER_PARTY : agentParty(agentId);
  await s.emitNow({ type: "event", from: SYSTEM_PARTY, to: party, payload: { tool: call.function.name, fault: faultSummary(error) }, action: call.function.name, resource: `tool_call:${call.id}`, status: "failed" });
  return errorResult(message);
}

/** Runs one tool call of the leader (null) or a sub-agent; null for `ask_master`, whose result comes later. */
export async function runTool(s: TeamState, agentId: number | null, call: ToolCall): Promise<string | null> {
  try {
    failpoint(`tool.${call.function.name}`, call.function.arguments);
    return agentId === null ? await dispatchLeaderTool(s, call) : await dispatchAgentTool(s, agentId, call);
  } catch (error) {
    return toolFailed(s, agentId, call, error);
  }
}
