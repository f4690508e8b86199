import { json, parseWith, route } from "@/lib/http";
import { getApp } from "@/lib/server/app";
import { ConversationIdSchema } from "@/lib/store/schemas";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** The Team Leader's conversation (`messages.json`) as stored. */
export const GET = route<{ id: string }>(async (_request, params) => {
  const id = parseWith(ConversationIdSchema, params.id, "Bad conversation id");
  const app = await getApp();
  return json(await app.store.readLeaderMessages(id));
});
