import { PostMessageBodySchema, PostMessageResponseSchema } from "@/lib/contracts/http";
import { enforceRateLimit } from "@/lib/governance/rate-limit";
import { answer, authorOf, parseWith, readBody, route } from "@/lib/http";
import { getApp } from "@/lib/server/get-app";
import { ConversationIdSchema, LeaderMessagesFileSchema } from "@/lib/contracts/on-disk";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Params = { id: string };

/** The Team Leader's conversation (`messages.json`) as stored. */
export const GET = route<Params>(async (_request, params) => {
  const id = parseWith(ConversationIdSchema, params.id, "Bad conversation id");
  const app = await getApp();
  return answer(LeaderMessagesFileSchema, await app.store.readLeaderMessages(id));
});

/**
 * A person's message to the Team Leader: 202, the team works in the background. Its author is who
 * is signed in. While a run is going it is an intervention handled by `strategy` (issue 32).
 */
export const POST = route<Params>(async (request, params) => {
  const app = await getApp();
  await enforceRateLimit("entry", app.entryLimiter);
  const id = parseWith(ConversationIdSchema, params.id, "Bad conversation id");
  const body = await readBody(request, PostMessageBodySchema);
  return answer(PostMessageResponseSchema, await app.commands.run(id, { op: "leader_message", args: { content: body.content, strategy: body.strategy }, author: authorOf(request) }), { status: 202 });
});
