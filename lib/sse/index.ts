/**
 * Public face of server-sent events: the per-client stream, its framing, the caps on open
 * streams, the shared snapshot frames and the response headers every SSE route answers with.
 * Server only.
 */
import "server-only";

export { createEventStream } from "./event-stream";
export { STREAM_RETRY_AFTER_SECONDS, StreamSlots, streamLimitsFromEnv } from "./limits";
export { snapshotCacheFor } from "./snapshot-cache";

/**
 * Headers of every SSE answer: no caching and no transformation (a compressing proxy would hold
 * events back), no buffering by nginx-style proxies, and a connection kept open.
 */
export const SSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
  connection: "keep-alive",
});
