import { RetryBodySchema, RetryResponseSchema } from "@/lib/contracts/http";
import { answer, authorOf, parseWith, readBody, route } from "@/lib/http";
import { ConversationIdSchema } from "@/lib/contracts/on-disk";
import { getApp } from "@/lib/server/get-app";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** Retries the work that failed (the leader's, or one idle agent's): 202, it goes on in the background. */
export const POST = route<{ id: string }>(async (request, params) => {
  const id = parseWith(ConversationIdSchema, params.id, "Bad conversation id");
  const body = await readBody(request, RetryBodySchema);
  const app = await getApp();
  return answer(RetryResponseSchema, await app.commands.run(id, { op: "retry", args: { agent_id: body.agent_id }, author: authorOf(request) }), { status: 202 });
});
