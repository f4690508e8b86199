/**
 * The runtime's tools, from the one registry in lib/tools (definitions, generated JSON Schemas,
 * argument parsing). Kept as the runtime's import path so team-run.ts and the offline model's
 * tests read them from where they always did.
 */
export {
  AGENT_TOOL_ARGS,
  agentTools,
  LEADER_TOOL_ARGS,
  leaderTools,
  maxArgumentChars,
  parseToolArguments,
  READ_ONLY_TOOLS,
  roleCatalog,
  type AgentToolName,
  type LeaderToolName,
  type RoleChoice,
} from "@/lib/tools";
