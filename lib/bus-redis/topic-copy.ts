/**
 * This process's copy of one held conversation topic of the Redis bus: the numbering it follows,
 * the latest events (the replay window, read synchronously by the SSE streams), and the events
 * published here that Redis has not yet given back. Pure: the bus feeds it what it publishes and
 * what Redis streams, and delivers what it returns.
 *
 * Two counts. The *position* of an event is its entry in the topic's Redis stream, the same in
 * every process, and is what its id names (./ids.ts). Its *seq* (`NumberedEvent.seq`, the cursor
 * of an SSE stream here) is this copy's count: position + offset. They are equal until the copy
 * has to be *reset*: when Redis says something else than this copy assumed (another numbering,
 * an entry it never got, another process's event where it had put one of its own). A reset starts
 * the seqs one past a hole, so every cursor an SSE stream holds from before answers a gap (it
 * resyncs from a snapshot) while new streams read on from the new numbering; nothing it was
 * told is matched against events it was not.
 */
import type { RuntimeEvent } from "@/lib/contracts/events";
import type { LiveEvent, NumberedEvent, ReplayResult } from "@/lib/bus";
import { formatId, parseId, POSITION_TAG } from "./ids";

/** Events published here that a copy keeps waiting for Redis to give back, at least. */
const MAX_UNCONFIRMED = 10_000;

/** An entry of a topic's Redis stream, as the feed (or a join's read) hands it over. */
export interface StreamEntry {
  numbering: string;
  position: number;
  tag: string;
  event: RuntimeEvent;
}

/** Fixed-capacity buffer of the latest events; returns what falls out. */
class Ring {
  #items: NumberedEvent[] = [];
  #start = 0;

  constructor(readonly capacity: number) {}

  get length(): number {
    return this.#items.length;
  }

  push(item: NumberedEvent): NumberedEvent | null {
    if (this.#items.length < this.capacity) {
      this.#items.push(item);
      return null;
    }
    const out = this.#items[this.#start]!;
    this.#items[this.#start] = item;
    this.#start = (this.#start + 1) % this.capacity;
    return out;
  }

  at(i: number): NumberedEvent {
    return this.#items[(this.#start + i) % this.capacity]!;
  }

  clear(): void {
    this.#items = [];
    this.#start = 0;
  }
}

/** One held topic's numbering and replay window in this process. */
export class TopicCopy {
  #numbering: string;
  /** seq = position + offset. */
  #offset = 0;
  readonly #ring: Ring;
  /** Seq of the last event kept (or of the position before the first one). */
  #last = 0;
  /** Id at seq `first - 1` when known (an event fallen out of the window); else its position's id. */
  #boundaryId: string | null = null;
  /** Position of the last entry of the stream this copy has (Redis said so). */
  #confirmed = 0;
  /** Events published here, kept and delivered, at the positions they expect; oldest first. */
  #pending: NumberedEvent[] = [];

  constructor(
    readonly topic: string,
    numbering: string,
    capacity: number,
  ) {
    this.#numbering = numbering;
    this.#ring = new Ring(capacity);
  }

  /** The numbering this copy follows. */
  get numbering(): string {
    return this.#numbering;
  }

  /** Events kept for replay. */
  get buffered(): number {
    return this.#ring.length;
  }

  /** The position of the last entry of the stream this copy has from Redis. */
  get position(): number {
    return this.#confirmed;
  }

  /** Events published here that Redis has not given back yet. */
  get unconfirmed(): number {
    return this.#pending.length;
  }

  /** The seq of the last event (the count before any). */
  get lastSeq(): number {
    return this.#last;
  }

  /** The id a snapshot taken now carries. */
  get lastId(): string {
    return this.#idAt(this.#last)!;
  }

  /**
   * Keeps an event published in this process, at the position it expects (after those it has
   * and those it published before), and returns it as delivered. `tag` names it (./ids.ts).
   */
  addLocal(event: RuntimeEvent, tag: string): NumberedEvent {
    const position = this.#confirmed + this.#pending.length + 1;
    const message = this.#keep(formatId(this.#numbering, position, tag), event);
    // Bounded (Redis away for long): the oldest one forgotten will not match when Redis gives
    // it back, and the copy resets then. Far above any burst published within a round trip.
    if (this.#pending.length >= Math.max(4 * this.#ring.capacity, MAX_UNCONFIRMED)) this.#pending.shift();
    this.#pending.push(message);
    return message;
  }

  /** A live-only event, to be sent after the last numbered one. */
  live(event: RuntimeEvent): LiveEvent {
    return { topic: this.topic, seq: null, after: this.#last, id: this.lastId, live: true, event };
  }

  /**
   * Takes in the stream's next entry (the feed hands them over in stream order) and returns the
   * event to deliver to this process's subscribers: null for one it has (its own, given back, or
   * one it read already). An entry that does not follow what it has resets it first.
   */
  apply(entry: StreamEntry): NumberedEvent | null {
    if (entry.numbering === this.#numbering && entry.position <= this.#confirmed) return null;
    if (entry.numbering !== this.#numbering || entry.position > this.#confirmed + 1) {
      // Another numbering, or entries missed: what this copy holds cannot be matched with it.
      this.reset(entry.numbering, entry.position - 1, null);
      return this.#take(entry);
    }
    const id = formatId(entry.numbering, entry.position, entry.tag);
    const mine = this.#pending[0];
    if (mine?.id === id) {
      this.#pending.shift();
      this.#confirmed = entry.position;
      return null;
    }
    // Another process's event took the position one of ours expected: ours are further on.
    if (mine) this.reset(this.#numbering, this.#confirmed, this.#idAtPosition(this.#confirmed));
    return this.#take(entry);
  }

  /**
   * What another process's join said the stream is now: `numbering`, `top` entries. Redis sends
   * every entry before it first, so a copy that is behind it, or follows another numbering,
   * missed something (or the stream was made anew): it resets there.
   */
  follow(numbering: string, top: number): void {
    if (numbering !== this.#numbering || top > this.#confirmed) this.reset(numbering, top, null);
  }

  /**
   * Follows `numbering` from the position `base` on (`boundaryId`: that position's event id,
   * when known), past a hole in the seqs, forgetting every event kept and every one of its own
   * Redis has not given back. `history`: the stream's entries after `base`, oldest first,
   * kept for replay but not returned for delivery (subscribers here resync instead).
   */
  reset(numbering: string, base: number, boundaryId: string | null, history: StreamEntry[] = []): void {
    this.#offset = this.#last + 1 - base;
    this.#last += 1;
    this.#numbering = numbering;
    this.#ring.clear();
    this.#pending = [];
    this.#confirmed = base;
    this.#boundaryId = boundaryId;
    for (const entry of history) if (entry.position === this.#confirmed + 1) this.#take(entry);
  }

  /** The events after seq `seq`, at most `limit`, oldest first; a gap when some are not kept. */
  eventsAfter(seq: number, limit = Infinity): ReplayResult {
    const last = this.#last;
    if (!Number.isSafeInteger(seq) || seq < 0 || seq > last) return { gap: true };
    if (seq === last) return { events: [], after: seq };
    const first = last - this.#ring.length + 1;
    if (seq + 1 < first) return { gap: true };
    const events: NumberedEvent[] = [];
    const end = Math.min(last, seq + Math.max(0, limit));
    for (let s = seq + 1; s <= end; s++) events.push(this.#ring.at(s - first));
    return { events, after: seq };
  }

  /**
   * What a client that last saw `id` missed. The id must name this numbering and either be the
   * id of the event this copy has at its position, or a bare position this copy has from Redis.
   */
  eventsSince(id: string | null | undefined, limit?: number): ReplayResult {
    const parsed = id ? parseId(id) : null;
    if (!parsed || parsed.numbering !== this.#numbering) return { gap: true };
    const seq = parsed.position + this.#offset;
    const known = this.#idAt(seq);
    const positionKnown = parsed.tag === POSITION_TAG && parsed.position <= this.#confirmed && known !== null;
    if (known !== id!.trim() && !positionKnown) return { gap: true };
    return this.eventsAfter(seq, limit);
  }

  /** Keeps the entry as the next event of the stream and returns it as delivered. */
  #take(entry: StreamEntry): NumberedEvent {
    this.#confirmed = entry.position;
    return this.#keep(formatId(entry.numbering, entry.position, entry.tag), entry.event);
  }

  #keep(id: string, event: RuntimeEvent): NumberedEvent {
    this.#last += 1;
    const message: NumberedEvent = { topic: this.topic, seq: this.#last, id, event };
    const out = this.#ring.push(message);
    if (out) this.#boundaryId = out.id;
    return message;
  }

  /** The id at seq `seq`: of the event kept there, of the one just before the window, or null. */
  #idAt(seq: number): string | null {
    const first = this.#last - this.#ring.length + 1;
    if (seq >= first && seq <= this.#last) return this.#ring.at(seq - first).id;
    if (seq === first - 1) return this.#boundaryId ?? formatId(this.#numbering, seq - this.#offset);
    return null;
  }

  #idAtPosition(position: number): string | null {
    return this.#idAt(position + this.#offset);
  }
}
