import "server-only";
/**
 * Presence on a conversation's SSE stream: the stream itself is the registration. When it opens
 * its viewer is registered (present at once) and told its id (`hello`); the people present are
 * sent on every change (`people`); a `heartbeat` every ~10 s asks the page for an acknowledgment
 * (`POST /api/conversations/[id]/presence`), without which the viewer is dropped after ~25 s (a
 * half-open connection the server cannot see); when the stream closes the viewer is gone at once.
 * A person removed (signed out everywhere) has every stream of theirs closed, on every instance.
 * Frames are `event: presence` without an `id:`, so they are neither replayed nor move the
 * browser's `Last-Event-ID`.
 */
import { randomBytes } from "node:crypto";
import type { PresenceFrame, PresencePerson } from "@/lib/contracts/presence";
import type { Presence } from "./port";

/** How often the stream asks for an acknowledgment. */
const HEARTBEAT_MS = 10_000;

const encoder = new TextEncoder();

/** The bytes of one presence frame. */
function presenceFrame(frame: PresenceFrame): Uint8Array {
  return encoder.encode(`event: presence\ndata: ${JSON.stringify(frame)}\n\n`);
}

/** A new viewer id: one per stream, unguessable (an acknowledgment names it). */
function newViewerId(): string {
  return `v_${randomBytes(12).toString("base64url")}`;
}

/** Options of {@link presenceOnStream}. */
export interface PresenceOnStreamOptions {
  presence: Presence;
  conversation: string;
  person: PresencePerson;
  heartbeatMs?: number;
}

/**
 * The side channel an event stream runs (lib/sse `createEventStream`'s `side`): given the
 * stream's `send`, registers the viewer and sends its frames; the function it returns, called
 * when the stream ends, stops them and lets the viewer go.
 */
export function presenceOnStream(options: PresenceOnStreamOptions): (send: (bytes: Uint8Array) => void, close: () => void) => () => void {
  const { presence, conversation, person } = options;
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  return (send, close) => {
    const viewer = newViewerId();
    let ended = false;
    let unwatch: (() => void) | null = null;
    const unSignOut = presence.onSignOut(person.id, close);
    send(presenceFrame({ type: "hello", viewer, person: { id: person.id, name: person.name } }));
    // Watching starts once the viewer is registered, so the first list already holds it.
    const joined = presence.join(conversation, viewer, person).then(() => {
      if (ended) return;
      unwatch = presence.watch(conversation, (people) => {
        if (!ended) send(presenceFrame({ type: "people", people }));
      });
    });
    const heartbeat = setInterval(() => send(presenceFrame({ type: "heartbeat" })), heartbeatMs);
    (heartbeat as { unref?: () => void }).unref?.();
    return () => {
      if (ended) return;
      ended = true;
      clearInterval(heartbeat);
      unSignOut();
      unwatch?.();
      // After the join landed, so a stream closed at once does not leave its viewer behind.
      void joined.then(() => presence.leave(conversation, viewer));
    };
  };
}
