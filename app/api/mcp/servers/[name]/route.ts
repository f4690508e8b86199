import { answer, authorOf, parseWith, readBody, route } from "@/lib/http";
import { McpServerNameSchema, PutMcpServerBodySchema, McpServerAnswerSchema } from "@/lib/mcp/schema";
import { getApp, serverCore } from "@/lib/server/get-app";
import { DeletedResponseSchema } from "@/lib/contracts/http";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Params = { name: string };

/** Adds or replaces one server; a masked env or header value keeps the stored one. */
export const PUT = route<Params>(async (request, params) => {
  const name = parseWith(McpServerNameSchema, params.name, "Bad MCP server name");
  const body = await readBody(request, PutMcpServerBodySchema);
  const { putServer } = await serverCore();
  const app = await getApp();
  const server = await putServer(app, name, body.config);
  await (await getApp()).activity.record(authorOf(request), "settings_changed", "mcp.json");
  return answer(McpServerAnswerSchema, { server });
});

/** Removes one server from mcp.json and stops it everywhere. */
export const DELETE = route<Params>(async (request, params) => {
  const name = parseWith(McpServerNameSchema, params.name, "Bad MCP server name");
  const { deleteServer } = await serverCore();
  const app = await getApp();
  await deleteServer(app, name);
  await (await getApp()).activity.record(authorOf(request), "settings_changed", "mcp.json");
  return answer(DeletedResponseSchema, { deleted: name });
});
