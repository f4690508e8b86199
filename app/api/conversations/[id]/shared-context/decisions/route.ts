import path from "node:path";
import { answer, authorOf, parseWith, readBody, route } from "@/lib/http";
import { authorParty } from "@/lib/contracts/people";
import { getApp, serverCore } from "@/lib/server/get-app";
import { DecisionBodySchema, DecisionResponseSchema } from "@/lib/shared-context/schema";
import { ConversationIdSchema } from "@/lib/contracts/on-disk";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/**
 * A person decides a write that waits for them: keep the current value or take the proposed one.
 * 404 for an unknown conflict, 409 for one already decided.
 */
export const POST = route<{ id: string }>(async (request, params) => {
  const { decideConflict, recordPersonAction, timelineEventsOf } = await serverCore();
  const app = await getApp();
  const requestedAt = app.clock.now();
  const id = parseWith(ConversationIdSchema, params.id, "Bad conversation id");
  const body = await readBody(request, DecisionBodySchema);
  await app.store.get(id);
  const dir = path.join(app.root, "conversations", id);
  const author = authorOf(request);
  // Held meanwhile, so the conversation is not let go (its timeline file closed) under the write.
  const decision = await app.engine.withConversation(id, async () => {
    const decided = await decideConflict(app.queues, dir, body.conflict_id, body.choice, "person", requestedAt);
    await recordPersonAction(
      app,
      id,
      dir,
      { action: "decide_conflict", key: decided.key, payload: { conflict_id: body.conflict_id, choice: body.choice }, author },
      timelineEventsOf(decided, authorParty(author)),
    );
    return decided;
  });
  return answer(DecisionResponseSchema, { decision });
});
