/**
 * The runtime's tools, from the one registry in lib/team-tools (definitions, generated JSON
 * Schemas) and the tool kernel in lib/tools (argument parsing). Kept as the runtime's import path
 * so team-run.ts and the offline model's tests read them from where they always did.
 */
export { maxArgumentChars, parseToolArguments } from "@/lib/tools";
export {
  AGENT_TOOL_ARGS,
  agentTools,
  LEADER_TOOL_ARGS,
  leaderTools,
  READ_ONLY_TOOLS,
  roleCatalog,
  type AgentToolName,
  type LeaderToolName,
  type RoleChoice,
} from "@/lib/team-tools";
