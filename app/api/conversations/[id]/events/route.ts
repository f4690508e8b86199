import { conversationTopic } from "@/lib/bus";
import { parseWith, route } from "@/lib/http";
import { runFor } from "@/lib/runtime";
import { createEventStream, SSE_HEADERS } from "@/lib/sse";
import { ConversationIdSchema } from "@/lib/store/schemas";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Params = { id: string };

/**
 * The conversation's live updates as server-sent events: a snapshot (or, with `Last-Event-ID`,
 * the events missed), then every change. `?lastEventId=` stands in for the header for clients
 * that cannot set it. The stream only observes: a closed tab never stops the agents.
 */
export const GET = route<Params>(async (request, params) => {
  const id = parseWith(ConversationIdSchema, params.id, "Bad conversation id");
  const run = await runFor(id); // 404 before any stream is opened
  const lastEventId = request.headers.get("last-event-id") || new URL(request.url).searchParams.get("lastEventId");
  const stream = createEventStream({
    topic: conversationTopic(id),
    lastEventId,
    snapshot: () => run.snapshot(),
    signal: request.signal,
  });
  return new Response(stream, { headers: SSE_HEADERS });
});
