import { answer, parseWith, route } from "@/lib/http";
import { McpServerNameSchema, testServer, McpTestResultSchema } from "@/lib/mcp";
import { getApp } from "@/lib/server/app";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** Starts the server briefly, lists its tools and stops it. A server that fails answers 200 with `ok: false` and its error. */
export const POST = route<{ name: string }>(async (_request, params) => {
  const name = parseWith(McpServerNameSchema, params.name, "Bad MCP server name");
  const app = await getApp();
  return answer(McpTestResultSchema, await testServer(app, name));
});
