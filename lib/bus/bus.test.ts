import { afterEach, describe, expect, it, vi } from "vitest";
import type { RuntimeEvent } from "@/lib/runtime/events";
import { agentTopic, conversationTopic, EventBus, getBus, isConversationTopic, parseEventId, type BusMessage, type NumberedEvent } from "./index";

const CONV = conversationTopic("conv_20260711_210000_001");
const OTHER = conversationTopic("conv_20260711_210000_002");

function busy(n: number): RuntimeEvent {
  return { type: "delta", agent_id: null, kind: "content", text: String(n) };
}

function publishMany(bus: EventBus, count: number, topic = CONV): NumberedEvent[] {
  const out: NumberedEvent[] = [];
  for (let i = 1; i <= count; i++) out.push(bus.publish(topic, busy(i)));
  return out;
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
  it("numbers conversation events 1, 2, 3… per topic with ids <bootId>-<seq>", () => {
    const bus = new EventBus({ bootId: "boot1" });
    expect(bus.lastSeq(CONV)).toBe(0);
    expect(bus.lastId(CONV)).toBe("boot1-0");
    const a = bus.publish(CONV, busy(1));
    const b = bus.publish(CONV, busy(2));
    const c = bus.publish(OTHER, busy(3));
    expect([a.seq, a.id, b.seq, b.id]).toEqual([1, "boot1-1", 2, "boot1-2"]);
    expect([c.seq, c.id]).toEqual([1, "boot1-1"]);
    expect(bus.lastSeq(CONV)).toBe(2);
    expect(bus.lastId(CONV)).toBe("boot1-2");
    expect(a.event).toEqual(busy(1));
  });

  it("gives each process start a different random boot id", () => {
    const ids = new Set(Array.from({ length: 20 }, () => new EventBus().bootId));
    expect(ids.size).toBe(20);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{16}$/);
  });

  it("does not number or keep agent-topic events", () => {
    const bus = new EventBus();
    const topic = agentTopic("conv_20260711_210000_001", 2);
    const got: BusMessage[] = [];
    bus.subscribe(topic, (m) => got.push(m));
    const m = bus.publish(topic, { inbox: 1 });
    expect(m).toMatchObject({ seq: null, id: null, event: { inbox: 1 } });
    expect(got).toEqual([m]);
    expect(bus.lastSeq(CONV)).toBe(0);
  });

  it("parses ids and refuses anything else", () => {
    expect(parseEventId("abc123-42")).toEqual({ bootId: "abc123", seq: 42 });
    expect(parseEventId("abc123-0")).toEqual({ bootId: "abc123", seq: 0 });
    for (const bad of ["", "42", "abc-", "-4", "abc-04", "abc-1.5", "abc--1", "ABC-1", "abc-99999999999999999", "a b-1"]) {
      expect(parseEventId(bad), bad).toBeNull();
    }
  });
});

describe("replay", () => {
  it("returns the events after an id, none at the head", () => {
    const bus = new EventBus({ bootId: "b" });
    publishMany(bus, 10);
    expect(seqs(bus.eventsSince(CONV, "b-4"))).toEqual([5, 6, 7, 8, 9, 10]);
    expect(seqs(bus.eventsSince(CONV, "b-0"))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(seqs(bus.eventsSince(CONV, "b-10"))).toEqual([]);
    expect(seqs(bus.eventsSince(CONV, "b-4", 2))).toEqual([5, 6]);
    expect(seqs(bus.eventsSince(CONV, "b-4", 0))).toEqual([]);
  });

  it("reports a gap once the ring buffer evicted what the client missed", () => {
    const bus = new EventBus({ bootId: "b", bufferSize: 5 });
    publishMany(bus, 12); // keeps 8..12
    expect(seqs(bus.eventsSince(CONV, "b-7"))).toEqual([8, 9, 10, 11, 12]);
    expect(seqs(bus.eventsSince(CONV, "b-6"))).toBe("gap");
    expect(seqs(bus.eventsSince(CONV, "b-0"))).toBe("gap");
    // The ring keeps wrapping correctly.
    publishMany(bus, 3);
    expect(seqs(bus.eventsSince(CONV, "b-10"))).toEqual([11, 12, 13, 14, 15]);
    expect(seqs(bus.eventsSince(CONV, "b-9"))).toBe("gap");
  });

  it("reports a gap for an id from another boot, a malformed id, a future number or no id", () => {
    const bus = new EventBus({ bootId: "now" });
    publishMany(bus, 3);
    expect(seqs(bus.eventsSince(CONV, "before-1"))).toBe("gap");
    expect(seqs(bus.eventsSince(CONV, "garbage"))).toBe("gap");
    expect(seqs(bus.eventsSince(CONV, "now-4"))).toBe("gap");
    expect(seqs(bus.eventsSince(CONV, null))).toBe("gap");
    expect(seqs(bus.eventsSince(CONV, ""))).toBe("gap");
    expect(seqs(bus.eventsSince(OTHER, "now-1"))).toBe("gap"); // that topic never got there
  });
});

describe("subscribers", () => {
  it("delivers synchronously to every subscriber and stops after unsubscribe", () => {
    const bus = new EventBus();
    const a: number[] = [];
    const b: number[] = [];
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
    const got: number[] = [];
    const fn = (m: NumberedEvent) => got.push(m.seq);
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
    const got: number[] = [];
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
      seen = seqs(bus.eventsSince(CONV, "b-0"));
    });
    publishMany(bus, 2);
    expect(seen).toEqual([1, 2]);
  });
});

describe("getBus", () => {
  it("is one instance per process, kept on globalThis", () => {
    const bus = getBus();
    expect(getBus()).toBe(bus);
    expect((globalThis as unknown as Record<symbol, unknown>)[Symbol.for("astrion.bus")]).toBe(bus);
  });
});
