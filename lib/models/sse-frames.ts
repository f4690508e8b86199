/**
 * A bound on one server-sent event of a streamed answer, before the `openai` SDK buffers it.
 *
 * The SDK (7.x, `iterSSEChunks` in core/streaming) keeps the unfinished event in a buffer that
 * grows without limit: an endpoint that sends one event without end would have the server hold
 * all of it. One event longer than {@link MAX_EVENT_BYTES} cannot carry part of an answer the
 * client takes (`MAX_ANSWER_CHARS`, each character at most 6 bytes in JSON), so the body ends
 * with {@link OversizeEvent} instead, and its connection is closed.
 *
 * The chunks are handed on as they came. (With the 6.x SDK this re-chunked the body at event
 * ends, because that SDK scanned an unfinished event again with each chunk, O(k × its size) for
 * an event of k chunks; 7.x looks at each byte once, and the re-chunking only cost CPU:
 * docs/dependencies.md.) A chunk that ends an event with none open before it, the usual case,
 * costs a comparison of two bytes; one inside a long event, a search for a line break; any other,
 * a search for its first and last event end.
 */
import type { Readable } from "node:stream";
import { MAX_ANSWER_CHARS } from "./stream";

/** Bytes of one server-sent event a model may send: every character of the largest answer escaped (`\u0000`), and room for its JSON. */
export const MAX_EVENT_BYTES = 6 * MAX_ANSWER_CHARS + 65_536;

/** A single server-sent event went past {@link MAX_EVENT_BYTES}. */
export class OversizeEvent extends Error {
  constructor(readonly limit: number) {
    super(`a server-sent event longer than ${limit} bytes`);
    this.name = "OversizeEvent";
  }
}

const LF = 0x0a;
const CR = 0x0d;
const EMPTY = Buffer.alloc(0);
/** An event's end, as the SDK reads one, and its length. */
const PATTERNS: ReadonlyArray<readonly [Buffer, number]> = [
  [Buffer.from("\n\n"), 2],
  [Buffer.from("\r\r"), 2],
  [Buffer.from("\r\n\r\n"), 4],
];

/** Whether `chunk` ends with an event's end `\n\n` or `\r\r` (one ending `\r\n\r\n` takes the longer way). */
function endsAnEvent(chunk: Buffer): boolean {
  const n = chunk.length;
  if (n < 2) return false;
  const a = chunk[n - 2];
  const b = chunk[n - 1];
  return (a === LF && b === LF) || (a === CR && b === CR);
}

/**
 * Where the first and the last event ends in `chunk` are (the index just past each), or null
 * when it has none. `tail` is what came just before `chunk` (its last 3 bytes), for an end that
 * straddles the two; an end wholly inside `tail` was looked for with the reads before.
 */
export function eventEnds(tail: Buffer, chunk: Buffer): { first: number; last: number } | null {
  // Every end finishes with a line break in `chunk`: a read inside a long event (its JSON escapes
  // line breaks) is passed over at memchr speed, with no copy.
  if (chunk.indexOf(LF) < 0 && chunk.indexOf(CR) < 0) return null;
  const joined = tail.length ? Buffer.concat([tail, chunk]) : chunk;
  let first = Infinity;
  let last = -1;
  for (const [pattern, length] of PATTERNS) {
    const at = joined.indexOf(pattern, Math.max(0, tail.length - length + 1));
    if (at < 0) continue;
    first = Math.min(first, at + length);
    last = Math.max(last, joined.lastIndexOf(pattern) + length);
  }
  return last < 0 ? null : { first: first - tail.length, last: last - tail.length };
}

/** The last (up to) 3 bytes of `tail` followed by `chunk`. */
function lastBytes(tail: Buffer, chunk: Buffer): Buffer {
  if (chunk.length >= 3) return chunk.subarray(chunk.length - 3);
  const joined = Buffer.concat([tail, chunk]);
  return joined.subarray(Math.max(0, joined.length - 3));
}

/**
 * `body` (a `text/event-stream` answer) as the SDK iterates it: the same chunks, failing with
 * {@link OversizeEvent} (and destroying `body`) once one event is longer than `maxEventBytes`.
 * Ending the iteration early (the SDK's cancel) destroys `body`, as the stream's own iterator does.
 */
export function boundedEvents(body: Readable, maxEventBytes: number = MAX_EVENT_BYTES): AsyncIterable<Buffer> {
  return {
    [Symbol.asyncIterator]() {
      const chunks = body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
      /** Bytes of the event not yet ended, and the last of them (an end may straddle two reads). */
      let open = 0;
      let tail: Buffer = EMPTY;
      const tooLong = () => {
        const error = new OversizeEvent(maxEventBytes);
        body.destroy(error);
        return error;
      };
      return {
        async next(): Promise<IteratorResult<Buffer>> {
          const read = await chunks.next();
          if (read.done) return read;
          const chunk = read.value;
          if (open === 0 && endsAnEvent(chunk) && chunk.length <= maxEventBytes) return read;
          const ends = eventEnds(tail, chunk);
          // The open event ends at the first end: it may not be longer than the limit.
          if (open + (ends?.first ?? chunk.length) > maxEventBytes) throw tooLong();
          if (ends) {
            open = chunk.length - ends.last;
            tail = open ? lastBytes(EMPTY, chunk.subarray(ends.last)) : EMPTY;
          } else {
            open += chunk.length;
            tail = lastBytes(tail, chunk);
          }
          return read;
        },
        async return(): Promise<IteratorResult<Buffer>> {
          return (await chunks.return?.()) ?? { done: true, value: undefined };
        },
      };
    },
  };
}
