/**
 * The approval policy of sub-agents' tool calls: `allow`, `ask` (a person approves first) or
 * `deny`, per role and per tool name, with patterns (`mcp__github__*`). Pure: the runtime's gate
 * (lib/runtime/team/approvals.ts) reads the role and the conversation and asks this.
 *
 * Precedence, first that applies:
 * 1. the role's policy says `deny` for the tool: denied (nothing a conversation says overrides it);
 * 2. `run_command` whose command the role's `allowed_commands` or the conversation's allow-list
 *    allows (lib/commands/allow-list.ts) and whose code nobody but a person can have written:
 *    allowed. A command that runs project code (lib/commands/classify.ts) after an agent of the
 *    conversation changed the project's files, unless its entry says `trust_agent_code`, and git
 *    where the repository is not one the person had (or its configuration runs programs git cannot
 *    be kept from running), are held: the rules below decide, and by default that means asking;
 * 3. the conversation's policy (set by "always allow" in the approval card) allows the tool;
 * 4. the role's policy for the tool (`allow` or `ask`);
 * 5. the default by what the tool does: `read` and `internal` (the team's own messages and shared
 *    context) are allowed, `write` and `execute` ask.
 *
 * Of several patterns naming a tool, the exact name wins, then the pattern with the most literal
 * characters, then the first written. The policy's format (`tool_policy:`, `allowed_commands:` of
 * a role file) is lib/roles/policy-schema.ts.
 */
import { z } from "zod";
import type { ToolEffect } from "@/lib/contracts/on-disk";
import { commandAllowed, wildcardMatch, type AllowedPart } from "@/lib/commands";
import { CommandEntrySchema, ToolPolicySchema, type CommandEntryValue, type ToolPolicy, type ToolPolicyValue } from "@/lib/roles/policy-schema";

/** The allow-lists of a conversation (metadata.json `approval_policy`), set from the approval card. */
export const ConversationApprovalPolicySchema = z.object({
  allowed_commands: z.array(CommandEntrySchema).max(500).default([]),
  tool_policy: ToolPolicySchema.default({}),
});
export type ConversationApprovalPolicy = z.infer<typeof ConversationApprovalPolicySchema>;

/** The default policy of a tool by its effect. */
export function defaultPolicy(effect: ToolEffect): ToolPolicyValue {
  return effect === "write" || effect === "execute" ? "ask" : "allow";
}

/** The entry of `policy` that names `tool` (see the module comment for which wins), if any. */
export function policyFor(policy: ToolPolicy | undefined, tool: string): { pattern: string; value: ToolPolicyValue } | undefined {
  if (!policy) return undefined;
  if (Object.prototype.hasOwnProperty.call(policy, tool)) return { pattern: tool, value: policy[tool]! };
  let best: { pattern: string; value: ToolPolicyValue; weight: number } | undefined;
  for (const [pattern, value] of Object.entries(policy)) {
    if (!pattern.includes("*") || !wildcardMatch(pattern, tool)) continue;
    const weight = pattern.replaceAll("*", "").length;
    if (!best || weight > best.weight) best = { pattern, value, weight };
  }
  return best && { pattern: best.pattern, value: best.value };
}

/** What {@link decideToolPolicy} decides from. */
export interface ToolPolicyInput {
  tool: string;
  effect: ToolEffect;
  /** The command line of a `run_command` call. */
  command?: string;
  role: { tool_policy?: ToolPolicy; allowed_commands?: readonly CommandEntryValue[] };
  conversation?: Partial<ConversationApprovalPolicy>;
  /** What the project is like now; absent, it is taken as changed by an agent (the safe side). */
  commandContext?: CommandContext;
}

/** What decides whether an allow-listed command's code can be trusted (found by the caller). */
export interface CommandContext {
  /** An agent of this conversation changed files since a person last approved a command here. */
  agentChangedProject: boolean;
  /** Why git may not run without a person here (the repository or its configuration), if so. */
  gitRefusal?: CommandHold;
}

/** Why an allow-listed command was held for a person: a stable code, English text, and the name it is about. */
interface CommandHold {
  code: "agent_changed_files" | "git_repository_new" | "git_diff_program" | "git_alias";
  message: string;
  detail?: string;
}

/** The decision and what made it (shown on the timeline and to the model). */
export interface ToolPolicyDecision {
  decision: ToolPolicyValue;
  source: "role_policy" | "role_commands" | "conversation_commands" | "conversation_policy" | "default";
  pattern?: string;
  /** Allowed by an allow-list: run it hardened (git without programs from the project's configuration). */
  hardened?: boolean;
  /** An allow-list matched the command but could not vouch for it. */
  held?: CommandHold;
}

/** Why the allowed `parts` of a line may not run without a person, if they may not. */
function commandHold(parts: readonly AllowedPart[], context: CommandContext = { agentChangedProject: true }): CommandHold | undefined {
  const untrustedCode = parts.find((p) => p.kind === "project_code" && !p.trusts_agent_code);
  if (untrustedCode && context.agentChangedProject) {
    const detail = untrustedCode.words.join(" ");
    return { code: "agent_changed_files", message: `an agent changed the project's files since a person last approved a command, and \`${detail}\` runs project code`, detail };
  }
  if (context.gitRefusal && parts.some((p) => p.kind === "git")) return context.gitRefusal;
  return undefined;
}

/** The policy for one tool call (see the module comment). */
export function decideToolPolicy(input: ToolPolicyInput): ToolPolicyDecision {
  const role = policyFor(input.role.tool_policy, input.tool);
  if (role?.value === "deny") return { decision: "deny", source: "role_policy", pattern: role.pattern };
  let held: CommandHold | undefined;
  if (input.command !== undefined) {
    const lists = [
      ["role_commands", input.role.allowed_commands],
      ["conversation_commands", input.conversation?.allowed_commands],
    ] as const;
    for (const [source, list] of lists) {
      const allowance = commandAllowed(input.command, list ?? []);
      if (!allowance.allowed) continue;
      const hold = commandHold(allowance.parts ?? [], input.commandContext);
      if (!hold) return { decision: "allow", source, hardened: true };
      held ??= hold;
    }
  }
  const withHold = (d: ToolPolicyDecision): ToolPolicyDecision => (held && d.decision !== "allow" ? { ...d, held } : d);
  const conversation = policyFor(input.conversation?.tool_policy, input.tool);
  if (conversation?.value === "allow") return { decision: "allow", source: "conversation_policy", pattern: conversation.pattern };
  if (role) return withHold({ decision: role.value, source: "role_policy", pattern: role.pattern });
  return withHold({ decision: defaultPolicy(input.effect), source: "default" });
}
