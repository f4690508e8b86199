import { answer, route } from "@/lib/http";
import { GatewayReportSchema } from "@/lib/gateway/schema";
import { getApp, serverCore } from "@/lib/server/get-app";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** The protocol gateway's sources (gateway.json): their tools, warnings and errors; never a header value. */
export const GET = route(async () => {
  const { gatewayReport } = await serverCore();
  const app = await getApp();
  return answer(GatewayReportSchema, await gatewayReport(app.root, app.gatewayErrors));
});
