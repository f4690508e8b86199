import { json, route } from "@/lib/http";
import { knowledgeReport } from "@/lib/knowledge/report";
import { getApp } from "@/lib/server/app";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** The knowledge index of every project folder known from the conversations: state, files indexed of total, last update. */
export const GET = route(async () => {
  const app = await getApp();
  return json(await knowledgeReport(app.knowledge, app.store));
});
