/**
 * The one registry of the team's tools: every tool a model can be offered by the team's loops
 * (the leader's, a sub-agent's, the shared context's), whichever module executes it. What each
 * party is offered, which tools only read, and the JSON Schema of each tool's arguments all
 * derive from it. Pure. It sits above the roles (a role's permissions and `tools:` decide what a
 * sub-agent is offered) and the shared context; the tool kernel it builds on is lib/tools.
 */
import { z } from "zod";
import type { ToolSpec } from "@/lib/models/types";
import type { Permission } from "@/lib/roles/schema";
import { FILE_TOOLS } from "@/lib/roles/tool-mapping";
import { SHARED_CONTEXT_TOOLS } from "@/lib/shared-context/tool-specs";
import { customToolSpec, toolSpec, type ToolAudience, type ToolDefinition } from "@/lib/tools/define";
import { AGENT_TOOLS, CREATE_SUB_AGENT, LEADER_TOOLS } from "./team";

/** Every tool, leader's first, then sub-agents', then those both use. */
export const TOOLS: readonly ToolDefinition[] = [...LEADER_TOOLS, ...AGENT_TOOLS, ...SHARED_CONTEXT_TOOLS];

const BY_NAME: ReadonlyMap<string, ToolDefinition> = (() => {
  const map = new Map<string, ToolDefinition>();
  for (const tool of TOOLS) {
    if (map.has(tool.name)) throw new Error(`tool ${tool.name} is defined twice`);
    map.set(tool.name, tool);
  }
  return map;
})();

/** The tool called `name` (a name a model chose: only registered tools are found), or undefined. */
export function toolNamed(name: string): ToolDefinition | undefined {
  return BY_NAME.get(name);
}

/** What a registered tool does to the world (its `effect`), or undefined for a name not registered. */
export function toolEffect(name: string): ToolDefinition["effect"] | undefined {
  return BY_NAME.get(name)?.effect;
}

/** Tools that only read: safe to run again after a crash. */
export const READ_ONLY_TOOLS: ReadonlySet<string> = new Set(TOOLS.filter((t) => t.readOnly).map((t) => t.name));

/**
 * The registered tools of one audience exactly (`both` gives the tools everyone shares), without
 * those that need a role permission the caller lacks.
 */
export function toolsOf(audience: ToolAudience, permissions: readonly Permission[] = []): ToolDefinition[] {
  return TOOLS.filter((t) => t.audience === audience && (t.permission === null || permissions.includes(t.permission)));
}

/** A role as the leader's `create_sub_agent` tool describes it. */
export interface RoleChoice {
  id: string;
  name: string;
  description: string;
  capabilities: string[];
  /** `derived` when the role declares no capabilities and these were derived from its name and description. */
  capabilities_source?: "declared" | "derived";
}

/**
 * One catalog line per role, in the format the offline model also reads; derived tags are
 * labelled `derived capabilities:`, so the leader knows nobody declared them.
 */
function roleCatalog(roles: readonly RoleChoice[]): string {
  return roles
    .map(
      (r) =>
        `- ${r.id}: ${r.name} — ${r.description.replace(/\s+/g, " ").trim()} (${r.capabilities_source === "derived" ? "derived capabilities" : "capabilities"}: ${r.capabilities.join(", ")})`,
    )
    .join("\n");
}

/**
 * `create_sub_agent`'s arguments as one conversation's leader is shown them: `role_id` is an enum
 * of exactly `ids`. With no role there is nothing to enumerate: an empty `enum` is invalid under
 * the draft-07 meta-schema (it needs at least one item) and zod renders `z.enum([])` as
 * `{"not":{}}`, which tells a model nothing; so the argument stays a string whose description
 * says no role is available (the runtime refuses a role outside the catalog whatever the schema
 * says).
 */
export function createSubAgentArgs(ids: readonly string[]) {
  const [first, ...rest] = ids;
  const roleId =
    first === undefined
      ? CREATE_SUB_AGENT.args.shape.role_id.describe("No role is available in this conversation: a sub-agent cannot be created.")
      : z.enum([first, ...rest]).describe("The role to create the agent from.");
  return CREATE_SUB_AGENT.args.extend({ role_id: roleId });
}

/** The leader's tool lists made lately, by role catalog (a JSON Schema is costly to make; the specs are frozen). */
const leaderToolCache = new Map<string, readonly ToolSpec[]>();
const LEADER_TOOL_CACHE_LIMIT = 32;

/** The leader's tools; `create_sub_agent.role_id` is an enum of exactly the roles given. */
export function leaderTools(roles: readonly RoleChoice[]): ToolSpec[] {
  const catalog = roles.length ? `\n${roleCatalog(roles)}` : " none.";
  const key = `${catalog}\u0000${roles.map((r) => r.id).join("\u0000")}`;
  let specs = leaderToolCache.get(key);
  if (specs) {
    // Most recently used last: the first entry is the one to let go.
    leaderToolCache.delete(key);
  } else {
    specs = toolsOf("leader").map((tool) =>
      tool === CREATE_SUB_AGENT ? customToolSpec(tool, `${tool.description}\nAvailable roles:${catalog}`, createSubAgentArgs(roles.map((r) => r.id))) : toolSpec(tool),
    );
    if (leaderToolCache.size >= LEADER_TOOL_CACHE_LIMIT) leaderToolCache.delete(leaderToolCache.keys().next().value!);
  }
  leaderToolCache.set(key, specs);
  return [...specs];
}

const FILE_TOOL_NAMES: ReadonlySet<string> = new Set(FILE_TOOLS);

/**
 * A sub-agent's tools; `write_file` only when its role has the `write` permission, `run_command`
 * only with `execute` (`true`/`false` is shorthand for with or without `write`). With
 * `fileTools` (a role's `tools:` mapped, lib/roles/tool-mapping.ts) only those file tools are
 * offered; the team tools always are, so the agent can report back.
 */
export function agentTools(access: boolean | readonly Permission[], fileTools?: readonly string[]): ToolSpec[] {
  const permissions: readonly Permission[] = typeof access === "boolean" ? (access ? ["write"] : []) : access;
  return toolsOf("agent", permissions)
    .filter((t) => fileTools === undefined || !FILE_TOOL_NAMES.has(t.name) || fileTools.includes(t.name))
    .map(toolSpec);
}
