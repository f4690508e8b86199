import { afterEach, describe, expect, it, vi } from "vitest";
import { conversationTopic, EventBus, parseEventId } from "@/lib/bus";
import { RuntimeEventSchema, type ConversationSnapshot, type RuntimeEvent } from "@/lib/runtime/events";
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

function delta(n: number): RuntimeEvent {
  return { type: "delta", agent_id: null, kind: "content", text: `t${n}` };
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

  /** Numbers of the live (non-snapshot) events received. */
  liveSeqs(): number[] {
    return this.events()
      .filter((e) => e.event.type !== "snapshot")
      .map((e) => e.seq);
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
    bus.publish(CONV, delta(1));
    bus.publish(CONV, { type: "leader_busy", busy: true });
    await client.until(() => client.events().length === 3);

    expect(client.raw).toBe(
      ": connected\n\nretry: 2000\n\n" +
        `id: b-0\ndata: ${JSON.stringify({ type: "snapshot", snapshot: SNAP })}\n\n` +
        `id: b-1\ndata: {"type":"delta","agent_id":null,"kind":"content","text":"t1"}\n\n` +
        `id: b-2\ndata: {"type":"leader_busy","busy":true}\n\n`,
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
    const bus = new EventBus({ bootId: "b" });
    for (let i = 1; i <= 5; i++) bus.publish(CONV, delta(i));
    const client = open(bus, {
      snapshot: async () => {
        // Events published while the snapshot is being read must follow it, not be lost.
        for (let i = 6; i <= 8; i++) {
          bus.publish(CONV, delta(i));
          await tick();
        }
        return SNAP;
      },
    });
    await client.until(() => client.liveSeqs().at(-1) === 8);
    bus.publish(CONV, delta(9));
    await client.until(() => client.liveSeqs().at(-1) === 9);
    const [first, ...rest] = client.events();
    expect(first).toMatchObject({ id: "b-5", event: { type: "snapshot" } });
    expect(rest.map((e) => e.seq)).toEqual([6, 7, 8, 9]);
    await client.cancel();
  });

  it("sends a snapshot when the Last-Event-ID is from another boot, evicted or malformed", async () => {
    const bus = new EventBus({ bootId: "b", bufferSize: 4 });
    for (let i = 1; i <= 10; i++) bus.publish(CONV, delta(i));
    for (const lastEventId of ["old-3", "b-2", "nonsense", "b-11", ""]) {
      const client = open(bus, { lastEventId });
      await client.until(() => client.events().length === 1);
      expect(client.events()[0], lastEventId).toMatchObject({ id: "b-10", event: { type: "snapshot" } });
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

describe("resume with Last-Event-ID", () => {
  it("replays what was missed, beyond one read's worth, then continues live, without a snapshot", async () => {
    const bus = new EventBus({ bootId: "b" });
    for (let i = 1; i <= 300; i++) bus.publish(CONV, delta(i));
    const client = open(bus, { lastEventId: "b-120" });
    await client.until(() => client.liveSeqs().at(-1) === 300);
    bus.publish(CONV, delta(301));
    await client.until(() => client.liveSeqs().at(-1) === 301);
    expect(client.events().some((e) => e.event.type === "snapshot")).toBe(false);
    expect(client.liveSeqs()).toEqual(Array.from({ length: 181 }, (_, i) => 121 + i));
    expect((client.events()[0]!.event as { text: string }).text).toBe("t121");
    await client.cancel();
  });

  it("an id at the head replays nothing and waits for live events", async () => {
    const bus = new EventBus({ bootId: "b" });
    for (let i = 1; i <= 3; i++) bus.publish(CONV, delta(i));
    const client = open(bus, { lastEventId: "b-3" });
    bus.publish(CONV, delta(4));
    await client.until(() => client.events().length === 1);
    expect(client.liveSeqs()).toEqual([4]);
    await client.cancel();
  });

  it("receives exactly 1..1000 across reconnects while 1000 events are being published", async () => {
    const bus = new EventBus({ bootId: "b" });
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
        bus.publish(CONV, delta(i));
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
    expect(first.events()[0]).toMatchObject({ id: "b-0", event: { type: "snapshot" } });
    expect(publishedDuringSnapshot).toBeGreaterThan(0);
    expect(connections).toBeGreaterThanOrEqual(5);
    expect(received).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
    expect(bus.subscriberCount(CONV)).toBe(0);
  });

  it("a client that fell behind the buffer is told to resync, and its reconnect gets a snapshot", async () => {
    const bus = new EventBus({ bootId: "b", bufferSize: 10 });
    const ends: EventStreamEnd[] = [];
    const client = open(bus, { onEnd: (r) => ends.push(r) });
    await client.until(() => client.events().length === 1);
    for (let i = 1; i <= 100; i++) {
      bus.publish(CONV, delta(i));
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
    expect(again.events()[0]).toMatchObject({ id: "b-100", event: { type: "snapshot" } });
    await again.cancel();
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
      bus.publish(CONV, delta(i));
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
    expect(() => bus.publish(CONV, delta(1))).not.toThrow();
  });

  it("a consumer cancelling (a closed tab) unsubscribes without touching the publisher", async () => {
    const bus = new EventBus();
    const ends: EventStreamEnd[] = [];
    const client = open(bus, { heartbeatMs: 5, onEnd: (r) => ends.push(r) });
    await client.until(() => client.events().length === 1);
    await client.cancel();
    expect(bus.subscriberCount(CONV)).toBe(0);
    expect(ends).toEqual(["cancel"]);
    for (let i = 1; i <= 10; i++) bus.publish(CONV, delta(i));
    expect(bus.lastSeq(CONV)).toBe(10);
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
