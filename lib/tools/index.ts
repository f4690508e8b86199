/**
 * Public face of the tool kernel: how a tool is defined (name, description, zod argument schema,
 * read-only or not, who may use it), the JSON Schemas generated from those zod schemas, bounded
 * parsing of a call's arguments, and the shaping of a tool's result to a size without corrupting
 * its JSON. Pure, and below every feature: it imports only the model client's types, the input
 * limits and the contracts. The tools themselves are defined beside their features (the team's
 * and the registry of what each party is offered in lib/team-tools, the shared context's in
 * lib/shared-context/tool-specs.ts, the knowledge tool in lib/knowledge/tool.ts).
 */
export { defineTool, parametersOf, toolAction, toolSpec, type ToolArgs, type ToolDefinition } from "./define";
export { maxArgumentChars, parseToolArguments } from "./arguments";
export { capToolOutput } from "./shape";
