import "server-only";
/**
 * Creating a sub-agent: the leader's `create_sub_agent`, and the callee of a teammate's ability
 * call (./abilities.ts), through one path.
 */

import { aliasRegistry, loadRegistry, resolveModelName } from "@/lib/models";
import { agentParty, LEADER_PARTY, SYSTEM_PARTY, type Envelope } from "@/lib/protocol";
import { roleToolAccess, READ_FILE_TOOLS } from "@/lib/roles/tool-mapping";
import { epochSeconds, type Message, type PendingMessage } from "@/lib/store";
import { agentSystemPrompt } from "./prompts";
import type { TeamState } from "./state";
import { atWork, errorResult, LEADER_DISPLAY_NAME, summarize, type AgentMeta, type Sender } from "./types";

/** The Team Leader as the sender of a task or message. */
export const LEADER_SENDER: Sender = { name: LEADER_DISPLAY_NAME, agentId: null, party: LEADER_PARTY, abbrev: "tl" };

/**
 * Who hands a new agent its task, when it is not the leader's `create_sub_agent`: an ability call
 * of a teammate (lib/runtime/team/abilities.ts) creates its callee through the same path.
 */
export interface CreateAgentOptions {
  /** The sender of the task (default the Team Leader). */
  from?: Sender;
  /** The timeline action of the task envelope (default `create_sub_agent`). */
  action?: string;
  /** Added to the task envelope's payload. */
  payload?: Record<string, unknown>;
  /** The task id to use (default a new `task_NNN`). */
  taskId?: string;
  /** What to tell the caller when the agent cap is reached. */
  capHint?: string;
  /** Keys written with the task, in the same change (they may name the task envelope). */
  extra?: (taskEnvelope: Envelope) => Partial<AgentMeta>;
}

/** `create_sub_agent`: enforces the per-conversation cap, creates the files, issues the agent's token, hands over the task. */
export async function createSubAgent(s: TeamState, roleId: string, task: string, critical: boolean, effectKey: string, options: CreateAgentOptions = {}): Promise<string> {
  const from = options.from ?? LEADER_SENDER;
  const action = options.action ?? "create_sub_agent";
  const project = await s.projectGate();
  if (!project.ok) return s.projectRefused(project, from.party, action);
  const conv = await s.store.get(s.convId);
  if (conv.agent_ids.length >= s.limits.maxAgents) {
    s.notice("warning", "cap_agents", "notice.msg.agentCap", { max: s.limits.maxAgents });
    await s.emitNow({ type: "event", from: SYSTEM_PARTY, to: from.party, payload: { cap: s.limits.maxAgents }, action, resource: `role:${roleId}`, status: "capped" });
    return errorResult(`cap reached: this conversation already has ${s.limits.maxAgents} sub-agents (the maximum). ${options.capHint ?? "Reuse one with send_message_to_agent."}`);
  }
  const role = await s.deps.roles.get(roleId);
  if (role.kind !== "role") return errorResult(`role "${roleId}" cannot be loaded: ${role.error.message}`);
  const max = role.fields.max_concurrency;
  if (max !== undefined) {
    const busy = ((await s.store.listAgents(s.convId)).agents as AgentMeta[]).filter((a) => a.role_id === roleId && atWork(a)).length;
    if (busy >= max) {
      s.notice("warning", "cap_role", "notice.msg.roleCap", { role: role.fields.name, max });
      await s.emitNow({ type: "event", from: SYSTEM_PARTY, to: from.party, payload: { cap: max, role_id: roleId, busy }, action, resource: `role:${roleId}`, status: "capped" });
      return errorResult(`cap reached: ${busy} agent(s) of role ${roleId} are at work, and the role allows at most ${max} at once (max_concurrency). ${options.capHint ?? "Wait for one to report, then give it the task with send_message_to_agent."}`);
    }
  }
  // A registered key, or an alias of models.json (`sonnet`, `inherit`…); else the conversation's model, and the person is told.
  const resolved = resolveModelName(role.fields.model, aliasRegistry(await loadRegistry(s.deps.root)));
  const modelKey = resolved.key ?? conv.model_key;
  if (resolved.via === "unknown") s.notice("warning", "model_fallback", "notice.msg.modelFallback", { role: role.fields.name, model: resolved.name, fallback: conv.model_key });
  // A role with `tools:` gets exactly what they map to; without, its permissions decide.
  const access = roleToolAccess(role.fields);
  const permissions: string[] = access.permissions;
  const taskId = options.taskId ?? (await s.nextId("task"));
  const meta = (await s.store.createAgent(s.convId, {
    role_id: roleId,
    role_name: role.fields.name,
    model_key: modelKey,
    thinking_mode: role.fields.thinking_mode ?? (conv.run_mode === "fast" ? "fast" : "thinking"),
    task_summary: summarize(task, 160),
  })) as AgentMeta;
  s.deps.tokens.issue({ conversation_id: s.convId, agent_id: meta.agent_id, role_id: roleId, permissions, project_path: project.path });
  const taskEnvelope = await s.emitNow({ type: "request", from: from.party, to: agentParty(meta.agent_id), payload: { task_id: taskId, role_id: roleId, task, ...options.payload }, action, resource: `agent:${meta.agent_id}`, producer: "model" });
  const system: Message = {
    role: "system",
    metadata: { message_source: "system", visibility: "hidden", starts_work: false, trace_id: taskEnvelope.trace_id },
    content: agentSystemPrompt(
      { projectPath: conv.project_path, conversationTitle: conv.title, displayName: meta.display_name, agentId: meta.agent_id, roleName: role.fields.name, canWrite: permissions.includes("write"), canExecute: permissions.includes("execute"), readTools: access.file_tools.filter((t) => (READ_FILE_TOOLS as readonly string[]).includes(t)) },
      role.body,
    ),
  };
  await s.store.updateAgentMessages(s.convId, meta.agent_id, (f) => ({ ...f, messages: [system] }));
  const pending: PendingMessage = { id: taskId, source_display_name: from.name, source_agent_id: from.agentId, message_type: "task", content: task, created_at: epochSeconds() };
  const saved = await s.updateAgent(meta.agent_id, (m) => ({
    ...m,
    pending_messages: [pending],
    calls_this_task: 0,
    reported: false,
    trace_id: taskEnvelope.trace_id,
    task_turn_id: taskEnvelope.turn_id,
    critical,
    permissions,
    file_tools: access.file_tools,
    // Written with the task, in one change: a restart that finds the key knows the agent exists with its task.
    effect_key: effectKey,
    ...options.extra?.(taskEnvelope),
  }));
  s.setActivity(meta.agent_id, { kind: "created", target: taskId });
  await s.publishAgent(saved);
  await s.refreshPhase();
  s.notifyAgent(meta.agent_id);
  return JSON.stringify({ agent_id: meta.agent_id, display_name: meta.display_name, task_id: taskId });
}
