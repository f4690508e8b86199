import "server-only";
/**
 * The in-process event bus, the default implementation of the bus port (./port.ts). The runtime
 * publishes every change of a conversation on its conversation topic; each SSE connection
 * subscribes to it. Publishing is synchronous and never waits for anyone, so a slow browser can
 * never slow an agent down.
 *
 * A conversation topic has state (subscribers, numbering, a ring buffer of its latest numbered
 * events for `Last-Event-ID` replay) only while it is held: by a subscriber or a {@link
 * EventBus.retain} hold. When the last one lets go, the state is dropped, so a conversation
 * nobody watches and nothing runs costs nothing here. Ids are `<bootId>-<epoch>-<seq>`: the boot
 * id is random per process and the epoch is new each time a topic's state is created, so an id
 * from before a restart or a release is recognized as foreign (the client gets a snapshot)
 * instead of silently replaying unrelated events. Live-only events (streamed text) are delivered
 * to the current subscribers and never numbered or kept.
 */
import { randomBytes } from "node:crypto";
import { isLiveOnlyEvent, type RuntimeEvent } from "@/lib/contracts/events";
import type { Bus, BusMessage, BusStats, ConversationMessage, LiveEvent, NumberedEvent, PlainEvent, ReplayResult, Unsubscribe } from "./port";
import { isConversationTopic, type AgentTopic, type ConversationTopic } from "./topics";

export type { BusMessage, BusStats, ConversationMessage, PlainEvent, ReplayResult, Unsubscribe } from "./port";

/** How many numbered events of each held conversation topic are kept for replay by default. */
const DEFAULT_BUFFER_SIZE = 5000;

/** Options of a new bus (tests make small ones; the server makes one, in lib/server/app.ts). */
export interface EventBusOptions {
  /** Numbered events kept per held conversation topic (default {@link DEFAULT_BUFFER_SIZE}). */
  bufferSize?: number;
  /** Fixed boot id, for tests; random otherwise. */
  bootId?: string;
}

const EVENT_ID = /^([0-9a-z]+)-([1-9]\d{0,15})-(0|[1-9]\d{0,15})$/;

/** Splits an SSE id `<bootId>-<epoch>-<seq>`; null when it is not one. */
export function parseEventId(id: string): { bootId: string; epoch: number; seq: number } | null {
  const match = EVENT_ID.exec(id.trim());
  if (!match) return null;
  const epoch = Number(match[2]);
  const seq = Number(match[3]);
  return Number.isSafeInteger(epoch) && Number.isSafeInteger(seq) ? { bootId: match[1]!, epoch, seq } : null;
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
  /** {@link EventBus.retain} holds (conversation topics only). */
  holds: number;
  /** `<bootId>-<epoch>`: names this numbering of a conversation topic ('' for agent topics). */
  stream: string;
  seq: number;
  /** Only conversation topics keep a buffer. */
  ring: Ring | null;
}

/** An in-process publish/subscribe bus. One per process, made by the composition root. */
export class EventBus implements Bus {
  /** Random per process start; the prefix of every event id. */
  readonly bootId: string;
  readonly bufferSize: number;
  readonly #topics = new Map<string, TopicState>();
  /** Numbers the states a conversation topic goes through (never reused in this process). */
  #epochs = 0;

  constructor(options: EventBusOptions = {}) {
    this.bootId = options.bootId ?? randomBytes(8).toString("hex");
    if (!/^[0-9a-z]+$/.test(this.bootId)) throw new TypeError("bootId must be lowercase letters and digits");
    this.bufferSize = options.bufferSize ?? DEFAULT_BUFFER_SIZE;
    if (!Number.isSafeInteger(this.bufferSize) || this.bufferSize < 1) throw new TypeError("bufferSize must be a positive integer");
  }

  /** The topic's state, created (with a new numbering for a conversation topic) when absent. */
  #hold(topic: string): TopicState {
    let state = this.#topics.get(topic);
    if (!state) {
      const conversation = isConversationTopic(topic);
      state = {
        listeners: new Set(),
        holds: 0,
        stream: conversation ? `${this.bootId}-${++this.#epochs}` : "",
        seq: 0,
        ring: conversation ? new Ring(this.bufferSize) : null,
      };
      this.#topics.set(topic, state);
    }
    return state;
  }

  /** Drops a topic's state once nothing holds it. */
  #letGo(topic: string, state: TopicState): void {
    if (state.listeners.size === 0 && state.holds === 0 && this.#topics.get(topic) === state) this.#topics.delete(topic);
  }

  /**
   * Delivers `event` to every current subscriber of `topic`, synchronously, and returns it as
   * delivered (null when nobody holds the topic: there is no one to deliver to or keep it for).
   * A numbered event is kept for replay first, so a listener (or a client connecting from inside
   * one) already finds it in the buffer. A listener that throws is logged and skipped; the others
   * and the publisher carry on.
   */
  publish(topic: ConversationTopic, event: RuntimeEvent): ConversationMessage | null;
  publish(topic: AgentTopic, event?: unknown): PlainEvent | null;
  publish(topic: string, event?: unknown): BusMessage | null;
  publish(topic: string, event?: unknown): BusMessage | null {
    const state = this.#topics.get(topic);
    if (!state) return null;
    let message: BusMessage;
    if (!state.ring) {
      message = { topic, seq: null, id: null, event };
    } else if (isLiveOnlyEvent(event as { type?: unknown })) {
      message = { topic, seq: null, after: state.seq, id: `${state.stream}-${state.seq}`, live: true, event } satisfies LiveEvent<unknown>;
    } else {
      state.seq += 1;
      const numbered: NumberedEvent<unknown> = { topic, seq: state.seq, id: `${state.stream}-${state.seq}`, event };
      state.ring.push(numbered);
      message = numbered;
    }
    if (state.listeners.size === 0) return message;
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
  subscribe(topic: ConversationTopic, listener: (message: ConversationMessage) => void): Unsubscribe;
  subscribe(topic: AgentTopic, listener: (message: PlainEvent) => void): Unsubscribe;
  subscribe(topic: string, listener: (message: BusMessage) => void): Unsubscribe;
  subscribe(topic: string, listener: (message: never) => void): Unsubscribe {
    const state = this.#hold(topic);
    // Wrapped so the same function subscribed twice counts (and unsubscribes) twice.
    const entry = (message: BusMessage) => (listener as (m: BusMessage) => void)(message);
    state.listeners.add(entry);
    return () => {
      if (!state.listeners.delete(entry)) return;
      this.#letGo(topic, state);
    };
  }

  /** Keeps a conversation topic's numbering and replay buffer while nobody subscribes; returns the release. */
  /** The only copy of its topics: always caught up. */
  synced(): Promise<void> {
    return Promise.resolve();
  }

  retain(topic: ConversationTopic): Unsubscribe {
    if (!isConversationTopic(topic)) throw new TypeError(`Only conversation topics are retained, not "${topic}"`);
    const state = this.#hold(topic);
    state.holds += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      state.holds -= 1;
      this.#letGo(topic, state);
    };
  }

  /** How many listeners `topic` has (SSE viewers of a conversation topic). */
  subscriberCount(topic: string): number {
    return this.#topics.get(topic)?.listeners.size ?? 0;
  }

  /** The number of the last event of a conversation topic's current numbering (0 before any, or when not held). */
  lastSeq(topic: ConversationTopic): number {
    return this.#topics.get(topic)?.seq ?? 0;
  }

  /** The id of the last event of a conversation topic (`<bootId>-<epoch>-0` before any; epoch 0 when not held). */
  lastId(topic: ConversationTopic): string {
    const state = this.#topics.get(topic);
    return state ? `${state.stream}-${state.seq}` : `${this.bootId}-0-0`;
  }

  /**
   * The events of a conversation topic after the one numbered `seq` (in its current numbering),
   * oldest first, at most `limit` of them. `{ gap: true }` when some of them are no longer kept,
   * the topic is not held, or `seq` is beyond the last event.
   */
  eventsAfter(topic: ConversationTopic, seq: number, limit = Infinity): ReplayResult {
    const state = this.#topics.get(topic);
    const ring = state?.ring;
    if (!state || !ring) return { gap: true };
    const last = state.seq;
    if (!Number.isSafeInteger(seq) || seq < 0 || seq > last) return { gap: true };
    if (seq === last) return { events: [], after: seq };
    const first = last - ring.length + 1;
    if (seq + 1 < first) return { gap: true };
    const events: NumberedEvent[] = [];
    const end = Math.min(last, seq + Math.max(0, limit));
    for (let s = seq + 1; s <= end; s++) events.push(ring.at(s - first) as NumberedEvent); // conversation topics carry RuntimeEvents
    return { events, after: seq };
  }

  /**
   * What a client that last saw `lastEventId` missed on a conversation topic. `{ gap: true }`
   * when there is no id, it is malformed, it names another numbering (another process start, or
   * a state of the topic released since), or the events after it are no longer kept: the client
   * must then start again from a snapshot.
   */
  eventsSince(topic: ConversationTopic, lastEventId: string | null | undefined, limit?: number): ReplayResult {
    const parsed = lastEventId ? parseEventId(lastEventId) : null;
    const state = this.#topics.get(topic);
    if (!parsed || !state || `${parsed.bootId}-${parsed.epoch}` !== state.stream) return { gap: true };
    return this.eventsAfter(topic, parsed.seq, limit);
  }

  /** What the bus holds now. */
  stats(): BusStats {
    const stats: BusStats = { conversation_topics: 0, buffered_events: 0, subscribers: 0, retained_topics: 0, agent_topics: 0 };
    for (const state of this.#topics.values()) {
      if (!state.ring) {
        stats.agent_topics += 1;
        continue;
      }
      stats.conversation_topics += 1;
      stats.buffered_events += state.ring.length;
      stats.subscribers += state.listeners.size;
      if (state.holds > 0) stats.retained_topics += 1;
    }
    return stats;
  }
}
