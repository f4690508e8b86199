import { InterventionActionBodySchema, InterventionsResponseSchema } from "@/lib/contracts/interventions";
import { ConversationIdSchema } from "@/lib/contracts/on-disk";
import { answer, authorOf, parseWith, readBody, route } from "@/lib/http";
import { getApp } from "@/lib/server/get-app";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Params = { id: string };

/** The messages people queued until the current work is over, in the order they will be handled, and whether a run is going. */
export const GET = route<Params>(async (_request, params) => {
  const id = parseWith(ConversationIdSchema, params.id, "Bad conversation id");
  const result = await (await getApp()).commands.run(id, { op: "interventions", args: {} });
  return answer(InterventionsResponseSchema, result);
});

/**
 * A person's intervention on the run (issue 32): withdraw a queued message (404 when no longer
 * queued), withdraw the task an agent works on (409 when it has none), or reorder the queue (409
 * when it changed meanwhile). Each is recorded on the timeline with its author. Answers the queue
 * as it is afterwards.
 */
export const POST = route<Params>(async (request, params) => {
  const id = parseWith(ConversationIdSchema, params.id, "Bad conversation id");
  const body = await readBody(request, InterventionActionBodySchema);
  const result = await (await getApp()).commands.run(id, { op: "intervene", args: body, author: authorOf(request) });
  return answer(InterventionsResponseSchema, result);
});
