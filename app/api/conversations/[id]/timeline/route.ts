import path from "node:path";
import { TimelineQuerySchema, TimelineResponseSchema } from "@/lib/contracts/http";
import { answer, parseWith, queryOf, route } from "@/lib/http";
import { getApp, serverCore } from "@/lib/server/get-app";
import { ConversationIdSchema } from "@/lib/contracts/on-disk";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** The audit timeline (timeline.jsonl), optionally only one trace or only what one person did (`?person=<id>`). */
export const GET = route<{ id: string }>(async (request, params) => {
  const id = parseWith(ConversationIdSchema, params.id, "Bad conversation id");
  const query = parseWith(TimelineQuerySchema, queryOf(request), "Bad query");
  const { readTimeline, timelineFile } = await serverCore();
  const app = await getApp();
  await app.store.get(id);
  const result = await readTimeline(timelineFile(path.join(app.root, "conversations", id)), { trace_id: query.trace_id, person: query.person });
  return answer(TimelineResponseSchema, { records: result.records, bad_lines: result.bad.length });
});
