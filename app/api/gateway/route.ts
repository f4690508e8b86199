import { answer, route } from "@/lib/http";
import { gatewayReport, GatewayReportSchema } from "@/lib/gateway";
import { getApp } from "@/lib/server/app";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** The protocol gateway's sources (gateway.json): their tools, warnings and errors; never a header value. */
export const GET = route(async () => {
  const app = await getApp();
  return answer(GatewayReportSchema, await gatewayReport(app.root, app.gatewayErrors));
});
