import "server-only";
/**
 * The protocol gateway's tools for sub-agents (lib/gateway): which `gw__<source>__<operation>`
 * tools an agent is offered (its role's `gateway:` sources and `gw__…` names in `tools:`, read as
 * the role file is now), and running one: the role's grant checked again, its effect the
 * operation's (a GET/HEAD reads and is not journalled; anything else is, by the pipeline, never
 * run again after a crash), every call audited on the timeline without its arguments' secrets
 * or any header value.
 */
import { findGatewayTool, gatewayGrant, gatewayToolSpecs, grantsTool, parseGatewayToolName, runGatewayCall } from "@/lib/gateway";
import type { ToolSpec } from "@/lib/models";
import { agentParty, SYSTEM_PARTY } from "@/lib/protocol";
import type { TeamState } from "@/lib/runtime/team/state";
import { rawArguments, type TeamTool, type ToolContext, type ToolProvider, unofferedSpec } from "@/lib/runtime/team/tool-kit";
import { errorResult, type AgentMeta } from "@/lib/runtime/team/types";

async function grantOf(s: TeamState, meta: AgentMeta) {
  const role = await s.deps.roles.get(meta.role_id).catch(() => null);
  return gatewayGrant(role?.kind === "role" ? role.fields : {});
}

function agentOf(ctx: ToolContext): { agentId: number; meta: AgentMeta } {
  if (ctx.caller.agentId === null) throw new Error("a gateway tool was called by the leader");
  return ctx.caller;
}

/** A gateway tool; its arguments are validated against the operation's own schema when it runs. */
function gatewayTool(spec: ToolSpec, effect?: "read" | "write"): TeamTool<string> {
  const name = spec.function.name;
  // What authorize found in gateway.json, for the execute that follows it (one object per call).
  let found: Awaited<ReturnType<typeof findGatewayTool>> = null;
  return {
    name,
    spec,
    effect: effect ?? "write",
    approval: true,
    scope: "gateway:call",
    parse: rawArguments,
    authorize: async (ctx) => {
      const { s } = ctx;
      const { agentId, meta } = agentOf(ctx);
      if (!grantsTool(await grantOf(s, meta), name)) {
        const reason = `permission denied: your role's gateway grants do not include ${name}`;
        await s.emitNow({ type: "event", from: SYSTEM_PARTY, to: agentParty(agentId), payload: { tool: name, code: "role_gateway", reason, scope: null }, action: name, resource: `agent:${agentId}`, status: "refused" });
        return { refused: errorResult(reason) };
      }
      found = await findGatewayTool(s.deps.root, name);
      if (!found) return { refused: errorResult(`${name} is not a tool the gateway offers now (see gateway.json)`) };
      return { effect: found.op.effect };
    },
    execute: async (ctx, raw) => {
      const { s } = ctx;
      const { agentId } = agentOf(ctx);
      if (!found) throw new Error(`${name} ran without being authorized`);
      s.setActivity(agentId, { kind: "tool", target: `${found.op.method} ${found.op.path}` });
      const r = await runGatewayCall(s.deps.root, name, raw, { maxChars: s.limits.toolOutputMax, signal: s.stopController.signal, errors: s.deps.gatewayErrors });
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
    },
  };
}

/** The gateway tools of the agent's role's grants. */
export const gatewayTools: ToolProvider = {
  name: "gateway",
  offer: async ({ s, caller }) => ({ tools: caller.agentId === null ? [] : (await gatewayToolSpecs(s.deps.root, await grantOf(s, caller.meta))).map((spec) => gatewayTool(spec)) }),
  resolve: async (name, { caller }) =>
    caller.agentId !== null && parseGatewayToolName(name) ? gatewayTool(unofferedSpec(name)) : undefined,
};
