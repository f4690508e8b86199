import "server-only";
/**
 * MCP tools in a conversation's team run: what a sub-agent is offered (its role's grants, each
 * server's own JSON Schema and description, listed on the model call that needs them, so a
 * server starts on first use and `list_changed` shows at the next call) and how a call runs
 * (only under a name it can be offered under, the role's grant checked again, the server's answer
 * capped head-and-tail, an MCP error or `isError` answer made a tool error, a write run under
 * `once()`, every call on the timeline).
 * The token check comes first, in agent-tools.ts.
 */
import type { ToolCall, ToolSpec } from "@/lib/models";
import { grants, headTail, McpCallError, mcpGrants, mcpToolName, offeredMcpTool, parseMcpName, resultText, toolEffect, type ListedTool, type ServerGrant } from "@/lib/mcp";
import { agentParty, SYSTEM_PARTY } from "@/lib/protocol";
import type { ApprovalGate } from "./approvals";
import { once } from "./effects";
import type { TeamState } from "./state";
import { errorResult, type AgentMeta } from "./types";

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

/**
 * The MCP tools offered to an agent on this model call, as `mcp__<server>__<tool>` with each
 * server's own schema. A server that cannot start is left out (the person gets a notice, the
 * timeline an event); a tool whose name would not be a valid function name is skipped with a notice.
 */
export async function mcpToolSpecs(s: TeamState, agentId: number, meta: AgentMeta): Promise<ToolSpec[]> {
  const specs: ToolSpec[] = [];
  for (const [server, grant] of await roleGrants(s, meta)) {
    let tools: ListedTool[];
    try {
      tools = await s.deps.mcp.tools(s.deps.root, s.convId, server);
    } catch (error) {
      const message = (error as Error).message;
      noticeOnce(s, `unavailable\n${server}\n${message}`, () => s.notice("warning", "mcp_unavailable", "notice.msg.mcpUnavailable", { server, error: message }, agentId));
      await s.emitNow({ type: "event", from: SYSTEM_PARTY, to: agentParty(agentId), payload: { server, error: message }, action: "mcp_start", resource: `mcp:${server}`, status: "failed" });
      continue;
    }
    for (const t of tools) {
      if (!grants(grant, t.name)) continue;
      const name = mcpToolName(server, t.name);
      if (!name) {
        noticeOnce(s, `skipped\n${server}\n${t.name}`, () => s.notice("warning", "mcp_tool_skipped", "notice.msg.mcpToolSkipped", { server, tool: t.name }, agentId));
        continue;
      }
      specs.push({ type: "function", function: { name, description: t.description || `${t.name} (MCP server ${server})`, parameters: t.inputSchema } });
    }
  }
  return specs;
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

/** Runs one `mcp__<server>__<tool>` call of an agent whose token was checked. */
export async function dispatchMcpTool(s: TeamState, agentId: number, meta: AgentMeta, call: ToolCall, gate: ApprovalGate): Promise<string | null> {
  const name = call.function.name;
  const parsed = parseMcpName(name)!;
  const server = parsed.server;
  const tool = parsed.tool!;
  // A tool skipped when offered (its name is no valid function name) is unknown here too: the
  // model may name it anyway (a guess, or one of the tool's own names), and must not reach it.
  if (!offeredMcpTool(name)) {
    await audit(s, agentId, name, server, tool, "refused", { outcome: "unknown_tool" });
    return errorResult(`unknown tool ${name}: it is not one of the tools you are offered`);
  }
  if (!grants((await roleGrants(s, meta)).get(server), tool)) {
    const reason = `permission denied: your role's mcp_servers and tools do not include ${name}`;
    await s.emitNow({ type: "event", from: SYSTEM_PARTY, to: agentParty(agentId), payload: { tool: name, code: "role_tools", reason, scope: null }, action: name, resource: `mcp:${server}/${tool}`, status: "refused" });
    return errorResult(reason);
  }
  let args: unknown;
  try {
    args = call.function.arguments.trim() === "" ? {} : JSON.parse(call.function.arguments);
  } catch {
    return errorResult(`the arguments of ${name} are not valid JSON`);
  }
  if (!args || typeof args !== "object" || Array.isArray(args)) return errorResult(`the arguments of ${name} must be a JSON object`);
  const manager = s.deps.mcp;
  let listed: ListedTool | undefined;
  try {
    listed = (await manager.tools(s.deps.root, s.convId, server)).find((t) => t.name === tool);
  } catch (error) {
    const message = (error as Error).message;
    await audit(s, agentId, name, server, tool, "failed", { outcome: "unavailable", error: message });
    return errorResult(`${name} could not run: ${message}`);
  }
  if (!listed) {
    await audit(s, agentId, name, server, tool, "refused", { outcome: "unknown_tool" });
    return errorResult(`MCP server ${server} does not offer a tool named ${tool} (any more); use the tools you are offered`);
  }
  const effect = toolEffect(listed.annotations);
  // The approval policy, now that the call is granted and what the tool does is known.
  const verdict = await gate(effect);
  if (verdict.kind === "refused") return verdict.result;
  if (verdict.kind === "wait") return null;
  s.setActivity(agentId, `${name}`);
  const signal = s.agentControllers.get(agentId)?.signal;
  const run = async (): Promise<string> => {
    try {
      const answer = await manager.call(s.deps.root, s.convId, server, tool, args as Record<string, unknown>, signal ? AbortSignal.any([signal, s.stopController.signal]) : s.stopController.signal);
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
  };
  return effect === "read" ? run() : once(s, agentId, call, run);
}
