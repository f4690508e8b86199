import { RebuildBodySchema, RebuildAnswerSchema } from "@/lib/knowledge/schema";
import { answer, readBody, route } from "@/lib/http";
import { getApp, serverCore } from "@/lib/server/get-app";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** Rebuilds one project's knowledge index in the background (202 with its state). */
export const POST = route(async (request) => {
  const body = await readBody(request, RebuildBodySchema);
  const { rebuildKnowledge } = await serverCore();
  const app = await getApp();
  const status = await rebuildKnowledge(app.knowledge, app.store, body, await app.models.embedderFor(app.root).catch(() => null));
  return answer(RebuildAnswerSchema, { project: status }, { status: 202 });
});
