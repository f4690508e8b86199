import { answer, authorOf, readBody, route } from "@/lib/http";
import { PostMcpServerBodySchema, PutMcpServersBodySchema, McpServerListSchema, McpServerAnswerSchema } from "@/lib/mcp/schema";
import { getApp, serverCore } from "@/lib/server/get-app";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** The servers of mcp.json (env and header values masked) with their status; a broken file gives its error. */
export const GET = route(async () => {
  const { listServers } = await serverCore();
  const app = await getApp();
  return answer(McpServerListSchema, await listServers(app));
});

/** Adds a server (409 when the name is in use). */
export const POST = route(async (request) => {
  const body = await readBody(request, PostMcpServerBodySchema);
  const { putServer } = await serverCore();
  const app = await getApp();
  const server = await putServer(app, body.name, body.config, true);
  await (await getApp()).activity.record(authorOf(request), "settings_changed", "mcp.json");
  return answer(McpServerAnswerSchema, { server }, { status: 201 });
});

/** Replaces the whole `mcpServers` map; a masked value keeps the stored one. */
export const PUT = route(async (request) => {
  const body = await readBody(request, PutMcpServersBodySchema);
  const { putAllServers } = await serverCore();
  const app = await getApp();
  const servers = await putAllServers(app, body.mcpServers);
  await (await getApp()).activity.record(authorOf(request), "settings_changed", "mcp.json");
  return answer(McpServerListSchema, servers);
});
