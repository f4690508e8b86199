/**
 * The pure rules of MCP tools as a model sees them: the `mcp__<server>__<tool>` names (and which
 * cannot be made), each tool's effect, which tools a role grants, a call's result as text, and
 * the cap on it (head and tail kept). No I/O.
 */
import { MCP_SERVER_NAME_PATTERN, type McpToolEffect } from "./schema";

/** Function names models accept (OpenAI): at most 64 characters of `[A-Za-z0-9_-]`. */
const FUNCTION_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** `mcp__<server>__<tool>`, or null when that is no valid function name (the tool is then skipped, never renamed). */
export function mcpToolName(server: string, tool: string): string | null {
  const name = `mcp__${server}__${tool}`;
  return FUNCTION_NAME.test(name) ? name : null;
}

/** `mcp__<server>` or `mcp__<server>__<tool>` split; null for any other name. Server names never hold `__`. */
export function parseMcpName(name: string): { server: string; tool: string | null } | null {
  if (!name.startsWith("mcp__")) return null;
  const rest = name.slice(5);
  const at = rest.indexOf("__");
  const server = at < 0 ? rest : rest.slice(0, at);
  if (!MCP_SERVER_NAME_PATTERN.test(server) || server.endsWith("_")) return null;
  if (at < 0) return { server, tool: null };
  const tool = rest.slice(at + 2);
  return tool ? { server, tool } : null;
}

/** True for a name of an MCP tool (`mcp__<server>__<tool>`). */
export function isMcpToolName(name: string): boolean {
  return parseMcpName(name)?.tool != null;
}

/**
 * The server and tool a model's call may reach by `name`, or null. A tool the model is offered is
 * named {@link mcpToolName}, so a name that function would not give (a tool skipped for its
 * name: too long, or a character a function name may not hold) names no tool the model could have
 * been offered, and is not run even though its server has such a tool.
 */
export function offeredMcpTool(name: string): { server: string; tool: string } | null {
  const parsed = parseMcpName(name);
  if (!parsed?.tool || mcpToolName(parsed.server, parsed.tool) !== name) return null;
  return { server: parsed.server, tool: parsed.tool };
}

/** What a tool does to the world: only `annotations.readOnlyHint === true` reads; anything else writes. */
export function toolEffect(annotations: { readOnlyHint?: unknown } | undefined | null): McpToolEffect {
  return annotations?.readOnlyHint === true ? "read" : "write";
}

/** Which of a server's tools a role grants: all of them, or the named ones. */
export type ServerGrant = "all" | Set<string>;

/**
 * The MCP tools a role grants: `mcp_servers: [github]` and `tools: [mcp__github]` give all of a
 * server's tools; `tools: [mcp__github__create_issue]` gives that one.
 */
export function mcpGrants(fields: { mcp_servers?: readonly string[] | undefined; tools?: readonly string[] | undefined }): Map<string, ServerGrant> {
  const grants = new Map<string, ServerGrant>();
  for (const server of fields.mcp_servers ?? []) grants.set(server, "all");
  for (const t of fields.tools ?? []) {
    const parsed = parseMcpName(t);
    if (!parsed) continue;
    const had = grants.get(parsed.server);
    if (parsed.tool === null) grants.set(parsed.server, "all");
    else if (had === undefined) grants.set(parsed.server, new Set([parsed.tool]));
    else if (had !== "all") had.add(parsed.tool);
  }
  return grants;
}

/** Whether `grant` covers `tool`. */
export function grants(grant: ServerGrant | undefined, tool: string): boolean {
  return grant === "all" || (grant !== undefined && grant.has(tool));
}

/** One block of a `tools/call` result (the parts this product reads). */
export interface ResultBlock {
  type: string;
  text?: string;
  mimeType?: string;
  data?: string;
  uri?: string;
  name?: string;
  resource?: { uri?: string; text?: string; mimeType?: string; blob?: string };
}

/**
 * A call's result as text for the model: text blocks as they are, other blocks described in a
 * line (an image is not sent to the model), or the structured content as JSON when there are no blocks.
 */
export function resultText(result: { content?: readonly ResultBlock[]; structuredContent?: unknown }): string {
  const blocks = result.content ?? [];
  if (!blocks.length) return result.structuredContent === undefined ? "" : JSON.stringify(result.structuredContent);
  return blocks
    .map((b) => {
      switch (b.type) {
        case "text":
          return b.text ?? "";
        case "image":
        case "audio":
          return `[${b.type} ${b.mimeType ?? ""}, ${Math.floor(((b.data ?? "").length * 3) / 4)} bytes, not shown]`;
        case "resource":
          return b.resource?.text ?? `[resource ${b.resource?.uri ?? ""}${b.resource?.blob ? ", binary, not shown" : ""}]`;
        case "resource_link":
          return `[resource link ${b.uri ?? ""}${b.name ? ` (${b.name})` : ""}]`;
        default:
          return `[${b.type} block]`;
      }
    })
    .join("\n");
}

/** The marker in the middle of a cut text. */
export function elisionMarker(omitted: number): string {
  return `\n…[${omitted} characters omitted]…\n`;
}

/**
 * `text` in at most `max` characters: its head and its tail kept (the end of an output often
 * holds the answer or the error), the middle replaced by {@link elisionMarker}.
 */
export function headTail(text: string, max: number): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  const marker = elisionMarker(text.length);
  const room = Math.max(0, max - marker.length);
  let head = Math.ceil(room / 2);
  let tail = room - head;
  // Never split a surrogate pair.
  if (head > 0 && /[\ud800-\udbff]/.test(text[head - 1]!)) head -= 1;
  if (tail > 0 && /[\udc00-\udfff]/.test(text[text.length - tail]!)) tail -= 1;
  return { text: text.slice(0, head) + elisionMarker(text.length - head - tail) + (tail ? text.slice(text.length - tail) : ""), truncated: true };
}
