import { afterEach, describe, expect, it, vi } from "vitest";
import { conversationTopic, EventBus, parseEventId } from "@/lib/bus";
import { RuntimeEventSchema, type ConversationSnapshot, type RuntimeEvent } from "@/lib/contracts/events";
import { createEventStream, type EventStreamEnd, type EventStreamOptions } from "./event-stream";
import { formatComment, formatEvent, formatOpening } from "./frame";

const CONV_ID = "conv_20260711_210000_001";
const CONV = conversationTopic(CONV_ID);

const SNAP: ConversationSnapshot = {
  conversation: {
    id: CONV_ID,
    title: "设计前端",
    created_at: "2026-07-11T21:00:00",
    updated_at: "2026-07-11T21:00:00",
    project_path: "/tmp/project",
    model_key: "offline",
    thinking_mode: false,
    run_mode: "fast",
    status: "active",
    agent_count: 0,
    agent_ids: [],
  },
  leader: { messages: [{ role: "user", content: "line one\nline two", message_id: "m1" }], busy: false, token_statistics: {} },
  agents: [],
  questions: [],
  notices: [],
  caps: { max_agents: 8, max_calls_per_task: 30 },
  model_label: "Offline (built-in) — offline",
};

/** A numbered event (kept for replay), told apart by `n`. */
function ev(n: number): RuntimeEvent {
  return { type: "usage", token_statistics: { n } };
}

/** A live-only event: streamed text, delivered but never kept. */
function delta(n: number): RuntimeEvent {
  return { type: "delta", agent_id: null, kind: "content", text: `t${n}` };
}

/** `n` of an {@link ev} event. */
function nOf(event: RuntimeEvent): unknown {
  return event.type === "usage" ? event.token_statistics.n : undefined;
}

/** A bus holding `CONV` as the runtime does while it works, so events are numbered and kept without a viewer. */
function heldBus(options: ConstructorParameters<typeof EventBus>[0] = {}): EventBus {
  const bus = new EventBus(options);
  bus.retain(CONV);
  return bus;
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

type Item =
  | { kind: "comment"; text: string }
  | { kind: "retry"; ms: number }
  | { kind: "event"; id: string; seq: number; event: RuntimeEvent };

/** A minimal EventSource-style parser over the stream's bytes (WHATWG HTML §9.2.6). */
class SseClient {
  readonly items: Item[] = [];
  raw = "";
  done = false;
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #buffer = "";

  constructor(stream: ReadableStream<Uint8Array>) {
    this.#reader = stream.getReader();
  }

  /** Reads one chunk; false once the stream has ended. */
  async read(): Promise<boolean> {
    if (this.done) return false;
    const { done, value } = await this.#reader.read();
    if (done) {
      this.done = true;
      return false;
    }
    const text = this.#decoder.decode(value, { stream: true });
    this.raw += text;
    this.#buffer += text;
    let cut: number;
    while ((cut = this.#buffer.indexOf("\n\n")) >= 0) {
      const block = this.#buffer.slice(0, cut);
      this.#buffer = this.#buffer.slice(cut + 2);
      let id: string | undefined;
      const data: string[] = [];
      for (const line of block.split("\n")) {
        if (line.startsWith(":")) this.items.push({ kind: "comment", text: line.slice(1).trim() });
        else if (line.startsWith("retry: ")) this.items.push({ kind: "retry", ms: Number(line.slice(7)) });
        else if (line.startsWith("id: ")) id = line.slice(4);
        else if (line.startsWith("data: ")) data.push(line.slice(6));
        else throw new Error(`unexpected SSE line ${JSON.stringify(line)}`);
      }
      if (data.length > 0) {
        expect(id, "every event carries an id").toBeDefined();
        const event = RuntimeEventSchema.parse(JSON.parse(data.join("\n")));
        this.items.push({ kind: "event", id: id!, seq: parseEventId(id!)!.seq, event });
      }
    }
    return true;
  }

  /** Reads until `done()` holds (or the stream ends). */
  async until(done: () => boolean, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      if (!(await this.read())) return;
      if (Date.now() > deadline) throw new Error("timed out reading the stream");
    }
  }

  async readToEnd(): Promise<void> {
    while (await this.read());
  }

  events(): Extract<Item, { kind: "event" }>[] {
    return this.items.filter((i): i is Extract<Item, { kind: "event" }> => i.kind === "event");
  }

  /** Numbers of the numbered events received (not the snapshot, not streamed text). */
  liveSeqs(): number[] {
    return this.events()
      .filter((e) => e.event.type !== "snapshot" && e.event.type !== "delta")
      .map((e) => e.seq);
  }

  /** Texts of the live-only events received. */
  deltas(): string[] {
    return this.events().flatMap((e) => (e.event.type === "delta" ? [e.event.text] : []));
  }

  lastId(): string | undefined {
    return this.events().at(-1)?.id;
  }

  comments(): string[] {
    return this.items.filter((i): i is Extract<Item, { kind: "comment" }> => i.kind === "comment").map((i) => i.text);
  }

  cancel(): Promise<void> {
    return this.#reader.cancel();
  }
}

function open(bus: EventBus, options: Partial<EventStreamOptions> = {}) {
  return new SseClient(createEventStream({ bus, topic: CONV, snapshot: async () => SNAP, heartbeatMs: 0, ...options }));
}

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("framing", () => {
  it("opens with a comment and retry, then a snapshot, then numbered events as default messages", async () => {
    const bus = new EventBus({ bootId: "b" });
    const client = open(bus);
    await client.until(() => client.events().length === 1);
    bus.publish(CONV, { type: "leader_busy", busy: true });
    bus.publish(CONV, delta(1));
    bus.publish(CONV, ev(2));
    await client.until(() => client.events().length === 4);

    expect(client.raw).toBe(
      ": connected\n\nretry: 2000\n\n" +
        `id: b-1-0\ndata: ${JSON.stringify({ type: "snapshot", snapshot: SNAP })}\n\n` +
        `id: b-1-1\ndata: {"type":"leader_busy","busy":true}\n\n` +
        // Streamed text carries the id of the event it follows: a reconnect resumes after that one.
        `id: b-1-1\ndata: {"type":"delta","agent_id":null,"kind":"content","text":"t1"}\n\n` +
        `id: b-1-2\ndata: {"type":"usage","token_statistics":{"n":2}}\n\n`,
    );
    expect(client.raw).not.toMatch(/^event:/m);
    expect(client.items.slice(0, 2)).toEqual([
      { kind: "comment", text: "connected" },
      { kind: "retry", ms: 2000 },
    ]);
    expect(client.events()[0]!.event).toEqual({ type: "snapshot", snapshot: SNAP });
    await client.cancel();
  });

  it("keeps multi-line text on one data line and refuses ids that would break a frame", () => {
    expect(formatEvent("b-1", { type: "delta", agent_id: 2, kind: "content", text: "a\nb\r\nc" })).toBe(
      'id: b-1\ndata: {"type":"delta","agent_id":2,"kind":"content","text":"a\\nb\\r\\nc"}\n\n',
    );
    expect(() => formatEvent("b\n1", delta(1))).toThrow(TypeError);
    expect(formatComment("two\nlines")).toBe(": two lines\n\n");
    expect(formatOpening(500)).toBe(": connected\n\nretry: 500\n\n");
  });
});

describe("snapshot first", () => {
  it("gives the snapshot the last id taken before it was built and sends later events after it, once", async () => {
    const bus = heldBus({ bootId: "b" });
    for (let i = 1; i <= 5; i++) bus.publish(CONV, ev(i));
    const client = open(bus, {
      snapshot: async () => {
        // Events published while the snapshot is being read must follow it, not be lost. Text
        // streamed meanwhile is not part of it (as for a viewer arriving mid-call): not sent.
        for (let i = 6; i <= 8; i++) {
          bus.publish(CONV, ev(i));
          bus.publish(CONV, delta(i));
          await tick();
        }
        return SNAP;
      },
    });
    await client.until(() => client.liveSeqs().at(-1) === 8);
    bus.publish(CONV, delta(9));
    bus.publish(CONV, ev(9));
    await client.until(() => client.liveSeqs().at(-1) === 9);
    const [first, ...rest] = client.events();
    expect(first).toMatchObject({ id: "b-1-5", event: { type: "snapshot" } });
    expect(rest.map((e) => [e.id, e.event.type])).toEqual([
      ["b-1-6", "usage"],
      ["b-1-7", "usage"],
      ["b-1-8", "usage"],
      ["b-1-8", "delta"],
      ["b-1-9", "usage"],
    ]);
    await client.cancel();
  });

  it("a flood of streamed text while the snapshot is built neither fills the stream nor closes it", async () => {
    const bus = heldBus({ bootId: "b" });
    const ends: EventStreamEnd[] = [];
    const client = open(bus, {
      maxQueue: 20,
      onEnd: (r) => ends.push(r),
      snapshot: async () => {
        for (let i = 1; i <= 500; i++) bus.publish(CONV, delta(i));
        await tick();
        return SNAP;
      },
    });
    await client.until(() => client.events().length === 1);
    bus.publish(CONV, delta(501));
    bus.publish(CONV, ev(1));
    await client.until(() => client.liveSeqs().length === 1);
    expect(client.events().map((e) => e.event.type)).toEqual(["snapshot", "delta", "usage"]);
    expect(client.deltas()).toEqual(["t501"]);
    expect(ends).toEqual([]);
    await client.cancel();
  });

  it("sends a snapshot when the Last-Event-ID is from another boot, evicted or malformed", async () => {
    const bus = heldBus({ bootId: "b", bufferSize: 4 });
    for (let i = 1; i <= 10; i++) bus.publish(CONV, ev(i));
    for (const lastEventId of ["old-1-3", "b-1-2", "b-2-9", "b-9", "nonsense", "b-1-11", ""]) {
      const client = open(bus, { lastEventId });
      await client.until(() => client.events().length === 1);
      expect(client.events()[0], lastEventId).toMatchObject({ id: "b-1-10", event: { type: "snapshot" } });
      await client.cancel();
    }
  });

  it("closes the stream when the snapshot cannot be built, and unsubscribes", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const bus = new EventBus();
    const ends: EventStreamEnd[] = [];
    const client = open(bus, { snapshot: async () => Promise.reject(new Error("disk gone")), onEnd: (r) => ends.push(r) });
    await client.readToEnd();
    expect(client.events()).toEqual([]);
    expect(ends).toEqual(["error"]);
    expect(bus.subscriberCount(CONV)).toBe(0);
    expect(error).toHaveBeenCalled();
  });
});

describe("one write per turn", () => {
  it("sends the events published in one turn of the event loop as one chunk, in order", async () => {
    const bus = new EventBus({ bootId: "b" });
    const stream = createEventStream({ bus, topic: CONV, snapshot: async () => SNAP, heartbeatMs: 0 });
    const client = new SseClient(stream);
    await client.until(() => client.events().length === 1); // the snapshot
    // published from separate callbacks of one turn (as steps finishing together do), text between
    for (let i = 1; i <= 5; i++) setImmediate(() => bus.publish(CONV, ev(i)));
    setImmediate(() => bus.publish(CONV, delta(6)));
    await tick();
    await tick();
    const before = client.events().length;
    await client.read();
    expect(client.events().slice(before).map((e) => (e.event.type === "usage" ? nOf(e.event) : e.event.type))).toEqual([1, 2, 3, 4, 5, "delta"]);
  });
});

describe("resume with Last-Event-ID", () => {
  it("replays what was missed, beyond one read's worth, then continues live, without a snapshot", async () => {
    const bus = heldBus({ bootId: "b" });
    for (let i = 1; i <= 300; i++) bus.publish(CONV, ev(i));
    const client = open(bus, { lastEventId: "b-1-120" });
    await client.until(() => client.liveSeqs().at(-1) === 300);
    bus.publish(CONV, ev(301));
    await client.until(() => client.liveSeqs().at(-1) === 301);
    expect(client.events().some((e) => e.event.type === "snapshot")).toBe(false);
    expect(client.liveSeqs()).toEqual(Array.from({ length: 181 }, (_, i) => 121 + i));
    expect(nOf(client.events()[0]!.event)).toBe(121);
    await client.cancel();
  });

  it("an id at the head replays nothing and waits for live events", async () => {
    const bus = heldBus({ bootId: "b" });
    for (let i = 1; i <= 3; i++) bus.publish(CONV, ev(i));
    const client = open(bus, { lastEventId: "b-1-3" });
    bus.publish(CONV, ev(4));
    await client.until(() => client.events().length === 1);
    expect(client.liveSeqs()).toEqual([4]);
    await client.cancel();
  });

  it("receives exactly 1..1000 across reconnects while 1000 events are being published", async () => {
    const bus = heldBus({ bootId: "b" });
    const received: number[] = [];
    // The first connection arrives before anything is published; its snapshot is slow, so events
    // are published while it is being built.
    let lastId: string | undefined;
    let publishedDuringSnapshot = 0;
    let client = open(bus, {
      snapshot: async () => {
        for (let k = 0; k < 5; k++) await tick();
        publishedDuringSnapshot = bus.lastSeq(CONV);
        return SNAP;
      },
    });
    const first = client;
    let publishing = true;
    const publisher = (async () => {
      for (let i = 1; i <= 1000; i++) {
        bus.publish(CONV, ev(i));
        if (i % 7 === 0) await tick();
      }
      publishing = false;
    })();
    let connections = 1;
    for (;;) {
      const target = Math.min(1000, (received.at(-1) ?? 0) + 150);
      await client.until(() => (client.liveSeqs().at(-1) ?? 0) >= target);
      received.push(...client.liveSeqs());
      lastId = client.lastId();
      if (received.at(-1) === 1000) break;
      // Drop the connection mid-stream: whatever sat unread in its queue is lost with it and
      // must come back through the replay.
      await client.cancel();
      client = open(bus, { lastEventId: lastId });
      connections++;
    }
    await publisher;
    await client.cancel();

    expect(publishing).toBe(false);
    expect(first.events()[0]).toMatchObject({ id: "b-1-0", event: { type: "snapshot" } });
    expect(publishedDuringSnapshot).toBeGreaterThan(0);
    expect(connections).toBeGreaterThanOrEqual(5);
    expect(received).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
    expect(bus.subscriberCount(CONV)).toBe(0);
  });

  it("a client that fell behind the buffer is told to resync, and its reconnect gets a snapshot", async () => {
    const bus = heldBus({ bootId: "b", bufferSize: 10 });
    const ends: EventStreamEnd[] = [];
    const client = open(bus, { onEnd: (r) => ends.push(r) });
    await client.until(() => client.events().length === 1);
    for (let i = 1; i <= 100; i++) {
      bus.publish(CONV, ev(i));
      await tick();
      // Reads stall after a few events.
      if (i <= 3) await client.read();
    }
    await client.readToEnd();
    const seen = client.liveSeqs();
    expect(seen).toEqual(Array.from({ length: seen.length }, (_, i) => i + 1)); // contiguous, no silent hole
    expect(seen.length).toBeLessThan(100);
    expect(client.comments().at(-1)).toBe("resync");
    expect(ends).toEqual(["gap"]);

    const again = open(bus, { lastEventId: client.lastId() });
    await again.until(() => again.events().length === 1);
    expect(again.events()[0]).toMatchObject({ id: "b-1-100", event: { type: "snapshot" } });
    await again.cancel();
  });
});

describe("live-only events (streamed text)", () => {
  it("are sent in their place among numbered events published in the same tick", async () => {
    const bus = new EventBus({ bootId: "b" });
    const client = open(bus);
    await client.until(() => client.events().length === 1);
    // One synchronous burst: the stream pumps on a later microtask and must keep this order.
    bus.publish(CONV, ev(1));
    bus.publish(CONV, delta(1));
    bus.publish(CONV, delta(2));
    bus.publish(CONV, ev(2));
    bus.publish(CONV, ev(3));
    bus.publish(CONV, delta(3));
    await client.until(() => client.deltas().length === 3);
    expect(client.events().slice(1).map((e) => (e.event.type === "delta" ? e.event.text : nOf(e.event)))).toEqual([1, "t1", "t2", 2, 3, "t3"]);
    await client.cancel();
  });

  it("are not replayed to a reconnecting client: it gets the saved message, which holds the whole text", async () => {
    const bus = heldBus({ bootId: "b" });
    const watcher = open(bus);
    await watcher.until(() => watcher.events().length === 1);
    const leaving = open(bus);
    await leaving.until(() => leaving.events().length === 1);
    const lastSeen = leaving.lastId()!;
    await leaving.cancel();

    bus.publish(CONV, { type: "leader_busy", busy: true });
    for (const piece of ["Hel", "lo, ", "world"]) bus.publish(CONV, { type: "delta", agent_id: null, kind: "content", text: piece });
    bus.publish(CONV, { type: "message", agent_id: null, message: { role: "assistant", content: "Hello, world", message_id: "m2" } });
    bus.publish(CONV, { type: "leader_busy", busy: false });
    // A viewer connected meanwhile saw the text stream live.
    await watcher.until(() => watcher.liveSeqs().length === 3);
    expect(watcher.deltas()).toEqual(["Hel", "lo, ", "world"]);

    const back = open(bus, { lastEventId: lastSeen });
    await back.until(() => back.liveSeqs().length === 3);
    expect(back.events().map((e) => e.event.type)).toEqual(["leader_busy", "message", "leader_busy"]);
    expect(back.events()[1]!.event).toMatchObject({ type: "message", message: { content: "Hello, world" } });
    await Promise.all([watcher.cancel(), back.cancel()]);
  });

  it("a client that reads none of a long stream of text is closed at maxQueue; publishing never waits", async () => {
    const bus = new EventBus({ bootId: "b" });
    const maxQueue = 40;
    let end: EventStreamEnd | undefined;
    let endedAt = 0;
    let published = 0;
    const stalled = createEventStream({ bus, topic: CONV, snapshot: async () => SNAP, maxQueue, heartbeatMs: 0, onEnd: (r) => ((end = r), (endedAt = published)) });
    await tick();
    for (let i = 1; i <= 500; i++) {
      bus.publish(CONV, delta(i));
      published = i;
      if (i % 5 === 0) await tick();
    }
    expect(end).toBe("overflow");
    expect(endedAt).toBeLessThanOrEqual(maxQueue + 20);
    expect(bus.subscriberCount(CONV)).toBe(0);
    const slow = new SseClient(stalled);
    await slow.readToEnd();
    expect(slow.deltas().length).toBeLessThanOrEqual(maxQueue + 20);
    expect(slow.deltas()).toEqual(Array.from({ length: slow.deltas().length }, (_, i) => `t${i + 1}`));
    expect(slow.comments().at(-1)).toBe("overflow");
  });
});

describe("a released topic", () => {
  it("gives a client with an id from before the release a fresh snapshot, never the new numbering's events", async () => {
    const bus = new EventBus({ bootId: "b" });
    const letGo = bus.retain(CONV);
    const client = open(bus);
    await client.until(() => client.events().length === 1);
    for (let i = 1; i <= 3; i++) bus.publish(CONV, ev(i));
    await client.until(() => client.liveSeqs().at(-1) === 3);
    const oldId = client.lastId()!;
    expect(oldId).toBe("b-1-3");
    await client.cancel();
    letGo(); // no viewer, no run: the topic's numbering and buffer are dropped
    expect(bus.stats().conversation_topics).toBe(0);

    const other = open(bus); // a new viewer holds the topic again: numbering restarts
    await other.until(() => other.events().length === 1);
    for (let i = 1; i <= 6; i++) bus.publish(CONV, ev(100 + i));
    await other.until(() => other.liveSeqs().at(-1) === 6);

    const back = open(bus, { lastEventId: oldId });
    await back.until(() => back.events().length === 1);
    expect(back.events()[0]).toMatchObject({ id: "b-2-6", event: { type: "snapshot" } });
    bus.publish(CONV, ev(107));
    await back.until(() => back.liveSeqs().length === 1);
    expect(back.events().slice(1).map((e) => [e.id, nOf(e.event)])).toEqual([["b-2-7", 107]]);
    await Promise.all([other.cancel(), back.cancel()]);
    expect(bus.stats()).toMatchObject({ conversation_topics: 0, buffered_events: 0 });
  });
});

describe("heartbeat", () => {
  it("sends a ping comment every heartbeatMs", async () => {
    const bus = new EventBus();
    const client = open(bus, { heartbeatMs: 10 });
    await client.until(() => client.comments().filter((c) => c === "ping").length >= 3);
    expect(client.raw).toContain(": ping\n\n");
    await client.cancel();
  });
});

describe("backpressure", () => {
  it("closes a client that never reads after maxQueue events while a fast one gets everything and publishing never waits", async () => {
    const bus = new EventBus({ bootId: "b" });
    const maxQueue = 50;
    let slowEnd: EventStreamEnd | undefined;
    let slowEndedAt = 0;
    let published = 0;
    const slowStream = createEventStream({
      bus,
      topic: CONV,
      snapshot: async () => SNAP,
      maxQueue,
      heartbeatMs: 0,
      onEnd: (r) => {
        slowEnd = r;
        slowEndedAt = published;
      },
    });
    const fast = open(bus, { maxQueue });
    await fast.until(() => fast.events().length === 1);
    expect(bus.subscriberCount(CONV)).toBe(2);

    const reading = fast.until(() => fast.liveSeqs().at(-1) === 2000);
    let slowestPublishMs = 0;
    for (let i = 1; i <= 2000; i++) {
      const t = performance.now();
      bus.publish(CONV, ev(i));
      slowestPublishMs = Math.max(slowestPublishMs, performance.now() - t);
      published = i;
      if (i % 5 === 0) await tick();
    }
    await reading;

    expect(slowEnd).toBe("overflow");
    expect(slowEndedAt).toBeLessThanOrEqual(maxQueue + 5);
    expect(slowEndedAt).toBeGreaterThan(maxQueue / 2);
    expect(bus.subscriberCount(CONV)).toBe(1);
    expect(fast.liveSeqs()).toEqual(Array.from({ length: 2000 }, (_, i) => i + 1));
    expect(slowestPublishMs).toBeLessThan(50);

    // What the slow client does get is a contiguous prefix, then the reason, then the end.
    const slow = new SseClient(slowStream);
    await slow.readToEnd();
    const seqs = slow.liveSeqs();
    expect(seqs.length).toBeGreaterThan(0);
    expect(seqs.length).toBeLessThanOrEqual(maxQueue);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
    expect(slow.comments().at(-1)).toBe("overflow");
    await fast.cancel();
  });
});

describe("cleanup", () => {
  it("an abort unsubscribes, stops the heartbeat and ends the stream; publishing carries on", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const bus = new EventBus();
    const controller = new AbortController();
    const ends: EventStreamEnd[] = [];
    const client = open(bus, { signal: controller.signal, heartbeatMs: 1000, onEnd: (r) => ends.push(r) });
    await client.until(() => client.events().length === 1);
    expect(bus.subscriberCount(CONV)).toBe(1);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(1000);
    await client.until(() => client.comments().includes("ping"));

    controller.abort();
    expect(bus.subscriberCount(CONV)).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    expect(ends).toEqual(["abort"]);
    await client.readToEnd();
    expect(client.done).toBe(true);
    expect(() => bus.publish(CONV, ev(1))).not.toThrow();
  });

  it("a consumer cancelling (a closed tab) unsubscribes without touching the publisher", async () => {
    const bus = new EventBus();
    const ends: EventStreamEnd[] = [];
    const client = open(bus, { heartbeatMs: 5, onEnd: (r) => ends.push(r) });
    await client.until(() => client.events().length === 1);
    await client.cancel();
    expect(bus.subscriberCount(CONV)).toBe(0);
    expect(ends).toEqual(["cancel"]);
    expect(() => {
      for (let i = 1; i <= 10; i++) bus.publish(CONV, ev(i));
    }).not.toThrow();
  });

  it("an already aborted signal gives an empty stream and never subscribes", async () => {
    const bus = new EventBus();
    const controller = new AbortController();
    controller.abort();
    const client = open(bus, { signal: controller.signal, heartbeatMs: 5 });
    await client.readToEnd();
    expect(client.raw).toBe("");
    expect(bus.subscriberCount(CONV)).toBe(0);
  });

  it("refuses a topic that is not a conversation's", () => {
    expect(() => createEventStream({ bus: new EventBus(), topic: "conv:x:agent:1" as typeof CONV, snapshot: async () => SNAP })).toThrow(TypeError);
  });
});
