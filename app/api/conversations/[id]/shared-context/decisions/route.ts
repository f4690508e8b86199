import { answer, authorOf, parseWith, readBody, route } from "@/lib/http";
import { getApp } from "@/lib/server/get-app";
import { DecisionBodySchema, DecisionResponseSchema } from "@/lib/shared-context/schema";
import { ConversationIdSchema } from "@/lib/contracts/on-disk";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/**
 * A person decides a write that waits for them: keep the current value or take the proposed one,
 * by the instance holding the run. 404 for an unknown conflict, 409 for one already decided.
 */
export const POST = route<{ id: string }>(async (request, params) => {
  const app = await getApp();
  const requestedAt = app.clock.now();
  const id = parseWith(ConversationIdSchema, params.id, "Bad conversation id");
  const body = await readBody(request, DecisionBodySchema);
  const decision = await app.commands.run(id, { op: "shared_context_decide", args: { ...body, requested_at: requestedAt.toISOString() }, author: authorOf(request) });
  return answer(DecisionResponseSchema, { decision });
});
