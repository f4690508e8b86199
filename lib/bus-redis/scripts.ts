/**
 * What the Redis bus keeps in Redis and says on its channels: key and channel names, the Lua
 * scripts that change a topic's keys atomically, and the parsing of what comes back. Pure.
 *
 * A held conversation topic `conv:<id>` has, under the hash tag `{conv:<id>}`:
 * - `<prefix>{topic}:m`, a hash: `n` the numbering (the name of this life of the stream), `top`
 *   the position of its last entry;
 * - `<prefix>{topic}:s`, the stream: entry `<position>-0` with fields `t` (the event's tag) and
 *   `e` (the event as JSON), capped at about the replay window (`MAXLEN ~`);
 * - `<prefix>{topic}:h`, a sorted set of the processes holding it, scored by when their hold
 *   expires (each process renews its holds; a process that died drops out);
 * all three with a TTL renewed by every publish and renewal, so a topic nobody renews goes away.
 * The channel `<prefix>{topic}` carries, in the order the scripts ran, every entry added
 * (`{"k":"e",…}`), the live-only events (`{"k":"l",…}`, plain PUBLISH, never kept) and the marks of
 * joins (`{"k":"j",…}`). An agent topic is only a channel, `<prefix>{conv:<id>:agent:<n>}`.
 */
import type { RuntimeEvent } from "@/lib/contracts/events";
import { formatId } from "./ids";
import type { StreamEntry } from "./topic-copy";

/** The keys and channel of a topic. */
export interface TopicKeys {
  meta: string;
  stream: string;
  holders: string;
  channel: string;
}

/** The keys and channel of `topic` under `prefix`. */
export function topicKeys(prefix: string, topic: string): TopicKeys {
  const base = `${prefix}{${topic}}`;
  return { meta: `${base}:m`, stream: `${base}:s`, holders: `${base}:h`, channel: base };
}

/** Milliseconds of the server's clock, so that every process's holds expire on one clock. */
const NOW_MS = `local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)`;

/**
 * Adds an event to a topic's stream and announces it on the channel. A numbering is made when
 * there is none, but only by a holder (a process that publishes on a topic it does not hold adds
 * nothing to a topic nobody holds): named as the holder's copy is until it has joined one, and
 * afresh once it has (the stream it joined was lost: a flush or a restart of Redis). The event
 * goes at the end of whatever numbering is there; the announcement tells every copy where.
 *
 * KEYS: meta, stream, holders. ARGV: held (0/1), the copy's numbering, a fresh name, joined (0/1),
 * tag, event JSON, maxlen, ttl ms, channel, origin. Returns the position, or 0 when dropped.
 */
export const PUBLISH_SCRIPT = `local n = redis.call('HGET', KEYS[1], 'n')
if not n then
  if ARGV[1] == '0' then return 0 end
  if ARGV[4] == '1' then n = ARGV[3] else n = ARGV[2] end
  redis.call('DEL', KEYS[2])
  redis.call('HSET', KEYS[1], 'n', n, 'top', 0)
end
local top = redis.call('HINCRBY', KEYS[1], 'top', 1)
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[7], top .. '-0', 't', ARGV[5], 'e', ARGV[6])
if ARGV[1] == '1' then
  ${NOW_MS}
  redis.call('ZADD', KEYS[3], now + tonumber(ARGV[8]), ARGV[10])
end
for i = 1, 3 do redis.call('PEXPIRE', KEYS[i], ARGV[8]) end
redis.call('PUBLISH', ARGV[9], '{"k":"e","n":"' .. n .. '","s":' .. top .. ',"t":"' .. ARGV[5] .. '","e":' .. ARGV[6] .. '}')
return top`;

/**
 * Registers (or renews) this process's hold of a topic, making a numbering when there is none
 * (named as the copy is, or afresh once the copy has joined one or asks for a new one because
 * events published here never reached Redis). When the copy must learn something — a first join,
 * a forced one after a reconnect, another numbering than the copy's — it marks the channel with
 * the join's token (so the copy knows which announcements came before the read and which after)
 * and returns the numbering, the top and the latest entries, newest first; else `same`.
 *
 * KEYS: meta, stream, holders. ARGV: origin, the copy's numbering, a fresh name, joined (0/1),
 * force (0/1), renumber (0/1), ttl ms, channel, token, count.
 */
export const JOIN_SCRIPT = `${NOW_MS}
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
local n = redis.call('HGET', KEYS[1], 'n')
local made = false
if (not n) or (ARGV[6] == '1' and n == ARGV[2]) then
  if ARGV[4] == '1' or ARGV[6] == '1' then n = ARGV[3] else n = ARGV[2] end
  redis.call('DEL', KEYS[2])
  redis.call('HSET', KEYS[1], 'n', n, 'top', 0)
  made = true
end
redis.call('ZADD', KEYS[3], now + tonumber(ARGV[7]), ARGV[1])
for i = 1, 3 do redis.call('PEXPIRE', KEYS[i], ARGV[7]) end
if (not made) and ARGV[5] == '0' and n == ARGV[2] then return {'same'} end
local top = redis.call('HGET', KEYS[1], 'top')
redis.call('PUBLISH', ARGV[8], '{"k":"j","o":"' .. ARGV[1] .. '","j":"' .. ARGV[9] .. '","n":"' .. n .. '","s":' .. top .. '}')
return {'join', n, top, redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', ARGV[10])}`;

/**
 * Ends this process's hold; the last hold to go (expired ones do not count) deletes the topic,
 * so the next hold starts a new numbering. KEYS: meta, stream, holders. ARGV: origin.
 */
export const LEAVE_SCRIPT = `${NOW_MS}
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
if redis.call('ZCARD', KEYS[3]) == 0 then redis.call('DEL', KEYS[1], KEYS[2], KEYS[3]) end
return 1`;

/** What a topic's channel carries. */
export type ChannelMessage =
  | { k: "e"; n: string; s: number; t: string; e: RuntimeEvent }
  | { k: "l"; o: string; e: RuntimeEvent }
  | { k: "j"; o: string; j: string; n: string; s: number };

/** What an agent topic's channel carries: the wake-up's payload and who sent it. */
export interface WakeMessage {
  o: string;
  e?: unknown;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A channel message of a conversation topic, or null when it is none (logged by the caller). */
export function parseChannelMessage(text: string): ChannelMessage | null {
  let m: unknown;
  try {
    m = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isRecord(m)) return null;
  if (m.k === "e" && typeof m.n === "string" && Number.isSafeInteger(m.s) && typeof m.t === "string" && isRecord(m.e)) return m as ChannelMessage;
  if (m.k === "l" && typeof m.o === "string" && isRecord(m.e)) return m as ChannelMessage;
  if (m.k === "j" && typeof m.o === "string" && typeof m.j === "string" && typeof m.n === "string" && Number.isSafeInteger(m.s)) return m as ChannelMessage;
  return null;
}

/** A wake-up, or null when the text is none. */
export function parseWakeMessage(text: string): WakeMessage | null {
  try {
    const m: unknown = JSON.parse(text);
    return isRecord(m) && typeof m.o === "string" ? (m as unknown as WakeMessage) : null;
  } catch {
    return null;
  }
}

/** What a join read: the numbering, its top, the entries to keep (oldest first) and the id before them. */
export interface JoinRead {
  numbering: string;
  top: number;
  history: StreamEntry[];
  /** The id of the entry just before `history` when it was read; null when there is none. */
  boundaryId: string | null;
}

/** One `XREVRANGE` item, `[id, [field, value, …]]`, as an entry of `numbering`; null when malformed. */
function entryOf(numbering: string, item: unknown): StreamEntry | null {
  if (!Array.isArray(item) || typeof item[0] !== "string" || !Array.isArray(item[1])) return null;
  const position = Number(item[0].split("-")[0]);
  const fields = item[1] as unknown[];
  let tag: unknown;
  let json: unknown;
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (fields[i] === "t") tag = fields[i + 1];
    else if (fields[i] === "e") json = fields[i + 1];
  }
  if (!Number.isSafeInteger(position) || typeof tag !== "string" || typeof json !== "string") return null;
  try {
    return { numbering, position, tag, event: JSON.parse(json) as RuntimeEvent };
  } catch {
    return null;
  }
}

/**
 * The join script's answer: `same`, or what it read, keeping the latest `window` entries and
 * the id of the one before them (it asks for `window + 1`). Null when the answer is malformed.
 */
export function parseJoinReply(reply: unknown, window: number): JoinRead | "same" | null {
  if (!Array.isArray(reply)) return null;
  if (reply[0] === "same") return "same";
  const [kind, numbering, top, items] = reply as [unknown, unknown, unknown, unknown];
  const position = Number(top);
  if (kind !== "join" || typeof numbering !== "string" || !Number.isSafeInteger(position) || !Array.isArray(items)) return null;
  const entries: StreamEntry[] = [];
  for (const item of items) {
    const entry = entryOf(numbering, item);
    if (!entry) return null;
    entries.unshift(entry);
  }
  const extra = entries.length > window ? entries.shift()! : null;
  return { numbering, top: position, history: entries, boundaryId: extra ? formatId(numbering, extra.position, extra.tag) : null };
}
