import { answer, route } from "@/lib/http";
import { DiscoveryReportSchema } from "@/lib/model-settings/schema";
import { getApp } from "@/lib/server/get-app";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** The model servers last found on 127.0.0.1 (the look at start, or the first one now). */
export const GET = route(async () => {
  const app = await getApp();
  return answer(DiscoveryReportSchema, await app.discovery.report());
});

/** Looks again now. */
export const POST = route(async () => {
  const app = await getApp();
  return answer(DiscoveryReportSchema, await app.discovery.scan());
});
