/**
 * The approval policy of sub-agents' tool calls: `allow`, `ask` (a person approves first) or
 * `deny`, per role and per tool name, with patterns (`mcp__github__*`). Pure: the runtime's gate
 * (lib/runtime/team/approvals.ts) reads the role and the conversation and asks this.
 *
 * Precedence, first that applies:
 * 1. the role's policy says `deny` for the tool: denied (nothing a conversation says overrides it);
 * 2. `run_command` whose command the role's `allowed_commands` or the conversation's allow-list
 *    allows (lib/commands/allow-list.ts): allowed;
 * 3. the conversation's policy (set by "always allow" in the approval card) allows the tool;
 * 4. the role's policy for the tool (`allow` or `ask`);
 * 5. the default by what the tool does: `read` and `internal` (the team's own messages and shared
 *    context) are allowed, `write` and `execute` ask.
 *
 * Of several patterns naming a tool, the exact name wins, then the pattern with the most literal
 * characters, then the first written.
 */
import { z } from "zod";
import { commandAllowed, wildcardMatch } from "@/lib/commands";

/** What a tool does to the world: reads, writes, executes, or only changes the team's own state. */
export const ToolEffectSchema = z.enum(["read", "write", "execute", "internal"]);
export type ToolEffect = z.infer<typeof ToolEffectSchema>;

/** One policy value. */
export const ToolPolicyValueSchema = z.enum(["allow", "ask", "deny"]);
export type ToolPolicyValue = z.infer<typeof ToolPolicyValueSchema>;

/** A tool name or a `*` pattern of tool names. */
export const ToolPatternSchema = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9_*-]{1,128}$/, "a tool name or pattern: letters, digits, '_', '-' and '*'");

/** `tool_policy:` of a role file, and the conversation's policy. */
export const ToolPolicySchema = z.record(ToolPatternSchema, ToolPolicyValueSchema);
export type ToolPolicy = z.infer<typeof ToolPolicySchema>;

/** A command pattern of `allowed_commands:` (`npm test`, `npm run lint*`). */
export const CommandPatternSchema = z.string().trim().min(1, "a command pattern is required").max(500, "at most 500 characters");

/** The allow-lists of a conversation (metadata.json `approval_policy`), set from the approval card. */
export const ConversationApprovalPolicySchema = z.object({
  allowed_commands: z.array(CommandPatternSchema).max(500).default([]),
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
  role: { tool_policy?: ToolPolicy; allowed_commands?: readonly string[] };
  conversation?: Partial<ConversationApprovalPolicy>;
}

/** The decision and what made it (shown on the timeline and to the model). */
export interface ToolPolicyDecision {
  decision: ToolPolicyValue;
  source: "role_policy" | "role_commands" | "conversation_commands" | "conversation_policy" | "default";
  pattern?: string;
}

/** The policy for one tool call (see the module comment). */
export function decideToolPolicy(input: ToolPolicyInput): ToolPolicyDecision {
  const role = policyFor(input.role.tool_policy, input.tool);
  if (role?.value === "deny") return { decision: "deny", source: "role_policy", pattern: role.pattern };
  if (input.command !== undefined) {
    if (commandAllowed(input.command, input.role.allowed_commands ?? []).allowed) return { decision: "allow", source: "role_commands" };
    if (commandAllowed(input.command, input.conversation?.allowed_commands ?? []).allowed) return { decision: "allow", source: "conversation_commands" };
  }
  const conversation = policyFor(input.conversation?.tool_policy, input.tool);
  if (conversation?.value === "allow") return { decision: "allow", source: "conversation_policy", pattern: conversation.pattern };
  if (role) return { decision: role.value, source: "role_policy", pattern: role.pattern };
  return { decision: defaultPolicy(input.effect), source: "default" };
}
