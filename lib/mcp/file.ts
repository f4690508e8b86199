import "server-only";
/**
 * `<data folder>/mcp.json` on disk: read (missing means no servers; a broken file is a clear
 * error, never a crash) and changed through the store's atomic read-modify-write.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { ConflictError, CorruptFileError, NotFoundError } from "@/lib/contracts/errors";
import { readJsonFile, updateJsonFile, type FileQueues } from "@/lib/store";
import { McpFileSchema, type McpFile } from "./schema";

/** The file's name in the data folder. */
export const MCP_FILE_NAME = "mcp.json";

/** Where mcp.json lives. */
function mcpFilePath(root: string): string {
  return path.join(root, MCP_FILE_NAME);
}

/**
 * The identity of mcp.json (inode, size, times in nanoseconds), or "missing"; "racy:…" when its
 * newest time is under a second old, so a second change within the same timestamp tick could
 * leave it unchanged: a caller then reads the file again at its next check.
 */
export async function mcpFileStamp(root: string): Promise<string> {
  const takenAt = Date.now();
  const st = await fs.stat(mcpFilePath(root), { bigint: true }).catch(() => null);
  if (!st) return "missing";
  const stamp = `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
  const newest = Math.max(Number(st.mtimeNs / 1_000_000n), Number(st.ctimeNs / 1_000_000n));
  return takenAt - newest < 1000 ? `racy:${stamp}` : stamp;
}

/** mcp.json as read, or what is wrong with it. */
export type McpFileRead = { ok: true; file: McpFile } | { ok: false; error: string };

/** The reason a broken file gives, without the absolute path. */
function reasonOf(error: unknown): string {
  if (error instanceof CorruptFileError) {
    const reason = (error.details as { reason?: unknown } | undefined)?.reason;
    return typeof reason === "string" ? reason : error.message;
  }
  return error instanceof Error ? error.message : String(error);
}

/** Reads mcp.json: no file means no servers. */
export async function readMcpFile(root: string): Promise<McpFileRead> {
  try {
    return { ok: true, file: await readJsonFile(mcpFilePath(root), McpFileSchema) };
  } catch (error) {
    if (error instanceof NotFoundError) return { ok: true, file: { mcpServers: {} } };
    return { ok: false, error: `${MCP_FILE_NAME}: ${reasonOf(error)}` };
  }
}

/**
 * Changes mcp.json atomically (queued in the process's `queues` behind every other write to it).
 * A file that does not load is not replaced: a 409 says to fix it first, so a person's hand edit
 * is never lost.
 */
export async function updateMcpFile(queues: FileQueues, root: string, change: (file: McpFile) => McpFile): Promise<McpFile> {
  try {
    return await updateJsonFile(queues, mcpFilePath(root), McpFileSchema, change, { create: () => ({ mcpServers: {} }) });
  } catch (error) {
    if (error instanceof CorruptFileError) throw new ConflictError(`${MCP_FILE_NAME} does not load, so it is not overwritten; fix it first: ${reasonOf(error)}`);
    throw error;
  }
}
