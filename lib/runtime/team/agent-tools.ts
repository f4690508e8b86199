import "server-only";
/**
 * A sub-agent's tools: the project folder (list, read, search, write), messages (to a teammate,
 * a report or a question to the leader) and the shared context. Every call is checked against the
 * agent's scoped token (least privilege, seed 003 §6.3) before it runs; the token is also the one
 * source of the folder the workspace tools work in. Every data access is audited.
 */
import { ABILITY_EFFECT } from "@/lib/abilities";
import { AstrionError } from "@/lib/contracts/errors";
import { ABILITY_CALL_TOOL, scopesFor } from "@/lib/governance";
import type { ToolCall } from "@/lib/models";
import { hasOwnKey } from "@/lib/own";
import { agentParty, formatAgentMessage, LEADER_PARTY, roleAbbreviation, SYSTEM_PARTY } from "@/lib/protocol";
import { executeSharedContextTool, isSharedContextTool, SHARED_CONTEXT_READ_ONLY_TOOLS } from "@/lib/shared-context";
import { FILE_TOOLS, roleToolAccess } from "@/lib/roles/tool-mapping";
import { epochSeconds, type Message } from "@/lib/store";
import { toolEffect } from "@/lib/team-tools";
import { AGENT_TOOL_ARGS, parseToolArguments } from "./tools";
import { isMcpToolName } from "@/lib/mcp/tools";
import { callAbility } from "./abilities";
import { findAbility } from "./ability-ledger";
import { approvalGate, type ApprovalGate } from "./approvals";
import { executeRunCommand } from "./command";
import { once } from "./effects";
import { dispatchMcpTool } from "./mcp-tools";
import { dispatchGatewayTool, isGatewayToolName } from "./gateway-tools";
import { dispatchKnowledgeTool, isKnowledgeTool, KNOWLEDGE_TOOL } from "./knowledge-tools";
import { dispatchMemoryTool, isMemoryToolName } from "./memory-tools";
import { deliverReport, messageAgent, toLeaderInbox } from "./mail";
import type { TeamState } from "./state";
import { errorResult, messageId, summarize, type AgentMeta } from "./types";

/**
 * Runs one of a sub-agent's tools; null for `ask_master`, for an ability call, and for a call
 * waiting for a person's approval (the result comes later). Errors other than refusals are thrown
 * to the dispatcher.
 */
export async function dispatchAgentTool(s: TeamState, agentId: number, call: ToolCall): Promise<string | null> {
  const name = call.function.name;
  if (name === "create_sub_agent") {
    await s.emitNow({ type: "event", from: SYSTEM_PARTY, to: agentParty(agentId), payload: { tool: name }, action: "create_sub_agent", resource: `agent:${agentId}`, status: "refused" });
    s.notice("warning", "cap_spawn", "notice.msg.spawnRefused", { agent: agentId }, agentId);
    return errorResult("sub-agents cannot create sub-agents; ask the Team Leader with ask_master if you need help");
  }
  const shared = isSharedContextTool(name);
  const mcp = isMcpToolName(name);
  // Gateway tools (gw__<source>__<op>) validate their arguments against their operation's schema.
  const gateway = isGatewayToolName(name);
  // search_knowledge (knowledge-tools.ts) and recall_memory (memory-tools.ts) parse their own arguments.
  const knowledge = isKnowledgeTool(name);
  const memory = isMemoryToolName(name);
  const meta = await s.readAgent(agentId);
  // A teammate role's ability (lib/runtime/team/abilities.ts): checked against its declared input there.
  const ability = shared || mcp || gateway || knowledge || memory || hasOwnKey(AGENT_TOOL_ARGS, name) ? null : await findAbility(s, meta, name);
  if (ability === "own") return errorResult(`${name} is an ability of your own role: do it yourself`);
  if (!shared && !mcp && !gateway && !knowledge && !memory && !ability && !hasOwnKey(AGENT_TOOL_ARGS, name)) return errorResult(`unknown tool ${name}`);
  // Shared-context, MCP, gateway and ability tools validate their own arguments; the permission check only needs the name.
  const parsed = shared || mcp || gateway || knowledge || memory || ability ? ({ ok: true, args: {} } as const) : parseToolArguments(AGENT_TOOL_ARGS[name as keyof typeof AGENT_TOOL_ARGS], call.function.arguments);
  if (!parsed.ok) return errorResult(parsed.error);
  const args = parsed.args as Record<string, unknown>;
  // No tool runs while the project folder is refused or metadata.json names another folder.
  const project = await s.projectGate();
  if (!project.ok) return s.projectRefused(project, agentParty(agentId), name);
  const conv = await s.store.get(s.convId);
  await narrowToRole(s, meta);
  const token = meta.status === "terminated" || conv.status === "archived" ? undefined : s.tokenOf(agentId);
  const check = s.deps.tokens.check(token, { conversation_id: s.convId, agent_id: agentId, tool: ability ? ABILITY_CALL_TOOL : name, args });
  if (!check.ok || !token) {
    const refusal = check.ok ? { code: "no_token", reason: "permission denied: this agent holds no access token" } : check;
    await s.emitNow({ type: "event", from: SYSTEM_PARTY, to: agentParty(agentId), payload: { tool: name, code: refusal.code, reason: refusal.reason, scope: check.ok ? null : (check.scope ?? null) }, action: name, resource: `agent:${agentId}`, status: "refused" });
    return errorResult(refusal.reason);
  }
  // A role's `tools:` decide its file tools, finer than the token's scopes (`tools: Read` grants
  // read_file, not list_files): one it was not offered is refused even if the model names it.
  if (meta.file_tools && (FILE_TOOLS as readonly string[]).includes(name) && !meta.file_tools.includes(name)) {
    const reason = `permission denied: your role's tools do not include ${name}`;
    await s.emitNow({ type: "event", from: SYSTEM_PARTY, to: agentParty(agentId), payload: { tool: name, code: "role_tools", reason, scope: null }, action: name, resource: `agent:${agentId}`, status: "refused" });
    return errorResult(reason);
  }
  const root = token.project_path;
  // The approval policy (allow / ask / deny) of every tool, after the token: what the token
  // refuses never reaches a person. MCP and gateway tools pass it once their grant is checked
  // and their effect is known (their own dispatchers call `gate`), so nobody is asked about a
  // call that would be refused anyway.
  const gate: ApprovalGate = (effect) => approvalGate(s, agentId, meta, call, { name, effect, command: name === "run_command" ? String(args.command) : undefined, cwd: root });
  if (mcp) return dispatchMcpTool(s, agentId, meta, call, gate);
  if (gateway) return dispatchGatewayTool(s, agentId, meta, call, gate);
  if (memory) return dispatchMemoryTool(s, agentId, meta.role_id, call, gate);
  const verdict = await gate(ability ? ABILITY_EFFECT : knowledge ? KNOWLEDGE_TOOL.effect : (toolEffect(name) ?? "write"));
  if (verdict.kind === "refused") return verdict.result;
  if (verdict.kind === "wait") return null;
  if (ability) {
    s.setActivity(agentId, `calling ${name}`);
    return callAbility(s, agentId, call, ability);
  }
  if (shared) {
    const cause = await s.causeFor(meta);
    s.setActivity(agentId, name);
    const run = () =>
      executeSharedContextTool(name, call.function.arguments, {
        conversationDir: s.dir,
        queues: s.deps.queues,
        actor: { display_name: meta.display_name, role: "agent", party: agentParty(agentId) },
        emit: async (e) => void (await s.emit(cause, e)),
        requestedAt: s.deps.clock.now(),
      });
    return SHARED_CONTEXT_READ_ONLY_TOOLS.has(name) ? run() : once(s, agentId, call, run);
  }
  const { listFiles, readFile, searchFiles, writeFile } = s.deps.workspace;
  try {
    switch (name) {
      case "list_files": {
        s.setActivity(agentId, `list_files ${String(args.path)}`);
        const r = await listFiles(root, String(args.path ?? "."), { maxOutputChars: s.limits.toolOutputMax });
        s.auditAccess(agentId, name, `dir:${r.path}`, { entries: r.entries.length, truncated: r.truncated });
        return JSON.stringify(r);
      }
      case "read_file": {
        s.setActivity(agentId, `read_file ${String(args.path)}`);
        const r = await readFile(root, String(args.path), { maxOutputChars: s.limits.toolOutputMax });
        s.auditAccess(agentId, name, `file:${r.path}`, { size: r.size, truncated: r.truncated });
        return JSON.stringify(r);
      }
      case "search_files": {
        s.setActivity(agentId, `search_files "${summarize(String(args.query), 40)}"`);
        const r = await searchFiles(root, String(args.query), { path: args.path as string | undefined, glob: args.glob as string | undefined, maxOutputChars: s.limits.toolOutputMax });
        s.auditAccess(agentId, name, `dir:${String(args.path ?? ".")}`, { query: summarize(String(args.query), 80), matches: r.matches.length, files_scanned: r.filesScanned });
        return JSON.stringify(r);
      }
      case KNOWLEDGE_TOOL.name:
        return await dispatchKnowledgeTool(s, agentId, meta, call.function.arguments, root);
      case "write_file":
        s.setActivity(agentId, `write_file ${String(args.path)}`);
        return await once(s, agentId, call, async () => {
          const r = await writeFile(root, String(args.path), String(args.content));
          await s.emitNow({ type: "event", from: agentParty(agentId), to: SYSTEM_PARTY, payload: { path: r.path, bytes: r.bytes }, action: "write_file", resource: `file:${r.path}` });
          return JSON.stringify(r);
        });
      case "run_command": {
        const command = String(args.command);
        const timeout = typeof args.timeout_seconds === "number" ? args.timeout_seconds : undefined;
        const hardened = verdict.kind === "run" ? verdict.hardened : undefined;
        return await once(s, agentId, call, (key) => executeRunCommand(s, agentId, call.id, key, command, timeout, root, hardened));
      }
      case "send_message": {
        const target = Number(args.agent_id);
        if (target === agentId) return errorResult("you cannot message yourself");
        if (!conv.agent_ids.includes(target)) return errorResult(`no agent ${target} in this team`);
        s.setActivity(agentId, `message to agent ${target}`);
        return await once(s, agentId, call, async () => {
          const id = await messageAgent(s, target, String(args.content), { name: meta.display_name, agentId, party: agentParty(agentId), abbrev: roleAbbreviation(meta.role_id) });
          return JSON.stringify({ delivered: true, message_id: id });
        });
      }
      case "report_to_leader":
        return await once(s, agentId, call, async (key) => {
          const reportId = await deliverReport(s, agentId, meta, String(args.summary), String(args.status ?? "completed"), key);
          await s.updateAgent(agentId, (m) => ({ ...m, reported: true }));
          return JSON.stringify({ delivered: true, report_id: reportId });
        });
      case "ask_master":
        await askMaster(s, agentId, meta, call, String(args.question));
        return null;
    }
  } catch (error) {
    if (error instanceof AstrionError && error.status < 500) {
      if (error.code === "forbidden") {
        const code = (error.details as { reason?: unknown } | undefined)?.reason;
        await s.emitNow({ type: "event", from: SYSTEM_PARTY, to: agentParty(agentId), payload: { tool: name, code: typeof code === "string" ? code : "forbidden", reason: error.message }, action: name, resource: `path:${String(args.path ?? "")}`, status: "refused" });
      }
      return errorResult(error.message);
    }
    throw error;
  }
  return errorResult(`unknown tool ${name}`);
}

/**
 * A role file edited to allow less (through the API or on disk) takes effect at its agents' very
 * next tool call: their live tokens are narrowed to what the role allows now. The role folder is
 * held in memory while it does not change, so this costs a lookup.
 */
async function narrowToRole(s: TeamState, meta: AgentMeta): Promise<void> {
  const role = await s.deps.roles.get(meta.role_id).catch(() => null);
  const permissions = role?.kind === "role" ? roleToolAccess(role.fields).permissions : [];
  // The usual case costs one lookup: this agent's token allows nothing the role does not.
  const allowed = new Set(scopesFor(permissions));
  if (s.tokenOf(meta.agent_id)?.scopes.every((scope) => allowed.has(scope)) !== false) return;
  for (const n of s.deps.tokens.narrowRole(meta.role_id, permissions)) {
    if (n.conversation_id !== s.convId) continue;
    s.notice("warning", "token_narrowed", "notice.msg.tokenNarrowed", { role: meta.role_id, agent: n.agent_id, scopes: n.scopes.join(", ") }, n.agent_id);
    await s.emitNow({ type: "event", from: SYSTEM_PARTY, to: agentParty(n.agent_id), payload: { role_id: meta.role_id, scopes: n.scopes }, action: "token_narrowed", resource: `agent:${n.agent_id}` });
  }
}

/** `ask_master`: the agent waits; the question goes to the leader's inbox and to the person's screen. */
async function askMaster(s: TeamState, agentId: number, meta: AgentMeta, call: ToolCall, question: string): Promise<void> {
  const questionId = await s.nextId("question", roleAbbreviation(meta.role_id));
  s.setActivity(agentId, `asked ${questionId}`);
  const updated = await s.agentEvent(agentId, "ask", (m) => ({
    ...m,
    pending_tool_calls: [...(m.pending_tool_calls ?? []), { tool_call_id: call.id, tool_name: "ask_master", question_id: questionId, created_at: epochSeconds(), question }],
  }));
  const leaderMessage: Message = {
    role: "user",
    content: formatAgentMessage("message", meta.display_name, questionId, question),
    message_id: messageId("msg_auto"),
    metadata: { message_source: "sub_agent", visibility: "compact", starts_work: false, agent_id: agentId, trace_id: meta.trace_id },
  };
  const q = s.questionsOf([updated]).find((x) => x.question_id === questionId);
  if (q) s.publish({ type: "question", question: q });
  await s.emit(await s.causeFor(meta), { type: "request", from: agentParty(agentId), to: LEADER_PARTY, payload: { question_id: questionId, question }, action: "ask_master", resource: `question:${questionId}`, producer: "model" });
  await toLeaderInbox(s, leaderMessage);
}
