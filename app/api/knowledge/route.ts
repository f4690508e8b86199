import { answer, route } from "@/lib/http";
import { getApp, serverCore } from "@/lib/server/get-app";
import { KnowledgeReportSchema } from "@/lib/knowledge/schema";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** The knowledge index of every project folder known from the conversations: state, files indexed of total, last update. */
export const GET = route(async () => {
  const { knowledgeReport } = await serverCore();
  const app = await getApp();
  return answer(KnowledgeReportSchema, await knowledgeReport(app.knowledge, app.store));
});
