/**
 * Public face of the tool registry: every tool a model can be offered (name, description, zod
 * argument schema, read-only or not, who may use it), the JSON Schemas generated from those zod
 * schemas, and bounded parsing of a call's arguments. Pure: the runtime and the shared context
 * execute the tools.
 */
export { argsByName, customToolSpec, defineTool, parametersOf, toolSpec, type ArgsByName, type ToolArgs, type ToolAudience, type ToolDefinition, type ToolInput } from "./define";
export { maxArgumentChars, parseToolArguments } from "./arguments";
export { AGENT_TOOL_ARGS, AGENT_TOOLS, CREATE_SUB_AGENT, LEADER_TOOL_ARGS, LEADER_TOOLS, type AgentToolName, type LeaderToolName } from "./team";
export { SHARED_CONTEXT_TOOL_ARGS, SHARED_CONTEXT_TOOLS, type SharedContextToolName } from "./shared-context";
export {
  agentTools,
  createSubAgentArgs,
  isSharedContextTool,
  leaderTools,
  READ_ONLY_TOOLS,
  roleCatalog,
  SHARED_CONTEXT_READ_ONLY_TOOLS,
  sharedContextTools,
  toolNamed,
  toolsOf,
  TOOLS,
  type RoleChoice,
} from "./registry";
