import { answer, authorOf, parseWith, readBody, route } from "@/lib/http";
import { ConversationIdSchema } from "@/lib/contracts/on-disk";
import { PresenceBeatBodySchema, PresenceBeatResponseSchema } from "@/lib/contracts/presence";
import { getApp } from "@/lib/server/get-app";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/**
 * A page's acknowledgment of its stream's presence heartbeat, or a change of the drawer it has
 * open or of whom it types to (lib/presence/stream.ts). Changes nothing stored, so a viewer may
 * send it; only the person whose stream it is can keep that viewer present.
 */
export const POST = route<{ id: string }>(async (request, params) => {
  const id = parseWith(ConversationIdSchema, params.id, "Bad conversation id");
  const beat = await readBody(request, PresenceBeatBodySchema);
  const { presence } = await getApp();
  const known = await presence.beat(id, beat.viewer, authorOf(request).id, { drawer: beat.drawer, typing: beat.typing });
  return answer(PresenceBeatResponseSchema, { known });
});
