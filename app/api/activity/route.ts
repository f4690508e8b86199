import { ActivityAnswerSchema, ActivityQuerySchema } from "@/lib/contracts/activity";
import { answer, parseWith, queryOf, route } from "@/lib/http";
import { getApp } from "@/lib/server/get-app";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** Who changed a role file, a setting or the people, and when; `?person=<id>` for one person's changes. */
export const GET = route(async (request) => {
  const query = parseWith(ActivityQuerySchema, queryOf(request), "Bad query");
  return answer(ActivityAnswerSchema, { records: await (await getApp()).activity.read(query.person) });
});
