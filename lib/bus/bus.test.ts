import { afterEach, describe, expect, it, vi } from "vitest";
import type { RuntimeEvent } from "@/lib/contracts/events";
import {
  agentTopic,
  conversationTopic,
  EventBus,
  isConversationTopic,
  parseEventId,
  type BusMessage,
  type ConversationMessage,
  type NumberedEvent,
} from "./index";

const CONV = conversationTopic("conv_20260711_210000_001");
const OTHER = conversationTopic("conv_20260711_210000_002");

/** A numbered (kept) event. */
function busy(n: number): RuntimeEvent {
  return { type: "leader_busy", busy: n % 2 === 1 };
}

/** A live-only event: streamed text. */
function delta(text: string): RuntimeEvent {
  return { type: "delta", agent_id: null, kind: "content", text };
}

function publishMany(bus: EventBus, count: number, topic = CONV): NumberedEvent[] {
  const out: NumberedEvent[] = [];
  for (let i = 1; i <= count; i++) out.push(bus.publish(topic, busy(i)) as NumberedEvent);
  return out;
}

/** A bus whose conversation topics `CONV` and `OTHER` are held, as the runtime holds a working conversation's. */
function heldBus(options: ConstructorParameters<typeof EventBus>[0] = {}): EventBus {
  const bus = new EventBus(options);
  bus.retain(CONV);
  bus.retain(OTHER);
  return bus;
}

function seqs(result: ReturnType<EventBus["eventsSince"]>): number[] | "gap" {
  return "gap" in result ? "gap" : result.events.map((e) => e.seq);
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("topics", () => {
  it("names conversation and agent topics and tells them apart", () => {
    expect(CONV).toBe("conv:conv_20260711_210000_001");
    expect(agentTopic("conv_20260711_210000_001", 3)).toBe("conv:conv_20260711_210000_001:agent:3");
    expect(isConversationTopic(CONV)).toBe(true);
    expect(isConversationTopic(agentTopic("conv_20260711_210000_001", 3))).toBe(false);
    expect(isConversationTopic("other")).toBe(false);
  });

  it("refuses ids that would make ambiguous topics", () => {
    expect(() => conversationTopic("a:b")).toThrow(TypeError);
    expect(() => conversationTopic("")).toThrow(TypeError);
    expect(() => agentTopic("conv_1", 0)).toThrow(TypeError);
    expect(() => agentTopic("conv_1", 1.5)).toThrow(TypeError);
  });
});

describe("numbering", () => {
  it("numbers conversation events 1, 2, 3… per held topic with ids <bootId>-<epoch>-<seq>", () => {
    const bus = new EventBus({ bootId: "boot1" });
    bus.retain(CONV);
    expect(bus.lastSeq(CONV)).toBe(0);
    expect(bus.lastId(CONV)).toBe("boot1-1-0");
    const a = bus.publish(CONV, busy(1))!;
    const b = bus.publish(CONV, busy(2))!;
    bus.retain(OTHER);
    const c = bus.publish(OTHER, busy(3))!;
    expect([a.seq, a.id, b.seq, b.id]).toEqual([1, "boot1-1-1", 2, "boot1-1-2"]);
    expect([c.seq, c.id]).toEqual([1, "boot1-2-1"]);
    expect(bus.lastSeq(CONV)).toBe(2);
    expect(bus.lastId(CONV)).toBe("boot1-1-2");
    expect(a.event).toEqual(busy(1));
  });

  it("gives each process start a different random boot id", () => {
    const ids = new Set(Array.from({ length: 20 }, () => new EventBus().bootId));
    expect(ids.size).toBe(20);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{16}$/);
  });

  it("does not number or keep agent-topic events", () => {
    const bus = heldBus();
    const topic = agentTopic("conv_20260711_210000_001", 2);
    const got: BusMessage[] = [];
    bus.subscribe(topic, (m) => got.push(m));
    const m = bus.publish(topic, { inbox: 1 });
    expect(m).toMatchObject({ seq: null, id: null, event: { inbox: 1 } });
    expect(got).toEqual([m]);
    expect(bus.lastSeq(CONV)).toBe(0);
  });

  it("parses ids and refuses anything else", () => {
    expect(parseEventId("abc123-7-42")).toEqual({ bootId: "abc123", epoch: 7, seq: 42 });
    expect(parseEventId("abc123-1-0")).toEqual({ bootId: "abc123", epoch: 1, seq: 0 });
    for (const bad of ["", "42", "abc-1", "abc-0-1", "abc-1-", "-1-4", "abc-1-04", "abc-1-1.5", "abc--1", "ABC-1-1", "abc-1-99999999999999999", "a b-1-1"]) {
      expect(parseEventId(bad), bad).toBeNull();
    }
  });
});

describe("replay", () => {
  it("returns the events after an id, none at the head", () => {
    const bus = heldBus({ bootId: "b" });
    publishMany(bus, 10);
    expect(seqs(bus.eventsSince(CONV, "b-1-4"))).toEqual([5, 6, 7, 8, 9, 10]);
    expect(seqs(bus.eventsSince(CONV, "b-1-0"))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(seqs(bus.eventsSince(CONV, "b-1-10"))).toEqual([]);
    expect(seqs(bus.eventsSince(CONV, "b-1-4", 2))).toEqual([5, 6]);
    expect(seqs(bus.eventsSince(CONV, "b-1-4", 0))).toEqual([]);
    expect(bus.eventsSince(CONV, "b-1-4", 0)).toEqual({ events: [], after: 4 });
  });

  it("reports a gap once the ring buffer evicted what the client missed", () => {
    const bus = heldBus({ bootId: "b", bufferSize: 5 });
    publishMany(bus, 12); // keeps 8..12
    expect(seqs(bus.eventsSince(CONV, "b-1-7"))).toEqual([8, 9, 10, 11, 12]);
    expect(seqs(bus.eventsSince(CONV, "b-1-6"))).toBe("gap");
    expect(seqs(bus.eventsSince(CONV, "b-1-0"))).toBe("gap");
    // The ring keeps wrapping correctly.
    publishMany(bus, 3);
    expect(seqs(bus.eventsSince(CONV, "b-1-10"))).toEqual([11, 12, 13, 14, 15]);
    expect(seqs(bus.eventsSince(CONV, "b-1-9"))).toBe("gap");
  });

  it("reports a gap for an id from another boot or numbering, a malformed id, a future number or no id", () => {
    const bus = heldBus({ bootId: "now" });
    publishMany(bus, 3);
    expect(seqs(bus.eventsSince(CONV, "before-1-1"))).toBe("gap");
    expect(seqs(bus.eventsSince(CONV, "now-2-1"))).toBe("gap"); // OTHER's numbering, not CONV's
    expect(seqs(bus.eventsSince(CONV, "now-1"))).toBe("gap"); // the id shape before numberings had epochs
    expect(seqs(bus.eventsSince(CONV, "garbage"))).toBe("gap");
    expect(seqs(bus.eventsSince(CONV, "now-1-4"))).toBe("gap");
    expect(seqs(bus.eventsSince(CONV, null))).toBe("gap");
    expect(seqs(bus.eventsSince(CONV, ""))).toBe("gap");
    expect(seqs(bus.eventsSince(OTHER, "now-2-1"))).toBe("gap"); // that topic never got there
  });
});

describe("release", () => {
  it("keeps nothing for a topic nobody holds: nothing numbered, nothing to replay", () => {
    const bus = new EventBus({ bootId: "b" });
    expect(bus.publish(CONV, busy(1))).toBeNull();
    expect(bus.lastSeq(CONV)).toBe(0);
    expect(bus.lastId(CONV)).toBe("b-0-0");
    expect(bus.eventsSince(CONV, "b-0-0")).toEqual({ gap: true });
    expect(bus.stats()).toEqual({ conversation_topics: 0, buffered_events: 0, subscribers: 0, retained_topics: 0, agent_topics: 0 });
  });

  it("drops a topic's numbering and buffer when its last subscriber and hold let go", () => {
    const bus = new EventBus({ bootId: "b" });
    const offViewer = bus.subscribe(CONV, () => undefined);
    const letGo = bus.retain(CONV);
    publishMany(bus, 4);
    expect(bus.stats()).toEqual({ conversation_topics: 1, buffered_events: 4, subscribers: 1, retained_topics: 1, agent_topics: 0 });
    offViewer();
    // Still held by the run: a viewer that dropped is replayed what it missed.
    expect(seqs(bus.eventsSince(CONV, "b-1-2"))).toEqual([3, 4]);
    letGo();
    letGo(); // a second call does nothing
    expect(bus.stats()).toEqual({ conversation_topics: 0, buffered_events: 0, subscribers: 0, retained_topics: 0, agent_topics: 0 });
    expect(bus.lastSeq(CONV)).toBe(0);
    expect(seqs(bus.eventsSince(CONV, "b-1-2"))).toBe("gap");
  });

  it("restarts the numbering under a new epoch, so an id from before the release is foreign, never matched", () => {
    const bus = new EventBus({ bootId: "b" });
    const first = bus.retain(CONV);
    publishMany(bus, 5);
    const oldId = bus.lastId(CONV);
    expect(oldId).toBe("b-1-5");
    first();
    const viewer: number[] = [];
    bus.subscribe(CONV, (m) => viewer.push(m.seq ?? -1));
    publishMany(bus, 8); // numbers 1..8 again, past the old id's 5
    expect(bus.lastId(CONV)).toBe("b-2-8");
    expect(seqs(bus.eventsSince(CONV, oldId))).toBe("gap");
    expect(seqs(bus.eventsSince(CONV, "b-1-3"))).toBe("gap");
    expect(seqs(bus.eventsSince(CONV, "b-2-6"))).toEqual([7, 8]);
    expect(viewer).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it("drops an agent topic with its last subscriber", () => {
    const bus = new EventBus();
    const topic = agentTopic("conv_20260711_210000_001", 1);
    const off = bus.subscribe(topic, () => undefined);
    expect(bus.stats().agent_topics).toBe(1);
    off();
    expect(bus.stats().agent_topics).toBe(0);
    expect(bus.publish(topic, { type: "inbox" })).toBeNull();
    expect(() => bus.retain(topic as unknown as typeof CONV)).toThrow(TypeError);
  });
});

describe("live-only events", () => {
  it("delivers streamed text to current subscribers without numbering or keeping it", () => {
    const bus = new EventBus({ bootId: "b" });
    const got: ConversationMessage[] = [];
    bus.subscribe(CONV, (m) => got.push(m));
    bus.publish(CONV, busy(1));
    const d1 = bus.publish(CONV, delta("Hel"));
    const d2 = bus.publish(CONV, delta("lo"));
    bus.publish(CONV, { type: "message", agent_id: null, message: { role: "assistant", content: "Hello", message_id: "m1" } });
    expect(d1).toMatchObject({ seq: null, live: true, after: 1, id: "b-1-1", event: delta("Hel") });
    expect(d2).toMatchObject({ seq: null, after: 1, id: "b-1-1" });
    expect(got.map((m) => [m.seq, m.event.type])).toEqual([
      [1, "leader_busy"],
      [null, "delta"],
      [null, "delta"],
      [2, "message"],
    ]);
    // Nothing of the streamed text is kept: a reconnect is replayed the saved message only.
    expect(bus.lastSeq(CONV)).toBe(2);
    expect(bus.stats().buffered_events).toBe(2);
    const replay = bus.eventsSince(CONV, "b-1-0");
    expect("gap" in replay ? "gap" : replay.events.map((e) => e.event.type)).toEqual(["leader_busy", "message"]);
  });

  it("keeps nothing of a long stream of text: the buffer holds only numbered events", () => {
    const bus = new EventBus({ bootId: "b", bufferSize: 3 });
    bus.retain(CONV);
    bus.publish(CONV, busy(1));
    for (let i = 0; i < 100; i++) bus.publish(CONV, delta(`t${i}`));
    // The one numbered event is still there to replay: 100 deltas did not push it out.
    expect(seqs(bus.eventsSince(CONV, "b-1-0"))).toEqual([1]);
  });
});

describe("subscribers", () => {
  it("delivers synchronously to every subscriber and stops after unsubscribe", () => {
    const bus = new EventBus();
    const a: Array<number | null> = [];
    const b: Array<number | null> = [];
    const offA = bus.subscribe(CONV, (m) => a.push(m.seq));
    bus.subscribe(CONV, (m) => b.push(m.seq));
    expect(bus.subscriberCount(CONV)).toBe(2);
    bus.publish(CONV, busy(1));
    expect([a, b]).toEqual([[1], [1]]);
    offA();
    offA();
    expect(bus.subscriberCount(CONV)).toBe(1);
    bus.publish(CONV, busy(2));
    expect([a, b]).toEqual([[1], [1, 2]]);
  });

  it("keeps the same function subscribed twice as two subscriptions", () => {
    const bus = new EventBus();
    const got: Array<number | null> = [];
    const fn = (m: ConversationMessage) => got.push(m.seq);
    const off1 = bus.subscribe(CONV, fn);
    bus.subscribe(CONV, fn);
    bus.publish(CONV, busy(1));
    off1();
    bus.publish(CONV, busy(2));
    expect(got).toEqual([1, 1, 2]);
  });

  it("a throwing listener breaks neither the publisher nor the other listeners", () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const bus = new EventBus();
    const got: Array<number | null> = [];
    bus.subscribe(CONV, () => {
      throw new Error("boom");
    });
    bus.subscribe(CONV, (m) => got.push(m.seq));
    expect(() => publishMany(bus, 3)).not.toThrow();
    expect(got).toEqual([1, 2, 3]);
    expect(bus.lastSeq(CONV)).toBe(3);
    expect(error).toHaveBeenCalledTimes(3);
  });

  it("a listener that unsubscribes another mid-publish does not disturb this round", () => {
    const bus = new EventBus();
    const got: string[] = [];
    let offB = () => {};
    bus.subscribe(CONV, (m) => {
      got.push(`a${m.seq}`);
      offB();
    });
    offB = bus.subscribe(CONV, (m) => got.push(`b${m.seq}`));
    publishMany(bus, 2);
    expect(got).toEqual(["a1", "b1", "a2"]);
  });

  it("a listener finds its event already in the replay buffer", () => {
    const bus = new EventBus({ bootId: "b" });
    let seen: number[] | "gap" = [];
    bus.subscribe(CONV, () => {
      seen = seqs(bus.eventsSince(CONV, "b-1-0"));
    });
    publishMany(bus, 2);
    expect(seen).toEqual([1, 2]);
  });
});
