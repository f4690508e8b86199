import { answer, authorOf, parseWith, readBody, route } from "@/lib/http";
import { getApp } from "@/lib/server/get-app";
import { WriteBodySchema, SharedContextResponseSchema, DecisionResponseSchema } from "@/lib/shared-context/schema";
import { ConversationIdSchema } from "@/lib/contracts/on-disk";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Params = { id: string };

/**
 * The conversation's shared context: entries, writes waiting for a person, recent resolutions;
 * read where its run is (another instance's, when it holds the run: lib/runtime/run-commands.ts).
 */
export const GET = route<Params>(async (_request, params) => {
  const id = parseWith(ConversationIdSchema, params.id, "Bad conversation id");
  const app = await getApp();
  return answer(SharedContextResponseSchema, { shared_context: await app.commands.run(id, { op: "shared_context", args: {} }) });
});

/**
 * A person writes a key; arbitrated like any write, with a person ranking like the leader, by the
 * instance holding the run. The request time is taken first, before the body is read and the
 * write waits for its turn.
 */
export const PUT = route<Params>(async (request, params) => {
  const app = await getApp();
  const requestedAt = app.clock.now();
  const id = parseWith(ConversationIdSchema, params.id, "Bad conversation id");
  const body = await readBody(request, WriteBodySchema);
  const decision = await app.commands.run(id, { op: "shared_context_write", args: { ...body, requested_at: requestedAt.toISOString() }, author: authorOf(request) });
  return answer(DecisionResponseSchema, { decision });
});
