/**
 * The bus port's conformance suite (lib/bus/port.ts `Bus`; the engine's `EngineBus` is its
 * publish and subscribe): delivery and its order, conversation and agent topics, live-only
 * events, replay and gaps, retain and release, subscriber counts and stats. The cases use only
 * the port, so the in-process EventBus and a later Redis bus pass them unchanged;
 * {@link describeEngineBus} runs them against the buses a maker makes, a fresh one per case,
 * each on topics of its own.
 */
import { randomInt } from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import type { RuntimeEvent } from "@/lib/contracts/events";
import { agentTopic, conversationTopic, type Bus, type BusMessage, type ConversationMessage, type NumberedEvent, type ReplayResult } from "@/lib/bus";

/** Makes a bus that keeps the latest `replayWindow` numbered events of each held conversation topic. */
export type BusMaker = (options: { replayWindow: number }) => Bus | Promise<Bus>;

/** One statement of the bus contract. */
export interface BusCase {
  name: string;
  /** The replay window of the bus the case gets (default {@link WINDOW}). */
  window?: number;
  run(bus: Bus): void | Promise<void>;
}

/** The replay window of a case's bus unless it asks for another. */
const WINDOW = 100;

function busy(n: number): RuntimeEvent {
  return { type: "leader_busy", busy: n % 2 === 1 };
}

function delta(text: string): RuntimeEvent {
  return { type: "delta", agent_id: null, kind: "content", text };
}

/** A conversation id no other case uses (a shared broker keeps the cases apart). */
function freshConversation(): string {
  return `conv_20260101_000000_${randomInt(100_000, 999_999)}`;
}

/** What a listener got. */
function recorder<M = ConversationMessage>(): { got: M[]; listener: (m: M) => void } {
  const got: M[] = [];
  return { got, listener: (m) => void got.push(m) };
}

/** How long `synced` may take before the case calls it hung (a broker's bus bounds its own wait below this). */
const SYNC_BOUND_MS = 4_000;

/** Whether `promise` settles within `ms`. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true, () => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function seqs(result: ReplayResult): number[] | "gap" {
  return "gap" in result ? "gap" : result.events.map((e) => e.seq);
}

export const BUS_CASES: BusCase[] = [
  {
    name: "delivers a conversation topic's events to every subscriber as published, at once, numbered 1, 2, 3… in order",
    run(bus) {
      const topic = conversationTopic(freshConversation());
      const a = recorder();
      const b = recorder();
      bus.subscribe(topic, a.listener);
      bus.subscribe(topic, b.listener);
      // Kept before it is delivered: a listener finds its event in the replay window already.
      const seen: Array<number[] | "gap"> = [];
      bus.subscribe(topic, (m) => void (m.seq !== null && seen.push(seqs(bus.eventsAfter(topic, m.seq - 1)))));
      for (let i = 1; i <= 3; i++) {
        bus.publish(topic, busy(i));
        expect(a.got).toHaveLength(i);
        expect(b.got).toHaveLength(i);
      }
      expect(a.got.map((m) => m.seq)).toEqual([1, 2, 3]);
      expect(a.got.map((m) => m.event)).toEqual([busy(1), busy(2), busy(3)]);
      expect(a.got.map((m) => m.topic)).toEqual([topic, topic, topic]);
      expect(new Set(a.got.map((m) => m.id)).size).toBe(3);
      expect(b.got).toEqual(a.got);
      expect(seen).toEqual([[1], [2], [3]]);
      expect(bus.lastSeq(topic)).toBe(3);
      expect(bus.lastId(topic)).toBe(a.got[2]!.id);
    },
  },
  {
    name: "keeps topics apart: each conversation topic has its own subscribers and numbering",
    run(bus) {
      const one = conversationTopic(freshConversation());
      const two = conversationTopic(freshConversation());
      const a = recorder();
      const b = recorder();
      bus.subscribe(one, a.listener);
      bus.subscribe(two, b.listener);
      bus.publish(one, busy(1));
      bus.publish(one, busy(2));
      bus.publish(two, busy(3));
      expect(a.got.map((m) => [m.seq, m.event])).toEqual([[1, busy(1)], [2, busy(2)]]);
      expect(b.got.map((m) => [m.seq, m.event])).toEqual([[1, busy(3)]]);
    },
  },
  {
    name: "an agent topic wakes its subscribers, unnumbered and unkept, apart from its conversation's topic",
    run(bus) {
      const conv = freshConversation();
      const topic = agentTopic(conv, 1);
      const agent = recorder<BusMessage>();
      const other = recorder<BusMessage>();
      const viewer = recorder();
      bus.subscribe(topic, agent.listener);
      bus.subscribe(agentTopic(conv, 2), other.listener);
      bus.subscribe(conversationTopic(conv), viewer.listener);
      bus.publish(topic);
      bus.publish(topic, { wake: true });
      expect(agent.got).toEqual([
        { topic, seq: null, id: null, event: undefined },
        { topic, seq: null, id: null, event: { wake: true } },
      ]);
      expect(other.got).toEqual([]);
      expect(viewer.got).toEqual([]);
      expect(bus.lastSeq(conversationTopic(conv))).toBe(0);
    },
  },
  {
    name: "a live-only event is delivered, never numbered or kept, and its id resumes after the event before it",
    run(bus) {
      const topic = conversationTopic(freshConversation());
      bus.retain(topic);
      const a = recorder();
      bus.subscribe(topic, a.listener);
      bus.publish(topic, busy(1));
      bus.publish(topic, delta("hel"));
      bus.publish(topic, busy(2));
      const [first, live, second] = a.got as [NumberedEvent, ConversationMessage, NumberedEvent];
      expect(a.got.map((m) => m.event)).toEqual([busy(1), delta("hel"), busy(2)]);
      expect(live).toMatchObject({ seq: null, live: true, after: 1, id: first.id });
      expect(second.seq).toBe(2);
      expect(seqs(bus.eventsAfter(topic, 0))).toEqual([1, 2]);
      expect(seqs(bus.eventsSince(topic, live.id))).toEqual([2]);
      expect(bus.stats().buffered_events).toBe(2);
    },
  },
  {
    name: "a conversation topic nobody holds keeps nothing and numbers nothing",
    run(bus) {
      const topic = conversationTopic(freshConversation());
      bus.publish(topic, busy(1));
      bus.publish(topic, busy(2));
      expect(bus.lastSeq(topic)).toBe(0);
      expect(bus.eventsAfter(topic, 0)).toEqual({ gap: true });
      const release = bus.retain(topic);
      expect(bus.lastSeq(topic)).toBe(0);
      expect(bus.eventsAfter(topic, 0)).toEqual({ events: [], after: 0 });
      bus.publish(topic, busy(3));
      expect(seqs(bus.eventsAfter(topic, 0))).toEqual([1]);
      release();
    },
  },
  {
    name: "replays what a client missed after a number or an id, oldest first, at most `limit`",
    run(bus) {
      const topic = conversationTopic(freshConversation());
      bus.retain(topic);
      const a = recorder();
      bus.subscribe(topic, a.listener);
      for (let i = 1; i <= 5; i++) bus.publish(topic, busy(i));
      expect(bus.eventsAfter(topic, 2)).toEqual({ events: a.got.slice(2), after: 2 });
      expect(seqs(bus.eventsAfter(topic, 2, 2))).toEqual([3, 4]);
      expect(bus.eventsAfter(topic, 5)).toEqual({ events: [], after: 5 });
      expect(bus.eventsAfter(topic, 6)).toEqual({ gap: true });
      expect(bus.eventsAfter(topic, -1)).toEqual({ gap: true });
      expect(seqs(bus.eventsSince(topic, a.got[1]!.id))).toEqual([3, 4, 5]);
      expect(seqs(bus.eventsSince(topic, a.got[1]!.id, 1))).toEqual([3]);
      expect(bus.eventsSince(topic, bus.lastId(topic))).toEqual({ events: [], after: 5 });
      for (const id of [null, undefined, "", "not an id", `${a.got[1]!.id}x`]) expect(bus.eventsSince(topic, id)).toEqual({ gap: true });
    },
  },
  {
    name: "answers a gap once the events after the point are no longer kept",
    window: 3,
    run(bus) {
      const topic = conversationTopic(freshConversation());
      bus.retain(topic);
      const a = recorder();
      bus.subscribe(topic, a.listener);
      for (let i = 1; i <= 5; i++) bus.publish(topic, busy(i));
      expect(bus.eventsAfter(topic, 1)).toEqual({ gap: true });
      expect(bus.eventsAfter(topic, 0)).toEqual({ gap: true });
      expect(seqs(bus.eventsAfter(topic, 2))).toEqual([3, 4, 5]);
      expect(bus.eventsSince(topic, a.got[0]!.id)).toEqual({ gap: true });
      expect(seqs(bus.eventsSince(topic, a.got[1]!.id))).toEqual([3, 4, 5]);
      expect(bus.stats().buffered_events).toBe(3);
    },
  },
  {
    name: "a hold keeps numbering and window with no subscriber; once let go, a new numbering's ids are not the old ones",
    run(bus) {
      const topic = conversationTopic(freshConversation());
      const release = bus.retain(topic);
      bus.publish(topic, busy(1));
      bus.publish(topic, busy(2));
      const unsubscribe = bus.subscribe(topic, () => undefined);
      unsubscribe();
      expect(bus.lastSeq(topic)).toBe(2);
      const old = bus.lastId(topic);
      const oldFirst = (bus.eventsAfter(topic, 0) as { events: NumberedEvent[] }).events[0]!.id;
      release();
      expect(bus.lastSeq(topic)).toBe(0);
      expect(bus.eventsSince(topic, old)).toEqual({ gap: true });
      bus.retain(topic);
      const start = bus.lastId(topic);
      expect(start).not.toBe(old);
      expect(bus.eventsSince(topic, start)).toEqual({ events: [], after: 0 });
      bus.publish(topic, busy(3));
      bus.publish(topic, busy(4));
      bus.publish(topic, busy(5));
      expect(bus.lastSeq(topic)).toBe(3);
      // Number 1 of the old numbering is not number 1 of this one.
      expect(bus.eventsSince(topic, oldFirst)).toEqual({ gap: true });
      expect(bus.eventsSince(topic, old)).toEqual({ gap: true });
      expect(seqs(bus.eventsSince(topic, start))).toEqual([1, 2, 3]);
    },
  },
  {
    name: "a subscriber holds its topic as a hold does, and lets go when it unsubscribes",
    run(bus) {
      const topic = conversationTopic(freshConversation());
      const unsubscribe = bus.subscribe(topic, () => undefined);
      bus.publish(topic, busy(1));
      bus.publish(topic, busy(2));
      expect(bus.lastSeq(topic)).toBe(2);
      expect(seqs(bus.eventsAfter(topic, 0))).toEqual([1, 2]);
      unsubscribe();
      expect(bus.lastSeq(topic)).toBe(0);
      expect(bus.eventsAfter(topic, 0)).toEqual({ gap: true });
    },
  },
  {
    name: "a release or an unsubscribe called again does nothing; two holds need two releases",
    run(bus) {
      const topic = conversationTopic(freshConversation());
      const first = bus.retain(topic);
      const second = bus.retain(topic);
      bus.publish(topic, busy(1));
      first();
      first();
      expect(bus.lastSeq(topic)).toBe(1);
      const a = recorder();
      const offA = bus.subscribe(topic, a.listener);
      bus.subscribe(topic, () => undefined);
      offA();
      offA();
      expect(bus.subscriberCount(topic)).toBe(1);
      bus.publish(topic, busy(2));
      expect(a.got).toEqual([]);
      second();
      expect(bus.lastSeq(topic)).toBe(2);
    },
  },
  {
    name: "counts subscribers per topic, and its stats say what it holds",
    run(bus) {
      const conv = freshConversation();
      const one = conversationTopic(conv);
      const two = conversationTopic(freshConversation());
      const agent = agentTopic(conv, 1);
      expect(bus.subscriberCount(one)).toBe(0);
      const offs = [bus.subscribe(one, () => undefined), bus.subscribe(one, () => undefined), bus.subscribe(two, () => undefined), bus.subscribe(agent, () => undefined)];
      const release = bus.retain(one);
      for (let i = 1; i <= 3; i++) bus.publish(one, busy(i));
      expect([bus.subscriberCount(one), bus.subscriberCount(two), bus.subscriberCount(agent), bus.subscriberCount(agentTopic(conv, 2))]).toEqual([2, 1, 1, 0]);
      expect(bus.stats()).toEqual({ conversation_topics: 2, buffered_events: 3, subscribers: 3, retained_topics: 1, agent_topics: 1 });
      for (const off of offs) off();
      expect(bus.stats()).toEqual({ conversation_topics: 1, buffered_events: 3, subscribers: 0, retained_topics: 1, agent_topics: 0 });
      release();
      expect(bus.stats()).toEqual({ conversation_topics: 0, buffered_events: 0, subscribers: 0, retained_topics: 0, agent_topics: 0 });
      expect(bus.subscriberCount(one)).toBe(0);
    },
  },
  {
    name: "a listener that throws keeps the event from neither the other subscribers nor the publisher",
    run(bus) {
      const topic = conversationTopic(freshConversation());
      const before = recorder();
      const after = recorder();
      bus.subscribe(topic, before.listener);
      bus.subscribe(topic, () => {
        throw new Error("a broken viewer");
      });
      bus.subscribe(topic, after.listener);
      const quiet = vi.spyOn(console, "error").mockImplementation(() => undefined);
      try {
        expect(() => bus.publish(topic, busy(1))).not.toThrow();
      } finally {
        quiet.mockRestore();
      }
      expect(before.got.map((m) => m.seq)).toEqual([1]);
      expect(after.got.map((m) => m.seq)).toEqual([1]);
    },
  },
  {
    name: "a subscriber gets only what is published after it subscribed; what came before is replayed from the window",
    run(bus) {
      const topic = conversationTopic(freshConversation());
      bus.retain(topic);
      bus.publish(topic, busy(1));
      bus.publish(topic, busy(2));
      const late = recorder();
      bus.subscribe(topic, late.listener);
      bus.publish(topic, busy(3));
      expect(late.got.map((m) => m.seq)).toEqual([3]);
      expect(seqs(bus.eventsAfter(topic, 0))).toEqual([1, 2, 3]);
    },
  },
  {
    name: "synced resolves for a held topic, with what was published there replayable after it, and for a topic nobody holds",
    async run(bus) {
      const topic = conversationTopic(freshConversation());
      await bus.synced(topic);
      const release = bus.retain(topic);
      bus.publish(topic, busy(1));
      // a broker's bus bounds its wait (2 s for Redis); one that hangs fails here
      expect(await settlesWithin(bus.synced(topic), SYNC_BOUND_MS)).toBe(true);
      const replay = bus.eventsSince(topic, bus.lastId(topic));
      expect(replay).toEqual({ events: [], after: 1 });
      expect(seqs(bus.eventsAfter(topic, 0))).toEqual([1]);
      release();
    },
  },
];

/** Runs one case against a fresh bus of `make`. */
export async function runBusCase(make: BusMaker, c: BusCase): Promise<void> {
  const bus = await make({ replayWindow: c.window ?? WINDOW });
  await c.run(bus);
}

/** The bus contract as a vitest suite, run against the buses `make` makes. */
export function describeEngineBus(name: string, make: BusMaker): void {
  describe(`Bus conformance: ${name}`, () => {
    for (const c of BUS_CASES) it(c.name, () => runBusCase(make, c));
  });
}
