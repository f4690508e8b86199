import "server-only";
/**
 * The in-process event bus. The runtime publishes every change of a conversation on its
 * conversation topic; each SSE connection subscribes to it. Publishing is synchronous and never
 * waits for anyone, so a slow browser can never slow an agent down.
 *
 * Conversation-topic events are numbered per topic and kept in a ring buffer, so a client that
 * reconnects with `Last-Event-ID` is replayed exactly what it missed. Ids are
 * `<bootId>-<seq>`: the boot id is random per process, so an id handed out before a restart is
 * recognized as foreign (the numbering restarted) instead of silently replaying the wrong events.
 */
import { randomBytes } from "node:crypto";
import type { RuntimeEvent } from "@/lib/runtime/events";
import { isConversationTopic, type AgentTopic, type ConversationTopic } from "./topics";

/** How many events of each conversation topic are kept for replay by default. */
export const DEFAULT_BUFFER_SIZE = 5000;

/** An event published on a conversation topic, with its number and SSE id. */
export interface NumberedEvent<E = RuntimeEvent> {
  readonly topic: string;
  /** 1, 2, 3… per topic since this process started. */
  readonly seq: number;
  /** `<bootId>-<seq>`, sent as the SSE `id:`. */
  readonly id: string;
  readonly event: E;
}

/** An event published on any other topic (agent wake-ups): not numbered, not kept. */
export interface PlainEvent<E = unknown> {
  readonly topic: string;
  readonly seq: null;
  readonly id: null;
  readonly event: E;
}

/** Anything the bus delivers. */
export type BusMessage = NumberedEvent<unknown> | PlainEvent;

/** Stops a subscription; calling it again does nothing. */
export type Unsubscribe = () => void;

/** What {@link EventBus.eventsSince} answers: the events after the id, or that they are lost. */
export type ReplayResult = { events: NumberedEvent[] } | { gap: true };

/** Options of a new bus (tests make small ones; the server uses {@link getBus}). */
export interface EventBusOptions {
  /** Events kept per conversation topic (default {@link DEFAULT_BUFFER_SIZE}). */
  bufferSize?: number;
  /** Fixed boot id, for tests; random otherwise. */
  bootId?: string;
}

const EVENT_ID = /^([0-9a-z]+)-(0|[1-9]\d{0,15})$/;

/** Splits an SSE id `<bootId>-<seq>`; null when it is not one. */
export function parseEventId(id: string): { bootId: string; seq: number } | null {
  const match = EVENT_ID.exec(id.trim());
  if (!match) return null;
  const seq = Number(match[2]);
  return Number.isSafeInteger(seq) ? { bootId: match[1]!, seq } : null;
}

/** Fixed-capacity buffer of a topic's latest events; the oldest is overwritten when full. */
class Ring {
  readonly #items: NumberedEvent<unknown>[] = [];
  #start = 0;

  constructor(readonly capacity: number) {}

  get length(): number {
    return this.#items.length;
  }

  push(item: NumberedEvent<unknown>): void {
    if (this.#items.length < this.capacity) {
      this.#items.push(item);
      return;
    }
    this.#items[this.#start] = item;
    this.#start = (this.#start + 1) % this.capacity;
  }

  /** The i-th oldest item kept. */
  at(i: number): NumberedEvent<unknown> {
    return this.#items[(this.#start + i) % this.capacity]!;
  }
}

interface TopicState {
  listeners: Set<(message: BusMessage) => void>;
  /** Only conversation topics keep numbering and a buffer. */
  seq: number;
  ring: Ring | null;
}

/** An in-process publish/subscribe bus. One per process: use {@link getBus}. */
export class EventBus {
  /** Random per process start; the prefix of every event id. */
  readonly bootId: string;
  readonly bufferSize: number;
  readonly #topics = new Map<string, TopicState>();

  constructor(options: EventBusOptions = {}) {
    this.bootId = options.bootId ?? randomBytes(8).toString("hex");
    if (!/^[0-9a-z]+$/.test(this.bootId)) throw new TypeError("bootId must be lowercase letters and digits");
    this.bufferSize = options.bufferSize ?? DEFAULT_BUFFER_SIZE;
    if (!Number.isSafeInteger(this.bufferSize) || this.bufferSize < 1) throw new TypeError("bufferSize must be a positive integer");
  }

  #state(topic: string): TopicState {
    let state = this.#topics.get(topic);
    if (!state) {
      state = { listeners: new Set(), seq: 0, ring: isConversationTopic(topic) ? new Ring(this.bufferSize) : null };
      this.#topics.set(topic, state);
    }
    return state;
  }

  /**
   * Delivers `event` to every current subscriber of `topic`, synchronously, and returns it as
   * delivered. On a conversation topic it is numbered and kept for replay first, so a listener
   * (or a client connecting from inside one) already finds it in the buffer. A listener that
   * throws is logged and skipped; the others and the publisher carry on.
   */
  publish(topic: ConversationTopic, event: RuntimeEvent): NumberedEvent;
  publish(topic: AgentTopic, event?: unknown): PlainEvent;
  publish(topic: string, event?: unknown): BusMessage;
  publish(topic: string, event?: unknown): BusMessage {
    const state = this.#state(topic);
    let message: BusMessage;
    if (state.ring) {
      state.seq += 1;
      const numbered: NumberedEvent<unknown> = { topic, seq: state.seq, id: `${this.bootId}-${state.seq}`, event };
      state.ring.push(numbered);
      message = numbered;
    } else {
      message = { topic, seq: null, id: null, event };
    }
    if (state.listeners.size === 0) {
      if (!state.ring) this.#topics.delete(topic); // plain topics hold nothing worth keeping
      return message;
    }
    // A copy, so a listener that (un)subscribes while being called does not disturb this round.
    for (const listener of [...state.listeners]) {
      try {
        listener(message);
      } catch (error) {
        console.error(`[astrion] a listener of ${topic} threw; the event still reached the others`, error);
      }
    }
    return message;
  }

  /** Calls `listener` with every event published on `topic` from now on, until unsubscribed. */
  subscribe(topic: ConversationTopic, listener: (message: NumberedEvent) => void): Unsubscribe;
  subscribe(topic: AgentTopic, listener: (message: PlainEvent) => void): Unsubscribe;
  subscribe(topic: string, listener: (message: BusMessage) => void): Unsubscribe;
  subscribe(topic: string, listener: (message: never) => void): Unsubscribe {
    const state = this.#state(topic);
    // Wrapped so the same function subscribed twice counts (and unsubscribes) twice.
    const entry = (message: BusMessage) => (listener as (m: BusMessage) => void)(message);
    state.listeners.add(entry);
    return () => {
      state.listeners.delete(entry);
      if (state.listeners.size === 0 && !state.ring && this.#topics.get(topic) === state) this.#topics.delete(topic);
    };
  }

  /** How many listeners `topic` has (for tests and health figures). */
  subscriberCount(topic: string): number {
    return this.#topics.get(topic)?.listeners.size ?? 0;
  }

  /** The number of the last event published on a conversation topic (0 before any). */
  lastSeq(topic: ConversationTopic): number {
    return this.#topics.get(topic)?.seq ?? 0;
  }

  /** The id of the last event published on a conversation topic (`<bootId>-0` before any). */
  lastId(topic: ConversationTopic): string {
    return `${this.bootId}-${this.lastSeq(topic)}`;
  }

  /**
   * The events of a conversation topic after the one numbered `seq`, oldest first, at most
   * `limit` of them. `{ gap: true }` when some of them are no longer kept, or when `seq` is
   * beyond the last event (a number from a numbering that no longer exists).
   */
  eventsAfter(topic: ConversationTopic, seq: number, limit = Infinity): ReplayResult {
    const state = this.#topics.get(topic);
    const last = state?.seq ?? 0;
    if (!Number.isSafeInteger(seq) || seq < 0 || seq > last) return { gap: true };
    if (seq === last) return { events: [] };
    const ring = state?.ring;
    if (!ring) return { gap: true };
    const first = last - ring.length + 1;
    if (seq + 1 < first) return { gap: true };
    const events: NumberedEvent[] = [];
    const end = Math.min(last, seq + Math.max(0, limit));
    for (let s = seq + 1; s <= end; s++) events.push(ring.at(s - first) as NumberedEvent); // conversation topics carry RuntimeEvents
    return { events };
  }

  /**
   * What a client that last saw `lastEventId` missed on a conversation topic. `{ gap: true }`
   * when there is no id, it is malformed, it comes from another process start, or the events
   * after it are no longer kept: the client must then start again from a snapshot.
   */
  eventsSince(topic: ConversationTopic, lastEventId: string | null | undefined, limit?: number): ReplayResult {
    const parsed = lastEventId ? parseEventId(lastEventId) : null;
    if (!parsed || parsed.bootId !== this.bootId) return { gap: true };
    return this.eventsAfter(topic, parsed.seq, limit);
  }
}

const BUS_KEY = Symbol.for("astrion.bus");

/**
 * The process's bus. Kept on globalThis because Next bundles each route (and instrumentation)
 * separately: the runtime and every SSE route must share one instance, not one per bundle.
 */
export function getBus(): EventBus {
  const g = globalThis as unknown as Record<symbol, EventBus | undefined>;
  return (g[BUS_KEY] ??= new EventBus());
}
