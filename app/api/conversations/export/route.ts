import { BulkExportBodySchema, exportZip, attachment } from "@/lib/export";
import { readBody, route } from "@/lib/http";
import { getApp } from "@/lib/server/app";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** Several conversations as one zip (`{ids: [...]}`, at most 50). */
export const POST = route(async (request) => {
  const { ids } = await readBody(request, BulkExportBodySchema);
  const app = await getApp();
  return attachment(await exportZip(app, ids));
});
