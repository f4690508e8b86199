import { answer, parseWith, route } from "@/lib/http";
import { McpServerNameSchema, McpTestResultSchema } from "@/lib/mcp/schema";
import { getApp, serverCore } from "@/lib/server/get-app";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** Starts the server briefly, lists its tools and stops it. A server that fails answers 200 with `ok: false` and its error. */
export const POST = route<{ name: string }>(async (_request, params) => {
  const name = parseWith(McpServerNameSchema, params.name, "Bad MCP server name");
  const { testServer } = await serverCore();
  const app = await getApp();
  return answer(McpTestResultSchema, await testServer(app, name));
});
