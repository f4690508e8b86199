import "server-only";
/**
 * MCP servers (issue 10): `<data folder>/mcp.json` in Claude Code's `.mcp.json` shape, their
 * connections' lifecycle (lib/mcp/manager.ts), and the pure rules of names, effects, grants,
 * masking and output (config.ts, tools.ts). The browser imports lib/mcp/schema.ts directly.
 */
export * from "./schema";
export { destinationChange, expandVars, isNonSecretVariable, isShowable, MASK, MaskedValueError, maskServer, mcpLimitsFromEnv, mergeMasked, resolveServer, restartDelay, scrub, type MaskedValueReason, type McpLimits, type ResolvedServer } from "./config";
export { McpCallError, type CallAnswer, type ListedTool } from "./connection";
export { MCP_FILE_NAME, mcpFilePath, readMcpFile, updateMcpFile, type McpFileRead } from "./file";
export { McpManager, McpUnavailableError, skippedWarning, toolInfo } from "./manager";
export { grants, headTail, isMcpToolName, mcpGrants, mcpToolName, offeredMcpTool, parseMcpName, resultText, toolEffect, type ServerGrant } from "./tools";
export { deleteServer, listServers, putAllServers, putServer, testServer, type McpHost } from "./service";
