import "server-only";
/**
 * One SSE connection to a conversation: a snapshot or a replay, then live events, as bytes.
 *
 * The stream keeps no copy of the numbered events it has yet to send. It keeps a cursor (the
 * number of the last event it handed to the socket) and reads onward from the bus's replay buffer
 * whenever the socket wants more (`pull`, `desiredSize`). So replay and live delivery are one path,
 * there can be no gap or duplicate at the seam between them, and a slow client costs one number.
 * The subscription only says "there is more"; the pumping is deferred to the end of the event
 * loop's turn, so the publisher pays O(1) per connection and a turn's events leave in one write.
 *
 * Live-only events (streamed text) are not in the bus's buffer: the subscription hands them over,
 * and the stream queues them (each knows the numbered event it follows) until the socket takes
 * them, in order with the numbered ones; those published before the stream is ready (while its
 * snapshot is built) are not sent, as for a viewer that connects in the middle of a model call.
 * Their frames carry the id of the numbered event they follow, so a reconnect resumes after it;
 * what was streamed is then in the saved message.
 *
 * The snapshot frame is shared through {@link snapshotCacheFor}: streams that open on an
 * unchanged conversation send the same bytes, built once.
 *
 * A client that falls more than `maxQueue` events behind on what was published since it
 * connected is closed: its browser reconnects with `Last-Event-ID` and is replayed (or, if the
 * buffer moved on, sent a fresh snapshot). The stream only observes: closing it never touches
 * the runtime.
 */
import { isConversationTopic, type Bus, type ConversationMessage, type ConversationTopic, type LiveEvent, type Unsubscribe } from "@/lib/bus";
import type { ConversationSnapshot, RuntimeEvent } from "@/lib/contracts/events";
import { DEFAULT_RETRY_MS, encodeFrame, formatComment, formatEvent, formatOpening, frameOf, PING_FRAME } from "./frame";
import { snapshotCacheFor } from "./snapshot-cache";

/** `chunks` as one (the chunk itself when there is one). */
function joined(chunks: Uint8Array[]): Uint8Array {
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

/** Default interval of heartbeat comments. */
const DEFAULT_HEARTBEAT_MS = 15_000;

/** Default number of events (numbered or live-only) a client may fall behind before it is dropped. */
const DEFAULT_MAX_QUEUE = 1000;

/**
 * Chunks handed to the consumer ahead of its reads. Small on purpose: everything beyond it
 * stays in the shared bus buffer, not in this connection.
 */
const FEED_CHUNKS = 16;

/** Why a stream ended. */
export type EventStreamEnd = "abort" | "cancel" | "overflow" | "gap" | "error" | "closed";

/** Options of {@link createEventStream}. */
export interface EventStreamOptions {
  /** The conversation topic to follow. */
  topic: ConversationTopic;
  /** The client's `Last-Event-ID`; when usable, the stream replays from it instead of sending a snapshot. */
  lastEventId?: string | null;
  /**
   * The conversation's full state. The bus's last id is read just before this is called and
   * becomes the snapshot's id, so nothing published after that instant is lost. A function that
   * builds the snapshot before its first `await` makes the id exact; one that reads files may
   * already include a change that is then sent again (clients apply messages by id).
   */
  snapshot: () => Promise<ConversationSnapshot>;
  /**
   * What else the snapshot depends on that can change without an event on the bus (e.g. the
   * store's write counter of the conversation). A snapshot is reused by a later stream only when
   * both the bus's last event number and this value are unchanged.
   */
  snapshotVersion?: () => string | number;
  /** The request's signal: aborting it ends the stream and frees everything. */
  signal?: AbortSignal;
  /** Interval of `: ping` comments (default 15 s). */
  heartbeatMs?: number;
  /** How far behind a client may fall before it is closed (default 1000 events). */
  maxQueue?: number;
  /** Reconnect delay sent as `retry:` (default 2000 ms). */
  retryMs?: number;
  /** The bus the conversation's events are published on. */
  bus: Bus;
  /** Called once when the stream ends, with the reason (logging, tests). */
  onEnd?: (reason: EventStreamEnd) => void;
  /**
   * Frames of the stream's own beside the bus's events (presence, lib/presence/stream.ts): started
   * once the stream opens with a `send` that queues a frame at once (a few small ones, never
   * replayed) and a `close` that ends the stream (its viewer signed out); the function it
   * returns is called when the stream ends.
   */
  side?: (send: (bytes: Uint8Array) => void, close: () => void) => () => void;
}

/**
 * An SSE byte stream for one client: `: connected` and `retry:`, then either the events after a
 * usable `lastEventId` or a `snapshot` event, then live events, each exactly once and in order;
 * `: ping` comments every `heartbeatMs`. Subscribes before anything else, so nothing published
 * while the snapshot is being built is missed.
 */
export function createEventStream(options: EventStreamOptions): ReadableStream<Uint8Array> {
  const { topic, signal } = options;
  if (!isConversationTopic(topic)) throw new TypeError(`SSE streams follow conversation topics, not "${topic}"`);
  const { bus } = options;
  const maxQueue = Math.max(1, options.maxQueue ?? DEFAULT_MAX_QUEUE);
  const heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  const feed = Math.min(FEED_CHUNKS, maxQueue);

  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let unsubscribe: Unsubscribe | null = null;
  const snapshots = snapshotCacheFor(bus);
  let releaseSnapshot: (() => void) | null = null;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let stopSide: (() => void) | null = null;
  let ended = false;
  /** True once the snapshot (or the replay point) is settled; events flow only then. */
  let ready = false;
  /** Number of the last event handed to the consumer. */
  let cursor = 0;
  /** The bus's last number when the stream became ready: later events count toward overflow. */
  let liveFrom = 0;
  let pumping = false;
  let scheduled = false;
  /** Live-only events not yet handed to the consumer, oldest first (at most `maxQueue`). */
  const live: LiveEvent[] = [];

  const end = (reason: EventStreamEnd, closeStream: boolean) => {
    if (ended) return;
    ended = true;
    unsubscribe?.();
    unsubscribe = null;
    live.length = 0;
    releaseSnapshot?.();
    releaseSnapshot = null;
    clearInterval(heartbeat);
    stopSide?.();
    stopSide = null;
    signal?.removeEventListener("abort", onAbort);
    if (closeStream) {
      try {
        controller.close(); // chunks already queued still reach the client, then it reconnects
      } catch {
        /* already closed or cancelled by the consumer */
      }
    }
    options.onEnd?.(reason);
  };
  const onAbort = () => end("abort", true);

  /** Events in each chunk handed over (one unless a pass joined several), for the queue's size. */
  const eventsIn = new WeakMap<Uint8Array, number>();
  const enqueue = (bytes: Uint8Array, events = 1) => {
    try {
      if (events !== 1) eventsIn.set(bytes, events);
      controller.enqueue(bytes);
      return true;
    } catch {
      end("cancel", false); // the consumer went away between our checks
      return false;
    }
  };

  /**
   * Hands the consumer what is ready, as one chunk per pass: the frames of up to `room` events
   * (what the queue, sized in events, still takes) concatenated, so a burst costs one write.
   */
  const pump = () => {
    scheduled = false;
    if (!ready || ended || pumping) return;
    pumping = true;
    const out: Uint8Array[] = [];
    try {
      let room = controller.desiredSize ?? 0;
      while (room > 0) {
        // The numbered events published before the next live-only one go first.
        const following = live[0];
        const upTo = following ? following.after : Infinity;
        if (cursor < upTo) {
          const next = bus.eventsAfter(topic, cursor, Math.min(room, upTo - cursor));
          if ("gap" in next) {
            // What this client still needs was evicted: it must resync from a snapshot.
            out.push(encodeFrame(formatComment("resync")));
            if (enqueue(joined(out), out.length)) end("gap", true);
            return;
          }
          if (next.events.length > 0) {
            for (const message of next.events) {
              out.push(frameOf(message));
              cursor = message.seq;
            }
            room -= next.events.length;
            continue;
          }
        }
        if (!following) break;
        live.shift();
        out.push(frameOf(following));
        room--;
      }
      if (out.length && !enqueue(joined(out), out.length)) return;
    } finally {
      pumping = false;
    }
    const behind = bus.lastSeq(topic) - Math.max(cursor, liveFrom) + live.length;
    const queued = feed - (controller.desiredSize ?? 0);
    if (behind > 0 && behind + queued > maxQueue) {
      enqueue(encodeFrame(formatComment("overflow")));
      end("overflow", true);
    }
  };

  // Deferred so a burst of publishes costs the publisher a flag check per connection, and the
  // serialization, checks and write run once per turn of the event loop, however many steps
  // published in it.
  const schedule = () => {
    if (scheduled || ended) return;
    scheduled = true;
    setImmediate(pump);
  };

  /** What the subscription hands over: numbered events are read from the buffer, live-only ones queued. */
  const onMessage = (message: ConversationMessage) => {
    if (ended) return;
    if (message.seq === null) {
      // Text streamed before the snapshot is sent is not part of it, as for a viewer connecting
      // in the middle of a model call: the saved message will hold it. Keeping it would only let a
      // slow snapshot fill this stream's queue.
      if (!ready) return;
      if (live.length >= maxQueue) {
        // Not reading for this long: same as falling behind on numbered events.
        enqueue(encodeFrame(formatComment("overflow")));
        end("overflow", true);
        return;
      }
      live.push(message);
    }
    schedule();
  };

  const begin = () => {
    const replay = options.lastEventId ? bus.eventsSince(topic, options.lastEventId, 0) : null;
    if (replay && !("gap" in replay)) {
      cursor = replay.after;
      liveFrom = bus.lastSeq(topic);
      ready = true;
      pump();
      return;
    }
    // Read together: the stream's subscription holds the topic, so its numbering cannot change.
    const at = bus.lastSeq(topic);
    const id = bus.lastId(topic);
    const version = `${id}:${options.snapshotVersion?.() ?? ""}`;
    snapshots
      .frame(topic, version, async () => {
        const event: RuntimeEvent = { type: "snapshot", snapshot: await options.snapshot() };
        return encodeFrame(formatEvent(id, event));
      })
      .then(
        (frame) => {
          if (ended) return;
          if (!enqueue(frame)) return;
          cursor = at;
          liveFrom = at;
          ready = true;
          pump();
        },
        (error: unknown) => {
          if (ended) return;
          console.error(`[astrion] could not build the snapshot for ${topic}; closing the stream`, error);
          end("error", true);
        },
      );
  };

  return new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
        if (signal?.aborted) {
          ended = true;
          c.close();
          options.onEnd?.("abort");
          return;
        }
        // Subscribe first: from here on every event lands in the bus buffer (or our live queue) and wakes us.
        unsubscribe = bus.subscribe(topic, onMessage);
        releaseSnapshot = snapshots.hold(topic);
        signal?.addEventListener("abort", onAbort, { once: true });
        c.enqueue(encodeFrame(formatOpening(options.retryMs ?? DEFAULT_RETRY_MS)));
        if (heartbeatMs > 0) {
          heartbeat = setInterval(() => {
            // A full queue means the client is not reading; a ping would only add to it.
            if (!ended && (controller.desiredSize ?? 0) > 0) enqueue(PING_FRAME);
          }, heartbeatMs);
          // The heartbeat alone must not keep a process alive (tests, shutdown).
          (heartbeat as { unref?: () => void }).unref?.();
        }
        // Its frames bypass the pump: they are not numbered and follow no event. They are few and
        // small, and one dropped would leave the page wrong until the next, so they always queue.
        if (options.side) stopSide = options.side(
          (bytes) => {
            if (!ended) enqueue(bytes);
          },
          // The side ends the stream (its viewer was signed out): what is queued still goes out.
          () => queueMicrotask(() => end("closed", true)),
        );
        begin();
      },
      pull() {
        pump();
      },
      cancel() {
        end("cancel", false);
      },
    },
    // Sized in events, not chunks: a chunk that joins several counts as that many.
    { highWaterMark: feed, size: (chunk) => (chunk ? (eventsIn.get(chunk) ?? 1) : 1) },
  );
}
