/**
 * The SSE ids of the Redis bus, and the random names it makes. Pure.
 *
 * An id is `<numbering>-<position>-<tag>`: the numbering is the name of one life of a topic's
 * Redis stream (a new one after the stream was deleted, flushed or lost), the position is the
 * event's entry in that stream (entry id `<position>-0`), and the tag names the event itself (the
 * publishing process and its count), so an id a process handed out before Redis told it the
 * event's real position never matches another event's id. The tag `p` names a bare position
 * ("after entry N of this numbering") — the id of a snapshot taken where no event is known.
 */
import { randomBytes } from "node:crypto";

/** The tag of an id that names a position, not an event. */
export const POSITION_TAG = "p";

const ID = /^([0-9a-z]{4,32})-(0|[1-9]\d{0,15})-([0-9a-z]{1,48})$/;

/** A parsed SSE id of the Redis bus. */
export interface ParsedRedisId {
  numbering: string;
  position: number;
  tag: string;
}

/** The id of the event at `position` of `numbering` tagged `tag` (or of the bare position). */
export function formatId(numbering: string, position: number, tag: string = POSITION_TAG): string {
  return `${numbering}-${position}-${tag}`;
}

/** Splits an id; null when it is not one of this bus. */
export function parseId(id: string): ParsedRedisId | null {
  const match = ID.exec(id.trim());
  if (!match) return null;
  const position = Number(match[2]);
  return Number.isSafeInteger(position) ? { numbering: match[1]!, position, tag: match[3]! } : null;
}

/** `bytes` random bytes as lowercase base 36 (letters and digits only, as ids need). */
function randomName(bytes: number): string {
  return BigInt(`0x${randomBytes(bytes).toString("hex")}`).toString(36);
}

/** A new numbering name: 12 characters or so, never the length of a process's tag prefix. */
export function newNumbering(): string {
  return `n${randomName(8).padStart(12, "0")}`;
}

/** A new process (origin) name, the prefix of the tags of the events this process publishes. */
export function newOrigin(): string {
  return `o${randomName(5).padStart(8, "0")}`;
}
