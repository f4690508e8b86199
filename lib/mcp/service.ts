import "server-only";
/**
 * What the HTTP API does with MCP servers: list them masked with their status, add, replace and
 * remove entries of mcp.json (a masked value keeps the stored one while the destination is the
 * same, lib/mcp/config.ts `mergeMasked`; a changed or removed server is stopped everywhere, so its
 * next use starts it with the new entry), and test one. Given the data folder and the process's
 * MCP manager by the caller.
 */
import { ConflictError, NotFoundError, ValidationError } from "@/lib/contracts/errors";
import type { FileQueues } from "@/lib/store";
import { MaskedValueError, maskServer, mergeMasked } from "./config";
import { MCP_FILE_NAME, readMcpFile, updateMcpFile } from "./file";
import type { McpManager } from "./manager";
import type { McpFile, McpServerConfig, McpServerList, McpServerView, McpTestResult } from "./schema";

/** The data folder, the manager of its servers and the process's per-file write queues. */
export interface McpHost {
  readonly root: string;
  readonly mcp: McpManager;
  readonly queues: FileQueues;
}

function has(file: McpFile, name: string): boolean {
  return Object.prototype.hasOwnProperty.call(file.mcpServers, name);
}

function view(mcp: McpManager, name: string, config: McpServerConfig): McpServerView {
  return { ...maskServer(name, config), status: mcp.status(name) };
}

/** Every server of mcp.json, masked, with its status; a broken file gives its error and no servers. */
export async function listServers({ root, mcp }: Pick<McpHost, "root" | "mcp">): Promise<McpServerList> {
  const read = await readMcpFile(root);
  if (!read.ok) return { servers: [], error: read.error, file: MCP_FILE_NAME };
  return { servers: Object.entries(read.file.mcpServers).map(([name, config]) => view(mcp, name, config)), error: null, file: MCP_FILE_NAME };
}

function merged(name: string, next: McpServerConfig, stored: McpServerConfig | undefined): McpServerConfig {
  try {
    return mergeMasked(name, next, stored);
  } catch (error) {
    if (error instanceof MaskedValueError) throw new ValidationError(error.message, [{ path: `config.${next.type === "http" ? "headers" : "env"}.${error.key}`, message: error.reason === "destination_changed" ? "type the value again: the destination changed" : "no stored value to keep" }]);
    throw error;
  }
}

/** Adds or replaces one server (`create` refuses a name in use: 409). */
export async function putServer({ root, mcp, queues }: McpHost, name: string, config: McpServerConfig, create = false): Promise<McpServerView> {
  let saved: McpServerConfig | undefined;
  await updateMcpFile(queues, root, (file) => {
    if (create && has(file, name)) throw new ConflictError(`An MCP server named ${name} exists already.`);
    saved = merged(name, config, has(file, name) ? file.mcpServers[name] : undefined);
    return { ...file, mcpServers: { ...file.mcpServers, [name]: saved } };
  });
  await mcp.stopServer(name);
  return view(mcp, name, saved!);
}

/** Replaces the whole `mcpServers` map (masked values keep the stored ones); servers changed or removed stop. */
export async function putAllServers(host: McpHost, servers: Record<string, McpServerConfig>): Promise<McpServerList> {
  const before: string[] = [];
  await updateMcpFile(host.queues, host.root, (file) => {
    before.push(...Object.keys(file.mcpServers));
    const next: Record<string, McpServerConfig> = {};
    for (const [name, config] of Object.entries(servers)) next[name] = merged(name, config, has(file, name) ? file.mcpServers[name] : undefined);
    return { ...file, mcpServers: next };
  });
  for (const name of new Set([...before, ...Object.keys(servers)])) await host.mcp.stopServer(name);
  return listServers(host);
}

/** Removes one server (404 when it is not there) and stops it everywhere. */
export async function deleteServer({ root, mcp, queues }: McpHost, name: string): Promise<void> {
  await updateMcpFile(queues, root, (file) => {
    if (!has(file, name)) throw new NotFoundError(`No MCP server named ${name} in ${MCP_FILE_NAME}.`);
    const rest = { ...file.mcpServers };
    delete rest[name];
    return { ...file, mcpServers: rest };
  });
  await mcp.stopServer(name);
}

/** Starts the server alone, lists its tools and stops it (404 for a name not in mcp.json). */
export async function testServer({ root, mcp }: Pick<McpHost, "root" | "mcp">, name: string): Promise<McpTestResult> {
  const read = await readMcpFile(root);
  if (!read.ok) throw new ConflictError(read.error);
  if (!has(read.file, name)) throw new NotFoundError(`No MCP server named ${name} in ${MCP_FILE_NAME}.`);
  return mcp.test(root, name);
}
