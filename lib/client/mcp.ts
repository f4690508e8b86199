/** Query factory and commands of the MCP servers API (`/api/mcp/servers`). */
import { queryOptions } from "@tanstack/react-query";
import { DeletedResponseSchema } from "@/lib/contracts/http";
import { McpServerAnswerSchema, McpServerListSchema, McpTestResultSchema, type McpServerConfig } from "@/lib/mcp/schema";
import { apiFetch } from "./api";

/** `GET /api/mcp/servers`: the servers of mcp.json, masked, with their status. */
export function mcpServersQuery() {
  return queryOptions({
    queryKey: ["mcp-servers"] as const,
    queryFn: ({ signal }) => apiFetch("/api/mcp/servers", McpServerListSchema, { signal }),
    staleTime: 5_000,
  });
}

/** `POST /api/mcp/servers`: adds a server (409 when the name is in use). */
export function addMcpServer(name: string, config: McpServerConfig) {
  return apiFetch("/api/mcp/servers", McpServerAnswerSchema, { method: "POST", body: { name, config } });
}

/** `PUT /api/mcp/servers/{name}`: replaces a server; masked values keep the stored ones. */
export function saveMcpServer(name: string, config: McpServerConfig) {
  return apiFetch(`/api/mcp/servers/${encodeURIComponent(name)}`, McpServerAnswerSchema, { method: "PUT", body: { config } });
}

/** `DELETE /api/mcp/servers/{name}`. */
export function removeMcpServer(name: string) {
  return apiFetch(`/api/mcp/servers/${encodeURIComponent(name)}`, DeletedResponseSchema, { method: "DELETE" });
}

/** `POST /api/mcp/servers/{name}/test`: starts it briefly and lists its tools. */
export function testMcpServer(name: string) {
  return apiFetch(`/api/mcp/servers/${encodeURIComponent(name)}/test`, McpTestResultSchema, { method: "POST", body: {} });
}
