/**
 * The approval policy's format in a role file (`tool_policy:`: per tool name or `*` pattern,
 * `allow | ask | deny`; `allowed_commands:`: the commands `run_command` may run without asking),
 * also the format of a conversation's allow-lists. Part of the role format; what the policy
 * decides is lib/governance/tool-policy.ts. Shared by server and client.
 */
import { z } from "zod";

/** One policy value. */
const ToolPolicyValueSchema = z.enum(["allow", "ask", "deny"]);
export type ToolPolicyValue = z.infer<typeof ToolPolicyValueSchema>;

/** A tool name or a `*` pattern of tool names. */
const ToolPatternSchema = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9_*-]{1,128}$/, "a tool name or pattern: letters, digits, '_', '-' and '*'");

/** `tool_policy:` of a role file, and the conversation's policy. */
export const ToolPolicySchema = z.record(ToolPatternSchema, ToolPolicyValueSchema);
export type ToolPolicy = z.infer<typeof ToolPolicySchema>;

/** A command pattern of `allowed_commands:` (`npm test`, `npm run lint*`). */
const CommandPatternSchema = z.string().trim().min(1, "a command pattern is required").max(500, "at most 500 characters");

/**
 * One `allowed_commands:` entry: a pattern, or `{pattern, trust_agent_code: true}` for a command
 * that may run code agents wrote without asking again (the role editor warns about it).
 */
export const CommandEntrySchema = z.union([CommandPatternSchema, z.strictObject({ pattern: CommandPatternSchema, trust_agent_code: z.boolean().optional() })]);
export type CommandEntryValue = z.infer<typeof CommandEntrySchema>;
