import "server-only";
/**
 * The bus port (lib/bus/port.ts) over Redis, for several instances of the app on one Redis: an
 * event published on one reaches the subscribers of every instance, and a viewer that reconnects
 * to another instance is replayed what it missed from there.
 *
 * Publishing stays synchronous and never waits for Redis: the event is numbered in this process's
 * copy of the topic (./topic-copy.ts), kept, delivered here at once, and relayed by a script
 * (./scripts.ts) that adds it to the topic's Redis stream and announces it on the topic's
 * channel. Every instance holding the topic takes the announcements in the stream's order into
 * its copy (its own come back and are only confirmed) and delivers the others' events, so reads
 * (`eventsAfter`, `eventsSince`, `lastSeq`) stay synchronous too. Live-only events and agent
 * wake-ups are plain PUBLISH, never kept. Holds are registered in Redis with an expiry, renewed
 * while held; the last hold to go deletes the topic, so a topic nobody holds starts a new
 * numbering when it is held again, as the port says.
 *
 * When Redis is away or loses its data (a flush, a restart), publishing goes on here and never
 * throws; events that did not reach Redis make the topic start a new numbering once Redis is
 * back, and every copy that followed the old one resets: old ids answer a gap, viewers resync
 * from a snapshot, new events flow. Redis holds nothing that cannot be rebuilt.
 */
import { randomBytes } from "node:crypto";
import { isLiveOnlyEvent, type RuntimeEvent } from "@/lib/contracts/events";
import { isConversationTopic, type AgentTopic, type Bus, type BusMessage, type BusStats, type ConversationMessage, type ConversationTopic, type ReplayResult, type Unsubscribe } from "@/lib/bus";
import { HeldTopic } from "./held-topic";
import { formatId, newNumbering, newOrigin } from "./ids";
import { RedisLink } from "./link";
import { parseChannelMessage, parseJoinReply, parseWakeMessage } from "./scripts";

/** Options of {@link createRedisBus}. */
export interface RedisBusOptions {
  /** `redis://…` of the Redis every instance shares. */
  url: string;
  /** Numbered events kept per held conversation topic (default 5000, as the in-process bus). */
  replayWindow?: number;
  /** How long a hold lasts in Redis unless renewed (renewed every third of it; default 30 s). */
  holdTtlMs?: number;
  /** Prefix of every key and channel (default `astrion:bus:`). */
  prefix?: string;
  /** Where transitions (Redis away, back) and faults are told (default console.warn). */
  log?: (message: string, error?: unknown) => void;
}

/** An agent topic's wake-up (the port's `PlainEvent`, which lib/bus's face does not name). */
type PlainEvent = Extract<BusMessage, { id: null }>;

/** Longest wait of {@link RedisBus.synced}: a reader must never hang on Redis. */
const SYNC_TIMEOUT_MS = 2_000;

/** The bus over Redis. One per process, made by the composition root. */
export class RedisBus implements Bus {
  /** Names this process in Redis (holds, the tags of its events). */
  readonly origin = newOrigin();
  readonly replayWindow: number;
  readonly #ttlMs: number;
  readonly #log: (message: string, error?: unknown) => void;
  readonly #link: RedisLink;
  readonly #held = new Map<string, HeldTopic>();
  readonly #agents = new Map<string, Set<(message: PlainEvent) => void>>();
  readonly #renewal: ReturnType<typeof setInterval>;
  #count = 0;
  #up = false;
  #toldLost = false;
  #closed = false;

  constructor(options: RedisBusOptions) {
    this.replayWindow = options.replayWindow ?? 5000;
    if (!Number.isSafeInteger(this.replayWindow) || this.replayWindow < 1) throw new TypeError("replayWindow must be a positive integer");
    this.#ttlMs = Math.max(1000, options.holdTtlMs ?? 30_000);
    this.#log = options.log ?? ((message, error) => console.warn(`[astrion] ${message}`, ...(error === undefined ? [] : [error])));
    this.#link = new RedisLink(options.url, this.origin, options.prefix ?? "astrion:bus:", {
      message: (topic, text) => this.#onChannel(topic, text),
      up: () => this.#resync(),
      down: () => this.#down(),
    });
    this.#renewal = setInterval(() => this.#renew(), Math.floor(this.#ttlMs / 3));
    this.#renewal.unref();
  }

  publish(topic: ConversationTopic, event: RuntimeEvent): void;
  publish(topic: AgentTopic, event?: unknown): void;
  publish(topic: string, event?: unknown): void {
    if (this.#closed) return;
    if (!isConversationTopic(topic)) return this.#wake(topic, event);
    const runtimeEvent = event as RuntimeEvent;
    const held = this.#held.get(topic);
    if (isLiveOnlyEvent(runtimeEvent)) {
      if (held) this.#deliver(held, [held.copy.live(runtimeEvent)]);
      const text = this.#encode(topic, { k: "l", o: this.origin, e: runtimeEvent });
      if (text) this.#link.publish(topic, text);
      return;
    }
    const tag = `${this.origin}${(++this.#count).toString(36)}`;
    if (!held) return this.#relay(topic, null, tag, runtimeEvent);
    this.#deliver(held, [held.copy.addLocal(runtimeEvent, tag)]);
    this.#relay(topic, held, tag, runtimeEvent);
  }

  subscribe(topic: ConversationTopic, listener: (message: ConversationMessage) => void): Unsubscribe;
  subscribe(topic: AgentTopic, listener: (message: PlainEvent) => void): Unsubscribe;
  subscribe(topic: string, listener: (message: never) => void): Unsubscribe {
    // Wrapped so the same function subscribed twice counts (and unsubscribes) twice.
    const entry = (message: ConversationMessage | PlainEvent) => (listener as (m: typeof message) => void)(message);
    if (!isConversationTopic(topic)) {
      let listeners = this.#agents.get(topic);
      if (!listeners) {
        this.#agents.set(topic, (listeners = new Set()));
        this.#link.watch(topic);
      }
      const set = listeners;
      set.add(entry);
      return () => {
        if (!set.delete(entry) || set.size > 0 || this.#agents.get(topic) !== set) return;
        this.#agents.delete(topic);
        this.#link.unwatch(topic);
      };
    }
    const held = this.#hold(topic);
    held.listeners.add(entry);
    return () => {
      if (held.listeners.delete(entry)) this.#letGo(held);
    };
  }

  retain(topic: ConversationTopic): Unsubscribe {
    if (!isConversationTopic(topic)) throw new TypeError(`Only conversation topics are retained, not "${topic}"`);
    const held = this.#hold(topic);
    held.holds += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      held.holds -= 1;
      this.#letGo(held);
    };
  }

  lastSeq(topic: ConversationTopic): number {
    return this.#held.get(topic)?.copy.lastSeq ?? 0;
  }

  lastId(topic: ConversationTopic): string {
    return this.#held.get(topic)?.copy.lastId ?? formatId(this.origin, 0);
  }

  eventsAfter(topic: ConversationTopic, seq: number, limit?: number): ReplayResult {
    return this.#held.get(topic)?.copy.eventsAfter(seq, limit) ?? { gap: true };
  }

  eventsSince(topic: ConversationTopic, lastEventId: string | null | undefined, limit?: number): ReplayResult {
    return this.#held.get(topic)?.copy.eventsSince(lastEventId, limit) ?? { gap: true };
  }

  subscriberCount(topic: string): number {
    return isConversationTopic(topic) ? (this.#held.get(topic)?.listeners.size ?? 0) : (this.#agents.get(topic)?.size ?? 0);
  }

  stats(): BusStats {
    const stats: BusStats = { conversation_topics: 0, buffered_events: 0, subscribers: 0, retained_topics: 0, agent_topics: this.#agents.size };
    for (const held of this.#held.values()) {
      stats.conversation_topics += 1;
      stats.buffered_events += held.copy.buffered;
      stats.subscribers += held.listeners.size;
      if (held.holds > 0) stats.retained_topics += 1;
    }
    return stats;
  }

  /**
   * Resolves once this process's copy of a held topic has caught up with Redis (its first join
   * is done), so that `eventsSince` can replay an id another instance handed out; at once when
   * the topic is not held or Redis is away, and after 2 s at most. An SSE route holds the topic,
   * awaits this, then opens its stream.
   */
  synced(topic: ConversationTopic): Promise<void> {
    const held = this.#held.get(topic);
    if (!held || !this.#link.up) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, SYNC_TIMEOUT_MS);
      timer.unref();
      void held.synced().then(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Resolves once both connections to Redis are up (tests; a server need not wait). */
  whenConnected(): Promise<void> {
    return this.#link.whenUp();
  }

  /** Lets go of every hold in Redis and closes the connections. */
  async close(): Promise<void> {
    if (this.#closed) return;
    const leaving = this.#link.up ? [...this.#held.values()].map((held) => this.#leave(held.topic)) : [];
    this.#closed = true;
    clearInterval(this.#renewal);
    await Promise.allSettled(leaving);
    for (const held of this.#held.values()) held.settle();
    this.#held.clear();
    this.#agents.clear();
    await this.#link.close();
  }

  #connected(): boolean {
    return !this.#closed && this.#link.up;
  }

  /** Adds a numbered event to the topic's stream (`held`: this process's copy, which numbered it). */
  #relay(topic: string, held: HeldTopic | null, tag: string, event: RuntimeEvent): void {
    if (held?.lost) return; // a join asking for a new numbering is coming
    if (!this.#connected()) {
      if (held) this.#lose(held);
      return;
    }
    const json = this.#encode(topic, event);
    if (json === null) {
      if (held) this.#lose(held);
      return;
    }
    const numbering = held?.copy.numbering ?? "-";
    const args = [held ? "1" : "0", numbering, newNumbering(), held?.joined ? "1" : "0", tag, json, this.replayWindow, this.#ttlMs, this.#link.keys(topic).channel, this.origin];
    this.#link.script("astrionPublish", topic, args).catch((error: unknown) => {
      if (held && this.#held.get(topic) === held) this.#lose(held, error);
    });
  }

  /** An event of `held` did not reach Redis: its numbering must not go on as if it had. */
  #lose(held: HeldTopic, error?: unknown): void {
    if (!this.#toldLost) {
      this.#toldLost = true;
      this.#log(`events of ${held.topic} (and maybe others) did not reach Redis; viewers on other instances will resync`, error);
    }
    held.lost = true;
    if (!held.joining) this.#join(held);
    else held.needsJoin = true;
  }

  #wake(topic: string, event: unknown): void {
    const listeners = this.#agents.get(topic);
    if (listeners) this.#deliverPlain(topic, listeners, event);
    // Not kept while Redis is away: a wake-up only says "look", and a loop in this process got it.
    const text = this.#connected() ? this.#encode(topic, { o: this.origin, e: event }) : null;
    if (text) this.#link.publish(topic, text);
  }

  /** `value` as JSON, or null (logged) when it has none: publishing must not throw. */
  #encode(topic: string, value: unknown): string | null {
    try {
      return JSON.stringify(value) ?? null;
    } catch (error) {
      this.#log(`an event of ${topic} could not be encoded for Redis`, error);
      return null;
    }
  }

  #hold(topic: string): HeldTopic {
    let held = this.#held.get(topic);
    if (!held) {
      held = new HeldTopic(topic, newNumbering(), this.replayWindow, this.origin);
      this.#held.set(topic, held);
      this.#link.watch(topic);
      this.#join(held);
    }
    return held;
  }

  #letGo(held: HeldTopic): void {
    if (!held.unheld || this.#held.get(held.topic) !== held) return;
    this.#held.delete(held.topic);
    held.settle();
    this.#link.unwatch(held.topic);
    if (this.#connected()) this.#leave(held.topic).catch(() => undefined);
  }

  #leave(topic: string): Promise<unknown> {
    return this.#link.script("astrionLeave", topic, [this.origin]);
  }

  /**
   * Registers the hold in Redis and brings the copy up to date. A first join, or one after
   * Redis was away (`force`), always reads; a renewal reads only when the numbering changed.
   */
  #join(held: HeldTopic, force = true): void {
    if (!this.#connected()) {
      held.needsJoin = true;
      return;
    }
    const token = randomBytes(6).toString("hex");
    held.beginJoin(token);
    const { channel } = this.#link.keys(held.topic);
    const current = () => this.#held.get(held.topic) === held && held.isJoin(token);
    this.#link
      .subscribed(held.topic)
      .then(() => {
        if (!current()) return;
        const renumber = held.sendingJoin();
        const flags = [held.joined ? "1" : "0", force || !held.joined ? "1" : "0", renumber ? "1" : "0"];
        return this.#link.script("astrionJoin", held.topic, [this.origin, held.copy.numbering, newNumbering(), ...flags, this.#ttlMs, channel, token, this.replayWindow + 1]).then((reply) => {
          if (!current()) return;
          const read = parseJoinReply(reply, this.replayWindow);
          if (!read) throw new Error("malformed answer of the join script");
          this.#deliver(held, held.onJoinReply(token, read));
          this.#followUp(held);
        });
      })
      .catch((error: unknown) => {
        if (!current()) return;
        held.abandonJoin();
        if (this.#connected()) this.#log(`could not join ${held.topic} in Redis; trying again at the next renewal`, error);
      });
  }

  /** A join asked for while one was under way is sent once it is done. */
  #followUp(held: HeldTopic): void {
    if (held.needsJoin && !held.joining && this.#held.get(held.topic) === held) this.#join(held);
  }

  #onChannel(topic: string, text: string): void {
    if (!isConversationTopic(topic)) {
      const wake = parseWakeMessage(text);
      const listeners = this.#agents.get(topic);
      if (wake && wake.o !== this.origin && listeners) this.#deliverPlain(topic, listeners, wake.e);
      return;
    }
    const held = this.#held.get(topic);
    const message = held ? parseChannelMessage(text) : null;
    if (!held || !message) return;
    this.#deliver(held, held.onMessage(message));
    this.#followUp(held);
  }

  /**
   * Renews every hold (a renewal also finds a numbering Redis lost, and starts a new one). A join
   * still under way at two renewals in a row lost its answer or its mark: it is sent again.
   */
  #renew(): void {
    if (!this.#connected()) return;
    for (const held of this.#held.values()) {
      if (!held.joining) this.#join(held, held.needsJoin);
      else if (++held.stalled >= 2) {
        held.abandonJoin(false);
        this.#join(held);
      }
    }
  }

  /** Both connections are up (again), every channel subscribed anew: bring every copy up to date. */
  #resync(): void {
    if (!this.#connected()) return;
    if (!this.#up) {
      this.#up = true;
      this.#toldLost = false;
      this.#log("connected to Redis");
    }
    for (const held of this.#held.values()) {
      held.abandonJoin(false);
      this.#join(held);
    }
  }

  #down(): void {
    if (this.#closed) return;
    if (this.#up) {
      this.#up = false;
      this.#log("Redis is unreachable; events reach this instance's viewers only until it is back");
    }
    for (const held of this.#held.values()) if (held.joining) held.abandonJoin();
  }

  #deliver(held: HeldTopic, messages: ConversationMessage[]): void {
    for (const message of messages) {
      // A copy, so a listener that (un)subscribes while being called does not disturb this round.
      for (const listener of [...held.listeners]) {
        try {
          listener(message);
        } catch (error) {
          console.error(`[astrion] a listener of ${held.topic} threw; the event still reached the others`, error);
        }
      }
    }
  }

  #deliverPlain(topic: string, listeners: Set<(message: PlainEvent) => void>, event: unknown): void {
    const message: PlainEvent = { topic, seq: null, id: null, event };
    for (const listener of [...listeners]) {
      try {
        listener(message);
      } catch (error) {
        console.error(`[astrion] a listener of ${topic} threw; the event still reached the others`, error);
      }
    }
  }
}

/** A Redis bus on `url` keeping `replayWindow` events per held conversation topic; it connects in the background. */
export function createRedisBus(options: RedisBusOptions): RedisBus {
  return new RedisBus(options);
}
