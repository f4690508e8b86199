/**
 * Server-sent events framing (WHATWG HTML §9.2). Every event is the default `message` type with an
 * `id:` and one `data:` line holding the RuntimeEvent's JSON (whose `type` tells events apart). The
 * id is the event's number; a live-only event (streamed text, never kept) carries the id of the
 * numbered event it follows. JSON.stringify escapes CR and LF, so one `data:` line always
 * suffices. Pure.
 */
import type { RuntimeEvent } from "@/lib/contracts/events";

const encoder = new TextEncoder();

/** How long a browser waits before reconnecting, sent once at the start of every stream. */
export const DEFAULT_RETRY_MS = 2000;

/** The text of one event: `id: <id>\ndata: <json>\n\n`. */
export function formatEvent(id: string, event: RuntimeEvent): string {
  if (/[\r\n\0]/.test(id)) throw new TypeError("An SSE id cannot contain CR, LF or NUL");
  return `id: ${id}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** A comment line (ignored by EventSource; keeps proxies and idle timers from closing the stream). */
export function formatComment(text: string): string {
  return `: ${text.replace(/[\r\n]+/g, " ")}\n\n`;
}

/** The opening of every stream: a comment that flushes headers at once, and the reconnect delay. */
export function formatOpening(retryMs: number = DEFAULT_RETRY_MS): string {
  return `${formatComment("connected")}retry: ${Math.max(0, Math.floor(retryMs))}\n\n`;
}

/** UTF-8 bytes of a frame. */
export function encodeFrame(text: string): Uint8Array {
  return encoder.encode(text);
}

/** The heartbeat, encoded once: every connection sends the same bytes. */
export const PING_FRAME: Uint8Array = encodeFrame(formatComment("ping"));

/**
 * Encoded frames of published events, shared by every connection that sends them, so a
 * conversation watched from three tabs serializes each event once. Weak: it lives as long as
 * the bus keeps the event (a live-only event: as long as a stream still queues it).
 */
const frames = new WeakMap<object, Uint8Array>();

/** The encoded frame of a published event (cached per event object). */
export function frameOf(message: { readonly id: string; readonly event: RuntimeEvent }): Uint8Array {
  let bytes = frames.get(message);
  if (!bytes) {
    bytes = encodeFrame(formatEvent(message.id, message.event));
    frames.set(message, bytes);
  }
  return bytes;
}
