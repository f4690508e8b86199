/**
 * A streamed answer's bytes handed to the `openai` SDK in chunks that end where a server-sent
 * event ends.
 *
 * The SDK (6.x, `iterSSEChunks` in core/streaming) keeps the unfinished event it holds in one
 * array: every chunk that arrives is copied in with all it holds (a new array each time) and the
 * whole of it is scanned again for an event's end. An event that arrives in k chunks so costs
 * O(k × its size) of the event loop: a model's `write_file` of 1,000,000 newlines (one 2 MB event,
 * about 40 socket reads) held it 40 ms in that scan in `test/event-loop.test.ts`, and an event
 * of tens of megabytes would hold it for seconds. Here each byte is looked at once: the bytes of
 * an unfinished event are kept aside and given to the SDK with the chunk that finishes it, so the
 * SDK finds every end in one pass and holds at most a few bytes between chunks.
 *
 * Any split of a byte stream is a valid one for the SDK, whose parser is left to read events;
 * this only moves where chunks end. One event longer than {@link MAX_EVENT_BYTES} cannot carry
 * part of an answer the client takes (`MAX_ANSWER_CHARS`, each character at most 6 bytes in
 * JSON): the body ends with {@link OversizeEvent} instead of growing without end.
 */
import { Transform, type TransformCallback } from "node:stream";
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

/** The last (up to) 3 bytes of `chunks`. */
function tailOf(chunks: Buffer[]): Buffer {
  const parts: Buffer[] = [];
  let want = 3;
  for (let i = chunks.length - 1; i >= 0 && want > 0; i--) {
    const c = chunks[i]!;
    parts.unshift(c.subarray(Math.max(0, c.length - want)));
    want -= Math.min(want, c.length);
  }
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
}

/** A transform re-chunking a `text/event-stream` body at event ends; see the module comment. */
export function eventFrames(maxEventBytes: number = MAX_EVENT_BYTES): Transform {
  let held: Buffer[] = [];
  let heldBytes = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
      // The usual case: a whole event (or several) per read, nothing held.
      if (heldBytes === 0 && endsAnEvent(chunk) && chunk.length <= maxEventBytes) return done(null, chunk);
      const ends = eventEnds(tailOf(held), chunk);
      // The event held so far ends at the first end: it may not be longer than the limit.
      if (heldBytes + (ends?.first ?? chunk.length) > maxEventBytes) return done(new OversizeEvent(maxEventBytes));
      if (!ends) {
        held.push(chunk);
        heldBytes += chunk.length;
        return done();
      }
      const end = ends.last;
      const out = heldBytes ? Buffer.concat([...held, chunk.subarray(0, end)], heldBytes + end) : chunk.subarray(0, end);
      held = end < chunk.length ? [chunk.subarray(end)] : [];
      heldBytes = chunk.length - end;
      done(null, out);
    },
    flush(done: TransformCallback) {
      done(null, heldBytes ? Buffer.concat(held, heldBytes) : undefined);
    },
  });
}
