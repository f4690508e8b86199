/**
 * Timestamps and ids in the seed's formats. Pure: no I/O, so it needs no "server-only" guard.
 */
import { CONVERSATION_ID_PATTERN } from "@/lib/contracts/on-disk";

function pad(n: number, width = 2): string {
  return String(n).padStart(width, "0");
}

/**
 * ISO local time with seconds and no zone, as the seed writes `created_at` / `updated_at`
 * (`2026-07-11T21:00:00`).
 */
export function localTimestamp(date: Date = new Date()): string {
  // Every change of a file stamps `updated_at`; the local-time fields cost a zone lookup each, so
  // the text of the current second is kept.
  const second = Math.floor(date.getTime() / 1000);
  if (second === lastStamp.second) return lastStamp.text;
  const text =
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
  lastStamp = { second, text };
  return text;
}

let lastStamp = { second: Number.NaN, text: "" };

/** Local time as `YYYYMMDDHHMMSS`, used in the names of files moved aside (`index.json.corrupt-…`). */
export function compactTimestamp(date: Date = new Date()): string {
  return (
    `${date.getFullYear()}${pad(date.getMonth() + 1)}${pad(date.getDate())}` +
    `${pad(date.getHours())}${pad(date.getMinutes())}${pad(date.getSeconds())}`
  );
}

/** Seconds since the epoch as a float, like Python's `time.time()` (seed `pending_messages[].created_at`). */
export function epochSeconds(date: Date = new Date()): number {
  return date.getTime() / 1000;
}

/** The `conv_YYYYMMDD_HHMMSS` part of every conversation id created in the second of `date` (local time). */
export function conversationIdPrefix(date: Date = new Date()): string {
  return (
    `conv_${date.getFullYear()}${pad(date.getMonth() + 1)}${pad(date.getDate())}` +
    `_${pad(date.getHours())}${pad(date.getMinutes())}${pad(date.getSeconds())}`
  );
}

/** Highest sequence number a conversation id may carry (the id pattern allows up to six digits). */
export const MAX_CONVERSATION_SEQ = 999_999;

/**
 * The conversation id `conv_YYYYMMDD_HHMMSS_NNN` for the `seq`-th conversation created in the
 * second of `date` (local time). `seq` starts at 1 and is written with at least three digits.
 * Uniqueness is not decided here: the store claims an id by creating its folder.
 */
export function newConversationId(date: Date = new Date(), seq = 1): string {
  if (!Number.isInteger(seq) || seq < 1 || seq > MAX_CONVERSATION_SEQ) {
    throw new RangeError(`conversation sequence number out of range: ${seq}`);
  }
  return `${conversationIdPrefix(date)}_${pad(seq, 3)}`;
}

/**
 * Orders conversation ids by creation: by their date-time part, then numerically by sequence
 * (so `_1000` comes after `_999`). Ids that do not fit the pattern sort first, by plain comparison.
 */
export function compareConversationIds(a: string, b: string): number {
  const ma = CONVERSATION_ID_PATTERN.test(a);
  const mb = CONVERSATION_ID_PATTERN.test(b);
  if (ma && mb) {
    const prefixA = a.slice(0, 20);
    const prefixB = b.slice(0, 20);
    if (prefixA !== prefixB) return prefixA < prefixB ? -1 : 1;
    return Number(a.slice(21)) - Number(b.slice(21));
  }
  if (ma !== mb) return ma ? 1 : -1;
  return a < b ? -1 : a > b ? 1 : 0;
}
