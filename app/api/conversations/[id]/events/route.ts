import { AstrionError } from "@/lib/contracts/errors";
import { authorOf, parseWith, route } from "@/lib/http";
import { clientAddressOf } from "@/lib/security";
import { getApp, serverCore } from "@/lib/server/get-app";
import { ConversationIdSchema } from "@/lib/contracts/on-disk";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Params = { id: string };

/**
 * The conversation's live updates as server-sent events: a snapshot (or, with `Last-Event-ID`,
 * the events missed), then every change. `?lastEventId=` stands in for the header for clients
 * that cannot set it. The stream only observes: a closed tab never stops the agents.
 * Open streams are capped per client address and in total (429 with Retry-After beyond).
 * The stream's subscription holds the conversation in memory; when the last viewer leaves and
 * nothing runs, it is let go. The stream is also the viewer's presence (lib/presence/stream.ts):
 * registered while it is open, acknowledged through `POST …/presence`.
 */
export const GET = route<Params>(async (request, params) => {
  const id = parseWith(ConversationIdSchema, params.id, "Bad conversation id");
  const author = authorOf(request);
  // The run is found (404 before any stream is opened) and held until the stream has subscribed.
  const { createEventStream, conversationTopic, presenceOnStream, SSE_HEADERS, STREAM_RETRY_AFTER_SECONDS } = await serverCore();
  const { engine, store, bus, streams, commands, presence } = await getApp();
  // A stream over the limits is refused before the conversation is opened (or its lease taken).
  const slot = streams.acquire(clientAddressOf(request.headers));
  if (!slot.ok) {
    throw new AstrionError("rate_limited", slot.message, { scope: slot.scope, limit: slot.limit, retry_after_seconds: STREAM_RETRY_AFTER_SECONDS });
  }
  // Snapshots from this instance's run, or from the instance holding it (PostgreSQL + Redis).
  return commands.view(id, async (snapshot) => {
    const lastEventId = request.headers.get("last-event-id") || new URL(request.url).searchParams.get("lastEventId");
    // A bus with copies in other processes (Redis) catches this process's copy up first, so a
    // reconnect with an id another instance handed out is replayed rather than answered a gap.
    const topic = conversationTopic(id);
    const hold = bus.retain(topic);
    try {
      await bus.synced(topic);
      const stream = createEventStream({
        bus,
        topic,
        lastEventId,
        snapshot,
        snapshotVersion: () => store.version(id),
        signal: request.signal,
        side: presenceOnStream({ presence, conversation: id, person: { id: author.id, name: author.name } }),
        onEnd: () => {
          slot.release();
          engine.releaseIfIdle(id);
        },
      });
      return new Response(stream, { headers: SSE_HEADERS });
    } finally {
      hold();
    }
  }).catch((error: unknown) => {
    // No stream was made (unknown conversation, a holder that did not answer…): the slot is free again.
    slot.release();
    throw error;
  });
});
