import { RebuildBodySchema, RebuildAnswerSchema } from "@/lib/knowledge";
import { rebuildKnowledge } from "@/lib/knowledge/report";
import { answer, readBody, route } from "@/lib/http";
import { getApp } from "@/lib/server/app";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** Rebuilds one project's knowledge index in the background (202 with its state). */
export const POST = route(async (request) => {
  const body = await readBody(request, RebuildBodySchema);
  const app = await getApp();
  const status = await rebuildKnowledge(app.knowledge, app.store, body, await app.models.embedderFor(app.root).catch(() => null));
  return answer(RebuildAnswerSchema, { project: status }, { status: 202 });
});
