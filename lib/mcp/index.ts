import "server-only";
/**
 * MCP servers (issue 10): `<data folder>/mcp.json` in Claude Code's `.mcp.json` shape, their
 * connections' lifecycle (lib/mcp/manager.ts), and the pure rules of names, effects, grants,
 * masking and output (config.ts, tools.ts). The browser imports lib/mcp/schema.ts directly.
 */
export * from "./schema";
export { McpCallError, type ListedTool } from "./connection";
export { MCP_FILE_NAME, readMcpFile } from "./file";
export { McpManager, mcpFailureReason } from "./manager";
export { grants, headTail, mcpGrants, mcpToolName, offeredMcpTool, parseMcpName, resultText, toolEffect, type ServerGrant } from "./tools";
export { deleteServer, listServers, putAllServers, putServer, testServer } from "./service";
