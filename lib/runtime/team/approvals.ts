import "server-only";
/**
 * The approval gate every sub-agent tool call passes through, and a person's decisions.
 *
 * {@link approvalGate} asks the pure policy (lib/governance/tool-policy.ts) about one call: `allow`
 * runs it, `deny` answers the model with a tool error, `ask` makes the agent wait exactly like
 * `ask_master` — an entry in `pending_tool_calls` of its metadata (durable, so the wait survives
 * a restart), status `waiting`, a `request` envelope to the person on the timeline.
 *
 * {@link decideApproval} records the person's answer. Approving marks the call approved and
 * wakes the agent: its loop finds the call without a result and runs it through the same path
 * as every call (the gate lets an approved call through once, and a side effect runs under
 * `once()`). Denying answers the call with a tool error that carries the person's reason.
 * "Always allow" adds the command (or a pattern the person wrote) to the conversation's
 * allow-list, or allows the tool for the rest of the conversation.
 *
 * What an allow-list may vouch for depends on who changed the project (lib/governance/tool-policy.ts
 * `commandHold`): every tool call that writes and passes the gate counts one agent change in the
 * conversation's metadata (`command_trust.agent_changes`, before it runs), and a person approving a
 * command marks the changes made until it was asked for as reviewed. While some are not, an
 * allow-listed command that runs project code asks again. An allow-listed git is inspected first
 * (lib/commands/git-guard.ts) and run hardened.
 */
import { z } from "zod";
import { commandEnvironment, commandKind, gitSubcommand, parseCommandLine, toCommandEntry } from "@/lib/commands";
import { inspectGit } from "@/lib/commands/git-guard";
import { ConflictError, NotFoundError } from "@/lib/contracts/errors";
import { ConversationApprovalPolicySchema, decideToolPolicy, type CommandContext, type ConversationApprovalPolicy } from "@/lib/governance";
import type { ToolEffect } from "@/lib/contracts/on-disk";
import type { ToolCall } from "@/lib/models";
import { agentParty, SYSTEM_PARTY, USER_PARTY } from "@/lib/protocol";
import { epochSeconds } from "@/lib/store";
import type { PendingApproval, PendingToolCall } from "@/lib/contracts/on-disk";
import type { TeamState } from "./state";
import { appendToolResult } from "./steps";
import { errorResult, summarize, type AgentMeta } from "./types";
import { authorParty, type Author } from "@/lib/contracts/people";

/** The tool name of pending entries that are approvals (an `ask_master` entry is a question). */
const APPROVAL_KIND = "approval" as const;

/** A tool call as the gate sees it. */
export interface GatedCall {
  /** The tool's name as the model called it (`run_command`, `mcp__github__create_issue`…). */
  name: string;
  effect: ToolEffect;
  /** The command line of a `run_command` call (matched against the allow-lists). */
  command?: string;
  /** The folder it acts in (shown on the approval card). */
  cwd: string;
}

/**
 * What the gate says: run the call (an allow-listed command `hardened`, with git's extra
 * settings), answer it with `result`, or wait for a person.
 */
export type GateOutcome = { kind: "run"; hardened?: { gitOverrides: Array<[string, string]> } } | { kind: "refused"; result: string } | { kind: "wait" };

/** `command_trust` of a conversation's metadata.json: agent changes counted and those a person reviewed. */
const CommandTrustSchema = z.object({
  agent_changes: z.number().int().min(0).default(0),
  reviewed_changes: z.number().int().min(0).default(0),
  /** Epoch ms of the last approval of a command: a `.git` made before it is the person's. */
  reviewed_at: z.number().optional(),
});
type CommandTrust = z.infer<typeof CommandTrustSchema>;

function trustOf(raw: unknown): CommandTrust {
  const parsed = CommandTrustSchema.safeParse(raw ?? {});
  // Unreadable: as if agents had changed files (the safe side).
  return parsed.success ? parsed.data : { agent_changes: 1, reviewed_changes: 0 };
}

/** Counts one agent change of the project, before the call that makes it runs. */
async function countAgentChange(s: TeamState): Promise<void> {
  await s.store.update(s.convId, (conv) => {
    const trust = trustOf(conv.command_trust);
    return { ...conv, command_trust: { ...trust, agent_changes: trust.agent_changes + 1 } };
  });
}

/** What the policy needs to know about the project to trust an allow-listed command, and git's settings. */
async function commandContext(s: TeamState, command: string, cwd: string): Promise<{ context: CommandContext; trust: CommandTrust; gitOverrides: Array<[string, string]> }> {
  const conv = await s.store.get(s.convId);
  const trust = trustOf(conv.command_trust);
  const context: CommandContext = { agentChangedProject: trust.agent_changes > trust.reviewed_changes };
  const gitParts = parseCommandLine(command).parts.filter((w) => commandKind(w) === "git");
  if (!gitParts.length) return { context, trust, gitOverrides: [] };
  // created_at is kept to the second: a `.git` made within that second counts as before.
  const since = Math.max((new Date(conv.created_at).getTime() || 0) + 999, trust.reviewed_at ?? 0);
  const git = await inspectGit(cwd, since, commandEnvironment(process.env, new Set(), "git-inspection"));
  const alias = gitParts.map(gitSubcommand).find((sub) => sub !== undefined && git.aliases.includes(sub));
  const refusal = git.refusal ?? (alias ? ({ code: "git_alias", message: `\`git ${alias}\` is an alias of the repository's configuration, which can run any program`, detail: alias } as const) : undefined);
  return { context: { ...context, ...(refusal ? { gitRefusal: refusal } : {}) }, trust, gitOverrides: git.overrides };
}

/** Whether a pending entry is an approval (not an `ask_master` question). */
function isApprovalEntry(p: PendingToolCall): p is PendingApproval {
  return p.kind === APPROVAL_KIND;
}

/** The conversation's allow-lists (metadata.json `approval_policy`), empty when unset or unreadable. */
async function conversationPolicy(s: TeamState): Promise<ConversationApprovalPolicy> {
  const raw = (await s.store.get(s.convId)).approval_policy;
  const parsed = ConversationApprovalPolicySchema.safeParse(raw ?? {});
  return parsed.success ? parsed.data : { allowed_commands: [], tool_policy: {} };
}

/**
 * The one gate of every sub-agent tool call (built-in tools here; MCP, gateway and ability tools
 * are passed through it with their own name and effect). Call it after the token check.
 */
export async function approvalGate(s: TeamState, agentId: number, meta: AgentMeta, call: ToolCall, tool: GatedCall): Promise<GateOutcome> {
  if ((meta.approved_tool_calls ?? []).includes(call.id)) {
    // Approved once: it runs now, and the approval is used up.
    await s.updateAgent(agentId, (m) => ({ ...m, approved_tool_calls: (m.approved_tool_calls ?? []).filter((id) => id !== call.id) }));
    if (tool.effect === "write") await countAgentChange(s);
    return { kind: "run" };
  }
  const role = await s.deps.roles.get(meta.role_id).catch(() => null);
  const fields = role?.kind === "role" ? role.fields : {};
  const found = tool.command !== undefined ? await commandContext(s, tool.command, tool.cwd) : undefined;
  const verdict = decideToolPolicy({ tool: tool.name, effect: tool.effect, command: tool.command, role: fields, conversation: await conversationPolicy(s), commandContext: found?.context });
  if (verdict.decision === "allow") {
    if (tool.effect === "write") await countAgentChange(s);
    return verdict.hardened ? { kind: "run", hardened: { gitOverrides: found?.gitOverrides ?? [] } } : { kind: "run" };
  }
  if (verdict.decision === "deny") {
    const reason = `denied by policy: your role's tool_policy denies ${tool.name}${verdict.pattern && verdict.pattern !== tool.name ? ` (pattern ${verdict.pattern})` : ""}`;
    await s.emitNow({ type: "event", from: SYSTEM_PARTY, to: agentParty(agentId), payload: { tool: tool.name, code: "policy_deny", reason, ...(tool.command ? { command: tool.command } : {}) }, action: tool.name, resource: `agent:${agentId}`, status: "refused" });
    return { kind: "refused", result: errorResult(reason) };
  }
  const entry: PendingApproval = {
    tool_call_id: call.id,
    tool_name: tool.name,
    question_id: `approval:${call.id}`,
    created_at: epochSeconds(),
    kind: APPROVAL_KIND,
    effect: tool.effect,
    ...(tool.command !== undefined ? { command: tool.command } : {}),
    cwd: tool.cwd,
    arguments_preview: summarize(call.function.arguments, 400),
    ...(found ? { agent_changes: found.trust.agent_changes } : {}),
    ...(verdict.held ? { held: verdict.held } : {}),
  };
  // The request is on the timeline before the agent shows as waiting: whoever sees the wait finds its record.
  await s.emit(await s.causeFor(meta), {
    type: "request",
    from: agentParty(agentId),
    to: USER_PARTY,
    payload: { tool_call_id: call.id, tool: tool.name, effect: tool.effect, cwd: tool.cwd, ...(tool.command !== undefined ? { command: tool.command } : { arguments: entry.arguments_preview }), ...(verdict.held ? { held: verdict.held } : {}) },
    action: "approval",
    resource: `tool_call:${call.id}`,
    producer: "model",
  });
  s.setActivity(agentId, { kind: "await_approval", target: tool.command !== undefined ? summarize(tool.command, 120) : tool.name });
  // A call left over from before a Stop runs when the agent is woken again, possibly while idle;
  // one made beside an `ask_master` finds the agent waiting already.
  const status = (await s.readAgent(agentId)).status;
  if (status === "idle" || status === "completed") await s.agentEvent(agentId, "assign");
  const add = (m: AgentMeta): AgentMeta => ({ ...m, pending_tool_calls: [...(m.pending_tool_calls ?? []), entry] });
  if (status === "waiting") await s.publishAgent(await s.updateAgent(agentId, add));
  else await s.agentEvent(agentId, "ask", add);
  s.notice("info", "approval_needed", "notice.msg.approvalNeeded", { agent: meta.display_name, tool: tool.command !== undefined ? summarize(tool.command, 80) : tool.name }, agentId);
  return { kind: "wait" };
}

/** Whether the agent waits on a person's approval (its loop must not run its later calls meanwhile). */
export async function awaitsApproval(s: TeamState, agentId: number): Promise<boolean> {
  return ((await s.readAgent(agentId)).pending_tool_calls ?? []).some(isApprovalEntry);
}

/** A person's decision on one pending call. */
export interface ApprovalDecision {
  tool_call_id: string;
  decision: "approve" | "deny";
  reason?: string;
  /** Approve and remember: the command (or `pattern`) joins the allow-list, or the tool is allowed. */
  always?: boolean;
  /** For `always` on run_command: the pattern to allow instead of the exact command. */
  pattern?: string;
  /** Who decided (shown on the timeline and to the model). */
  by: string;
  /** The person who decided (issue 32): the envelope's `from` and `author`. */
  author?: Author;
}

/** Applies a person's decision; 404 for a call the agent never made, 409 for one already decided. */
export async function decideApproval(s: TeamState, agentId: number, d: ApprovalDecision): Promise<{ tool_call_id: string; decision: ApprovalDecision["decision"] }> {
  const meta = await s.readAgent(agentId);
  const entry = (meta.pending_tool_calls ?? []).filter(isApprovalEntry).find((p) => p.tool_call_id === d.tool_call_id);
  if (!entry) {
    const messages = (await s.store.readAgentMessages(s.convId, agentId)).messages;
    const made = messages.some((m) => (m.tool_calls ?? []).some((c) => c.id === d.tool_call_id));
    if (made) throw new ConflictError(`Tool call ${d.tool_call_id} is not waiting for approval (it was already decided).`);
    throw new NotFoundError(`${meta.display_name} has no tool call ${d.tool_call_id} waiting for approval.`);
  }
  const call: ToolCall = { id: entry.tool_call_id, type: "function", function: { name: entry.tool_name, arguments: "" } };
  const cause = await s.causeFor(meta);
  if (d.decision === "approve" && entry.command !== undefined) {
    // A person approved a command: the agent changes made until it was asked for are reviewed.
    await s.store.update(s.convId, (conv) => {
      const trust = trustOf(conv.command_trust);
      const reviewed = Math.min(trust.agent_changes, Math.max(trust.reviewed_changes, entry.agent_changes ?? 0));
      return { ...conv, command_trust: { ...trust, reviewed_changes: reviewed, reviewed_at: Date.now() } };
    });
  }
  if (d.decision === "approve" && d.always) {
    await s.store.update(s.convId, (conv) => {
      const now = ConversationApprovalPolicySchema.safeParse(conv.approval_policy ?? {});
      const policy: ConversationApprovalPolicy = now.success ? now.data : { allowed_commands: [], tool_policy: {} };
      if (entry.command !== undefined) {
        const pattern = (d.pattern ?? entry.command).trim();
        if (!policy.allowed_commands.some((e) => toCommandEntry(e).pattern === pattern)) policy.allowed_commands = [...policy.allowed_commands, pattern];
      } else {
        policy.tool_policy = { ...policy.tool_policy, [entry.tool_name]: "allow" };
      }
      return { ...conv, approval_policy: policy };
    });
  }
  const remaining = (m: AgentMeta) => (m.pending_tool_calls ?? []).filter((p) => p.tool_call_id !== entry.tool_call_id);
  const decided = (m: AgentMeta): AgentMeta =>
    d.decision === "approve" ? { ...m, pending_tool_calls: remaining(m), approved_tool_calls: [...(m.approved_tool_calls ?? []), entry.tool_call_id] } : { ...m, pending_tool_calls: remaining(m) };
  if (d.decision === "deny") {
    const reason = d.reason?.trim() ? d.reason.trim() : "no reason given";
    // The refusal is the call's result, saved before the agent runs again.
    await appendToolResult(s, agentId, call, errorResult(`denied by ${d.by}: ${reason}`), { approval: "denied" });
  }
  // Still waiting on something else (a question asked in the same answer): it stays waiting.
  if (remaining(meta).length || meta.status !== "waiting") await s.publishAgent(await s.updateAgent(agentId, decided));
  else await s.agentEvent(agentId, "answer", decided);
  await s.emit(cause, {
    type: "reply",
    from: authorParty(d.author),
    to: agentParty(agentId),
    author: d.author,
    payload: { tool_call_id: entry.tool_call_id, tool: entry.tool_name, decision: d.decision, by: d.by, ...(d.reason ? { reason: d.reason } : {}), ...(d.always ? { always: true, ...(entry.command !== undefined ? { pattern: (d.pattern ?? entry.command).trim() } : {}) } : {}) },
    action: "approval",
    resource: `tool_call:${entry.tool_call_id}`,
    reply: true,
  });
  s.setActivity(agentId, { kind: d.decision === "approve" ? "approved" : "denied", target: entry.tool_name });
  s.notifyAgent(agentId);
  return { tool_call_id: entry.tool_call_id, decision: d.decision };
}
