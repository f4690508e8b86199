/**
 * Public face of the tool registry: every tool a model can be offered (name, description, zod
 * argument schema, read-only or not, who may use it), the JSON Schemas generated from those zod
 * schemas, bounded parsing of a call's arguments, and the shaping of a tool's result to a size
 * without corrupting its JSON. Pure: the runtime and the shared context execute the tools.
 */
export { argsByName, customToolSpec, defineTool, parametersOf, toolSpec, type ArgsByName, type ToolArgs, type ToolAudience, type ToolDefinition, type ToolInput } from "./define";
export { maxArgumentChars, parseToolArguments } from "./arguments";
export {
  capToolOutput,
  cutStringMarker,
  cutText,
  jsonPrefixLength,
  keepWholeItems,
  MIN_SHAPE_CHARS,
  OMITTED_KEYS_KEY,
  omittedItemsMarker,
  omittedKeysMarker,
  parseJsonValue,
  shapeJson,
  truncationMarker,
  type JsonValue,
  type ShapeMeter,
  type ShapeOptions,
} from "./shape";
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
  toolEffect,
  toolNamed,
  toolsOf,
  TOOLS,
  type RoleChoice,
} from "./registry";
