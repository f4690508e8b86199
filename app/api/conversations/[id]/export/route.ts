import { ExportQuerySchema } from "@/lib/export/schema";
import { parseWith, queryOf, route } from "@/lib/http";
import { getApp, serverCore } from "@/lib/server/get-app";
import { ConversationIdSchema } from "@/lib/contracts/on-disk";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** One conversation as a Markdown report (`format=md`, default) or a zip of its folder (`format=zip`). */
export const GET = route<{ id: string }>(async (request, params) => {
  const id = parseWith(ConversationIdSchema, params.id, "Bad conversation id");
  const { format } = parseWith(ExportQuerySchema, queryOf(request), "Bad query");
  const { exportMarkdown, exportZip, attachment } = await serverCore();
  const app = await getApp();
  return attachment(format === "zip" ? await exportZip(app, [id]) : await exportMarkdown(app, id));
});
