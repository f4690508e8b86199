import path from "node:path";
import { answer, authorOf, parseWith, readBody, route } from "@/lib/http";
import { authorParty } from "@/lib/contracts/people";
import { getApp, serverCore } from "@/lib/server/get-app";
import { WriteBodySchema, SharedContextResponseSchema, DecisionResponseSchema } from "@/lib/shared-context/schema";
import { ConversationIdSchema } from "@/lib/contracts/on-disk";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Params = { id: string };

/** The name a person's writes carry as `author`. */
const PERSON = "person";

/** The conversation's shared context: entries, writes waiting for a person, recent resolutions. */
export const GET = route<Params>(async (_request, params) => {
  const id = parseWith(ConversationIdSchema, params.id, "Bad conversation id");
  const { readSharedContext } = await serverCore();
  const app = await getApp();
  await app.store.get(id);
  return answer(SharedContextResponseSchema, { shared_context: await readSharedContext(path.join(app.root, "conversations", id)) });
});

/**
 * A person writes a key; arbitrated like any write, with a person ranking like the leader. The
 * request time is taken first, before the body is read and the write waits for its turn.
 */
export const PUT = route<Params>(async (request, params) => {
  const { recordPersonAction, timelineEventsOf, writeSharedContext } = await serverCore();
  const app = await getApp();
  const requestedAt = app.clock.now();
  const id = parseWith(ConversationIdSchema, params.id, "Bad conversation id");
  const body = await readBody(request, WriteBodySchema);
  await app.store.get(id);
  const dir = path.join(app.root, "conversations", id);
  const author = authorOf(request);
  // Held meanwhile, so the conversation is not let go (its timeline file closed) under the write.
  const decision = await app.engine.withConversation(id, async () => {
    const decided = await writeSharedContext(app.queues, dir, {
      key: body.key,
      value: body.value,
      mode: body.mode,
      expected_version: body.expected_version ?? null,
      author: PERSON,
      author_role: "person",
      requested_at: requestedAt,
    });
    await recordPersonAction(
      app,
      id,
      dir,
      { action: "update_shared_context", key: body.key, payload: { key: body.key, mode: body.mode, expected_version: body.expected_version ?? null }, author },
      timelineEventsOf(decided, authorParty(author)),
    );
    return decided;
  });
  return answer(DecisionResponseSchema, { decision });
});
