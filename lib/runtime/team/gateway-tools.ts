import "server-only";
/**
 * The engine's side of the protocol gateway (lib/gateway): which `gw__<source>__<operation>`
 * tools a sub-agent is offered (its role's `gateway:` sources and `gw__…` names in `tools:`, read
 * as the role file is now), and running one after the token check: the role's grant checked
 * again, a read (GET/HEAD) run directly, anything else under `once()` (journalled, never run
 * again after a crash), every call audited on the timeline without its arguments' secrets or
 * any header value.
 */
import { findGatewayTool, gatewayGrant, gatewayToolSpecs, grantsTool, parseGatewayToolName, runGatewayCall } from "@/lib/gateway";
import type { ToolCall, ToolSpec } from "@/lib/models";
import { agentParty, SYSTEM_PARTY } from "@/lib/protocol";
import type { ApprovalGate } from "./approvals";
import { once } from "./effects";
import type { TeamState } from "./state";
import { errorResult, type AgentMeta } from "./types";

/** Whether `name` is a gateway tool's name (`gw__<source>__<operation>`). */
export function isGatewayToolName(name: string): boolean {
  return parseGatewayToolName(name) !== null;
}

async function grantOf(s: TeamState, meta: AgentMeta) {
  const role = await s.deps.roles.get(meta.role_id).catch(() => null);
  return gatewayGrant(role?.kind === "role" ? role.fields : {});
}

/** The gateway tools offered to this agent now. */
export async function gatewayToolsFor(s: TeamState, meta: AgentMeta): Promise<ToolSpec[]> {
  return gatewayToolSpecs(s.deps.root, await grantOf(s, meta));
}

/** Runs a gateway tool for a sub-agent whose token was already checked. */
export async function dispatchGatewayTool(s: TeamState, agentId: number, meta: AgentMeta, call: ToolCall, gate: ApprovalGate): Promise<string | null> {
  const name = call.function.name;
  if (!grantsTool(await grantOf(s, meta), name)) {
    const reason = `permission denied: your role's gateway grants do not include ${name}`;
    await s.emitNow({ type: "event", from: SYSTEM_PARTY, to: agentParty(agentId), payload: { tool: name, code: "role_gateway", reason, scope: null }, action: name, resource: `agent:${agentId}`, status: "refused" });
    return errorResult(reason);
  }
  const found = await findGatewayTool(s.deps.root, name);
  if (!found) return errorResult(`${name} is not a tool the gateway offers now (see gateway.json)`);
  // The approval policy, now that the call is granted and what the operation does is known.
  const verdict = await gate(found.op.effect);
  if (verdict.kind === "refused") return verdict.result;
  if (verdict.kind === "wait") return null;
  const run = async () => {
    s.setActivity(agentId, `${found.op.method} ${found.op.path} (${found.source.name})`);
    const r = await runGatewayCall(s.deps.root, name, call.function.arguments, { maxChars: s.limits.toolOutputMax, signal: s.stopController.signal, errors: s.deps.gatewayErrors });
    await s.emitNow({
      type: "event",
      from: agentParty(agentId),
      to: SYSTEM_PARTY,
      payload: { tool: name, source: found.source.name, operation: found.op.operation, method: found.op.method, path: found.op.path, effect: found.op.effect, http_status: r.status, ...(r.ok ? {} : { error: r.text.slice(0, 300) }) },
      action: name,
      resource: `gateway:${found.source.name}/${found.op.operation}`,
      status: r.ok ? "ok" : "failed",
    });
    return r.ok ? r.text : errorResult(r.text);
  };
  return found.op.effect === "read" ? run() : once(s, agentId, call, run);
}
