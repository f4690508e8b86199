import { answer, authorOf, parseWith, route } from "@/lib/http";
import { ConversationIdSchema } from "@/lib/contracts/on-disk";
import { getApp } from "@/lib/server/get-app";
import { StopResponseSchema } from "@/lib/contracts/http";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** Stops the whole conversation: model streams are aborted and no agent is left running. */
export const POST = route<{ id: string }>(async (request, params) => {
  const id = parseWith(ConversationIdSchema, params.id, "Bad conversation id");
  await (await getApp()).commands.run(id, { op: "stop", args: {}, author: authorOf(request) });
  return answer(StopResponseSchema, { stopped: true });
});
