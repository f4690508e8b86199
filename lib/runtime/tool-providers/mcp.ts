import "server-only";
/**
 * MCP tools for sub-agents: what an agent is offered (its role's grants, each server's own JSON
 * Schema and description, listed on the model call that needs them, so a server starts on first
 * use and `list_changed` shows at the next call) and how a call runs (only under a name it can be
 * offered under, the role's grant checked again, its effect the server's listing's, the server's
 * answer capped head-and-tail, an MCP error or `isError` answer made a tool error, a write
 * journalled by the pipeline, every call on the timeline). The token check comes first, in the
 * pipeline (lib/runtime/team/pipeline.ts).
 */
import type { ToolSpec } from "@/lib/models";
import { grants, headTail, McpCallError, mcpFailureReason, mcpGrants, mcpToolName, offeredMcpTool, parseMcpName, resultText, toolEffect, type ListedTool, type ServerGrant } from "@/lib/mcp";
import { agentParty, SYSTEM_PARTY } from "@/lib/protocol";
import type { TeamState } from "@/lib/runtime/team/state";
import { unofferedSpec, type Parsed, type TeamTool, type ToolContext, type ToolProvider } from "@/lib/runtime/team/tool-kit";
import { errorResult, type AgentMeta } from "@/lib/runtime/team/types";

/** Notices already shown, per run (one per server and problem, not one per model call). */
const noticed = new WeakMap<TeamState, Set<string>>();

function noticeOnce(s: TeamState, key: string, show: () => void): void {
  let seen = noticed.get(s);
  if (!seen) noticed.set(s, (seen = new Set()));
  if (seen.has(key)) return;
  seen.add(key);
  show();
}

/** The MCP grants of the agent's role as it is now (an edit narrows them at the next call). */
async function roleGrants(s: TeamState, meta: AgentMeta): Promise<Map<string, ServerGrant>> {
  const role = await s.deps.roles.get(meta.role_id).catch(() => null);
  return role?.kind === "role" ? mcpGrants(role.fields) : new Map();
}

/** The result text in the tool-output budget, head and tail kept; JSON escaping counted. */
function capped(build: (text: string) => string, text: string, max: number): string {
  let room = max;
  for (;;) {
    const out = build(headTail(text, room).text);
    if (out.length <= max || room <= 64) return out;
    room = Math.floor(room * 0.8);
  }
}

async function audit(s: TeamState, agentId: number, name: string, server: string, tool: string, status: string, payload: Record<string, unknown>): Promise<void> {
  await s.emitNow({ type: "event", from: agentParty(agentId), to: SYSTEM_PARTY, payload: { server, tool, ...payload }, action: name, resource: `mcp:${server}/${tool}`, status });
}

function parseObject(name: string): (raw: string) => Parsed<Record<string, unknown>> {
  return (raw) => {
    let args: unknown;
    try {
      args = raw.trim() === "" ? {} : JSON.parse(raw);
    } catch {
      return { ok: false, error: `the arguments of ${name} are not valid JSON` };
    }
    if (!args || typeof args !== "object" || Array.isArray(args)) return { ok: false, error: `the arguments of ${name} must be a JSON object` };
    return { ok: true, args: args as Record<string, unknown> };
  };
}

/** The agent of an MCP call (offered to sub-agents only). */
function agentOf(ctx: ToolContext): { agentId: number; meta: AgentMeta } {
  if (ctx.caller.agentId === null) throw new Error("an MCP tool was called by the leader");
  return ctx.caller;
}

/**
 * The tool object of `mcp__<server>__<tool>`: `spec` is what an offer lists (the server's own
 * schema); a call found by name alone gets its effect from the server's listing when it is
 * authorized, after the token check, so no server starts for a call that would be refused.
 */
function mcpTool(name: string, server: string, tool: string, spec: ToolSpec, listedEffect?: "read" | "write"): TeamTool<Record<string, unknown>> {
  return {
    name,
    spec,
    // Until the listing says otherwise, a call is treated as one that changes something.
    effect: listedEffect ?? "write",
    approval: true,
    scope: "tools:mcp",
    parse: parseObject(name),
    authorize: async (ctx) => {
      const { s } = ctx;
      const { agentId, meta } = agentOf(ctx);
      // A tool skipped when offered (its name is no valid function name) is unknown here too: the
      // model may name it anyway (a guess, or one of the tool's own names), and must not reach it.
      if (!offeredMcpTool(name)) {
        await audit(s, agentId, name, server, tool, "refused", { outcome: "unknown_tool" });
        return { refused: errorResult(`unknown tool ${name}: it is not one of the tools you are offered`) };
      }
      if (!grants((await roleGrants(s, meta)).get(server), tool)) {
        const reason = `permission denied: your role's mcp_servers and tools do not include ${name}`;
        await s.emitNow({ type: "event", from: SYSTEM_PARTY, to: agentParty(agentId), payload: { tool: name, code: "role_tools", reason, scope: null }, action: name, resource: `mcp:${server}/${tool}`, status: "refused" });
        return { refused: errorResult(reason) };
      }
      let listed: ListedTool | undefined;
      try {
        listed = (await s.deps.mcp.tools(s.deps.root, s.convId, server)).find((t) => t.name === tool);
      } catch (error) {
        const message = (error as Error).message;
        await audit(s, agentId, name, server, tool, "failed", { outcome: "unavailable", error: message });
        return { refused: errorResult(`${name} could not run: ${message}`) };
      }
      if (!listed) {
        await audit(s, agentId, name, server, tool, "refused", { outcome: "unknown_tool" });
        return { refused: errorResult(`MCP server ${server} does not offer a tool named ${tool} (any more); use the tools you are offered`) };
      }
      return { effect: toolEffect(listed.annotations) };
    },
    execute: async (ctx, args) => {
      const { s } = ctx;
      const { agentId } = agentOf(ctx);
      const effect = ctx.effect;
      const signal = s.agentControllers.get(agentId)?.signal;
      try {
        const answer = await s.deps.mcp.call(s.deps.root, s.convId, server, tool, args, signal ? AbortSignal.any([signal, s.stopController.signal]) : s.stopController.signal);
        const text = resultText(answer);
        await audit(s, agentId, name, server, tool, answer.isError ? "failed" : "ok", { effect, outcome: answer.isError ? "tool_error" : "ok", chars: text.length, truncated: text.length > s.limits.toolOutputMax });
        const max = s.limits.toolOutputMax;
        return answer.isError ? capped((t) => errorResult(`${name} failed: ${t}`), text, max) : capped((t) => JSON.stringify({ server, tool, result: t }), text, max);
      } catch (error) {
        const kind = error instanceof McpCallError ? error.kind : "unavailable";
        const message = (error as Error).message;
        await audit(s, agentId, name, server, tool, kind === "timeout" ? "timeout" : "failed", { effect, outcome: kind, error: message });
        return errorResult(kind === "timeout" ? `${name} timed out: ${message}; it may still be running on the server` : `${name} failed: ${message}`);
      }
    },
  };
}

/**
 * The MCP tools offered to an agent on this model call, as `mcp__<server>__<tool>` with each
 * server's own schema. A server that cannot start is left out (the person gets a notice, the
 * timeline an event); a tool whose name would not be a valid function name is skipped with a notice.
 */
async function offered(s: TeamState, agentId: number, meta: AgentMeta): Promise<TeamTool[]> {
  const tools: TeamTool[] = [];
  for (const [server, grant] of await roleGrants(s, meta)) {
    let listed: ListedTool[];
    try {
      listed = await s.deps.mcp.tools(s.deps.root, s.convId, server);
    } catch (error) {
      const message = (error as Error).message;
      noticeOnce(s, `unavailable\n${server}\n${message}`, () => s.notice("warning", "mcp_unavailable", "notice.msg.mcpUnavailable", { server, reason: mcpFailureReason(error) }, agentId, { detail: message }));
      await s.emitNow({ type: "event", from: SYSTEM_PARTY, to: agentParty(agentId), payload: { server, error: message }, action: "mcp_start", resource: `mcp:${server}`, status: "failed" });
      continue;
    }
    for (const t of listed) {
      if (!grants(grant, t.name)) continue;
      const name = mcpToolName(server, t.name);
      if (!name) {
        noticeOnce(s, `skipped\n${server}\n${t.name}`, () => s.notice("warning", "mcp_tool_skipped", "notice.msg.mcpToolSkipped", { server, tool: t.name }, agentId));
        continue;
      }
      const spec: ToolSpec = { type: "function", function: { name, description: t.description || `${t.name} (MCP server ${server})`, parameters: t.inputSchema } };
      tools.push(mcpTool(name, server, t.name, spec, toolEffect(t.annotations)));
    }
  }
  return tools;
}

/** The MCP tools of the agent's role's servers. */
export const mcpTools: ToolProvider = {
  name: "mcp",
  offer: async ({ s, caller }) => ({ tools: caller.agentId === null ? [] : await offered(s, caller.agentId, caller.meta) }),
  resolve: async (name, { caller }) => {
    const parsed = caller.agentId === null ? null : parseMcpName(name);
    if (!parsed?.tool) return undefined;
    const tool = parsed.tool;
    return mcpTool(name, parsed.server, tool, unofferedSpec(name));
  },
};
