/**
 * Public face of the tool kernel: how a tool is defined (name, description, zod argument schema,
 * read-only or not, who may use it), the JSON Schemas generated from those zod schemas, bounded
 * parsing of a call's arguments, and the shaping of a tool's result to a size without corrupting
 * its JSON. Pure, and below every feature: it imports only the model client's types, the input
 * limits and the contracts. The tools themselves are defined beside their features (the team's
 * and the registry of what each party is offered in lib/team-tools, the shared context's in
 * lib/shared-context/tool-specs.ts, the knowledge tool in lib/knowledge/tool.ts).
 */
export {
  argsByName,
  customToolSpec,
  defineTool,
  parametersOf,
  PERMISSIONS,
  toolSpec,
  type ArgsByName,
  type Permission,
  type ToolArgs,
  type ToolAudience,
  type ToolDefinition,
  type ToolInput,
} from "./define";
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
