import { BulkExportBodySchema } from "@/lib/export/schema";
import { readBody, route } from "@/lib/http";
import { getApp, serverCore } from "@/lib/server/get-app";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** Several conversations as one zip (`{ids: [...]}`, at most 50). */
export const POST = route(async (request) => {
  const { ids } = await readBody(request, BulkExportBodySchema);
  const { exportZip, attachment } = await serverCore();
  const app = await getApp();
  return attachment(await exportZip(app, ids));
});
