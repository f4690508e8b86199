import "server-only";
/**
 * Every file of the data folder known to be unusable, for `/api/health`: what the store met while
 * loading (index, state, conversation metadata, and any messages.json or agent file read since
 * start-up), plus `models.json`, the key store (`model-keys.json`), `gateway.json` (and its sources) and the role files that do not load. Nothing here scans the conversations: the store records problems
 * as it meets them, so a health call costs one read of models.json.
 */
import type { StoreProblem } from "@/lib/contracts/http";
import { MCP_FILE_NAME, readMcpFile } from "@/lib/mcp";
import { gatewayProblems } from "@/lib/gateway";
import { KEY_STORE_FILE, registryProblem } from "@/lib/models";
import { redactionProblem } from "@/lib/memory/redaction-config";
import type { AstrionApp } from "./app";

/** The store's recorded problems, models.json's and the role files' that do not load, sorted by file. */
export async function collectProblems(app: Pick<AstrionApp, "root" | "store" | "roles"> & Partial<Pick<AstrionApp, "search" | "memory" | "keys">>): Promise<StoreProblem[]> {
  const problems = [...app.store.problems(), ...(app.search?.notices() ?? [])];
  const models = await registryProblem(app.root);
  if (models) problems.push(models);
  if (app.memory) {
    // Not the index: a rebuild may be embedding thousands of entries, and health must answer now.
    await app.memory.loaded();
    problems.push(...app.memory.notices());
    const redaction = await redactionProblem(app.root);
    if (redaction) problems.push({ file: "models.json", message: redaction });
  }
  // The key store's file: only that it does not load, never the parser's words (they may quote a key).
  try {
    await app.keys?.refresh();
  } catch {
    problems.push({ file: KEY_STORE_FILE, message: "does not load: the API keys typed in Settings → Models cannot be used until it is fixed or removed" });
  }
  const mcp = await readMcpFile(app.root);
  if (!mcp.ok) problems.push({ file: MCP_FILE_NAME, message: mcp.error.slice(MCP_FILE_NAME.length + 2) });
  problems.push(...(await gatewayProblems(app.root)));
  // The role folder is held parsed in memory (lib/roles/folder-cache.ts): listing it reads nothing new.
  for (const role of await app.roles.list()) {
    if (role.kind === "error") problems.push({ file: `agents/${role.file}`, message: role.line !== undefined ? `line ${role.line}: ${role.message}` : role.message });
  }
  return problems.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}
