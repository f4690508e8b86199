/**
 * The Redis bus when Redis fails under it, against a real redis-server the test flushes, stops
 * and restarts, or whose connections it cuts: publishing never throws, viewers on the other
 * instance get a gap (and resync from a snapshot) instead of missing events silently, and new
 * events flow again; an SSE stream over it shows the same end to end.
 */
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { agentTopic } from "@/lib/bus";
import type { RuntimeEvent } from "@/lib/contracts/events";
import { createEventStream } from "@/lib/sse";
import { emptySnapshot } from "../helpers/snapshot";
import { until } from "../helpers/wait";
import { busy, delta, freshTopic, nOf, numberingOf, readSse, recorder, replayed, redisBusKit } from "../support/redis-bus-kit";

const { redis, makeBus, logged } = redisBusKit();

describe("Redis bus: Redis flushed, restarted, cut off", () => {
  it("FLUSHALL mid-run: publishing goes on, old ids and cursors answer a gap, new events flow", async () => {
    const [a, b] = [await makeBus(), await makeBus()];
    const topic = freshTopic();
    a.retain(topic);
    const onA = recorder();
    const onB = recorder();
    a.subscribe(topic, onA.listener);
    b.subscribe(topic, onB.listener);
    await Promise.all([a.synced(topic), b.synced(topic)]);
    for (let i = 1; i <= 5; i++) a.publish(topic, busy(i));
    await until("B has five events", () => onB.got.length === 5);
    const old = onB.got[2]!.id;
    const cursor = b.lastSeq(topic);
    await redis().flushAll();
    for (let i = 6; i <= 10; i++) expect(() => a.publish(topic, busy(i))).not.toThrow();
    await until("B has event 10", () => onB.got.some((m) => nOf(m) === 10));
    expect(onB.got.slice(5).map(nOf)).toEqual([6, 7, 8, 9, 10]);
    expect(b.eventsSince(topic, old)).toEqual({ gap: true });
    expect(a.eventsSince(topic, old)).toEqual({ gap: true });
    // What B's SSE streams read next from where they were: a gap, so they resync.
    expect(b.eventsAfter(topic, cursor)).toEqual({ gap: true });
    const seven = onB.got.find((m) => nOf(m) === 7)!;
    expect(numberingOf(seven.id)).not.toBe(numberingOf(old));
    expect(replayed(b.eventsSince(topic, seven.id))).toEqual([8, 9, 10]);
    a.publish(topic, busy(11));
    await until("A and B agree again", () => onB.got.some((m) => nOf(m) === 11) && a.lastId(topic) === b.lastId(topic));
  });

  it("FLUSHALL while nothing is published: the next renewal starts a new numbering", async () => {
    const [a, b] = [await makeBus(100, 1500), await makeBus(100, 1500)];
    const topic = freshTopic();
    a.retain(topic);
    b.retain(topic);
    await Promise.all([a.synced(topic), b.synced(topic)]);
    a.publish(topic, busy(1));
    await until("B has event 1", () => b.lastId(topic) === a.lastId(topic));
    const old = b.lastId(topic);
    await redis().flushAll();
    await until("both follow a new numbering", () => numberingOf(a.lastId(topic)) !== numberingOf(old) && numberingOf(b.lastId(topic)) !== numberingOf(old));
    expect(a.eventsSince(topic, old)).toEqual({ gap: true });
    expect(b.eventsSince(topic, old)).toEqual({ gap: true });
    await until("A and B follow the same one", () => a.lastId(topic) === b.lastId(topic));
    const onB = recorder();
    b.subscribe(topic, onB.listener);
    a.publish(topic, busy(2));
    await until("B has event 2", () => onB.got.length === 1);
    expect(onB.got[0]!.id).toBe(a.lastId(topic));
  });

  it("Redis stopped and restarted: publishing never throws, events meanwhile stay local, delivery resumes", async () => {
    const [a, b] = [await makeBus(), await makeBus()];
    const topic = freshTopic();
    a.retain(topic);
    const onA = recorder();
    const onB = recorder();
    a.subscribe(topic, onA.listener);
    b.subscribe(topic, onB.listener);
    await Promise.all([a.synced(topic), b.synced(topic)]);
    for (let i = 1; i <= 3; i++) a.publish(topic, busy(i));
    await until("B has three events", () => onB.got.length === 3);
    const old = onB.got[2]!.id;
    const cursor = b.lastSeq(topic);
    await redis().stop();
    try {
      expect(() => {
        a.publish(topic, busy(4));
        a.publish(topic, delta("while Redis is away"));
        a.publish(agentTopic(topic.slice("conv:".length), 1), { type: "inbox" });
      }).not.toThrow();
      expect(onA.got.map((m) => m.event)).toContainEqual(busy(4));
    } finally {
      await redis().start();
    }
    await Promise.all([a.whenConnected(), b.whenConnected()]);
    await Promise.all([a.synced(topic), b.synced(topic)]);
    a.publish(topic, busy(5));
    await until("B has event 5", () => onB.got.some((m) => nOf(m) === 5));
    expect(onB.got.map(nOf)).not.toContain(4);
    expect(b.eventsSince(topic, old)).toEqual({ gap: true });
    expect(b.eventsAfter(topic, cursor)).toEqual({ gap: true });
    expect(numberingOf(b.lastId(topic))).not.toBe(numberingOf(old));
    expect(logged.some((m) => m.includes("unreachable"))).toBe(true);
    expect(logged.some((m) => m.includes("did not reach Redis"))).toBe(true);
  });

  it("A's connections cut while Redis keeps its data: what A published meanwhile makes a new numbering, B resyncs", async () => {
    const [a, b] = [await makeBus(), await makeBus()];
    const topic = freshTopic();
    a.retain(topic);
    const onB = recorder();
    b.subscribe(topic, onB.listener);
    await Promise.all([a.synced(topic), b.synced(topic)]);
    for (let i = 1; i <= 3; i++) a.publish(topic, busy(i));
    await until("B has three events", () => onB.got.length === 3);
    const cursor = b.lastSeq(topic);
    const raw = new Redis(redis().url);
    try {
      const clients = String(await raw.client("LIST")).split("\n");
      const ids = clients.filter((line) => line.includes(`name=astrion-bus-${a.origin}`) || line.includes(`name=astrion-bus-feed-${a.origin}`)).map((line) => /\bid=(\d+)/.exec(line)![1]!);
      expect(ids).toHaveLength(2);
      for (const id of ids) await raw.client("KILL", "ID", id);
      a.publish(topic, busy(4)); // never reaches Redis
    } finally {
      raw.disconnect();
    }
    await a.whenConnected();
    await a.synced(topic);
    a.publish(topic, busy(5));
    await until("B has event 5", () => onB.got.some((m) => nOf(m) === 5));
    expect(onB.got.map(nOf)).not.toContain(4);
    // B's streams must not read on past the event they never got.
    expect(b.eventsAfter(topic, cursor)).toEqual({ gap: true });
  });

  it("an event Redis cannot be sent (no JSON) is delivered here, never throws, and B resyncs past it", async () => {
    const [a, b] = [await makeBus(), await makeBus()];
    const topic = freshTopic();
    a.retain(topic);
    const onA = recorder();
    const onB = recorder();
    a.subscribe(topic, onA.listener);
    b.subscribe(topic, onB.listener);
    await Promise.all([a.synced(topic), b.synced(topic)]);
    a.publish(topic, busy(1));
    await until("B has event 1", () => onB.got.length === 1);
    const cursor = b.lastSeq(topic);
    const odd = { type: "usage", token_statistics: { n: 2n } } as unknown as RuntimeEvent;
    expect(() => a.publish(topic, odd)).not.toThrow();
    expect(onA.got).toHaveLength(2);
    await a.synced(topic);
    a.publish(topic, busy(3));
    await until("B has event 3", () => onB.got.some((m) => nOf(m) === 3));
    expect(b.eventsAfter(topic, cursor)).toEqual({ gap: true });
    expect(logged.some((m) => m.includes("could not be encoded"))).toBe(true);
  });

  it("an SSE viewer on B: replayed from an id, resynced from a snapshot after a flush, then live again", async () => {
    const [a, b] = [await makeBus(), await makeBus()];
    const topic = freshTopic();
    a.retain(topic);
    const onA = recorder();
    a.subscribe(topic, onA.listener);
    await a.synced(topic);
    // What the events route must do on a Redis bus: hold the topic, wait for this instance's copy
    // to catch up, then open the stream (which subscribes) and let the hold go.
    const open = async (lastEventId?: string) => {
      const hold = b.retain(topic);
      await b.synced(topic);
      const stream = readSse(createEventStream({ bus: b, topic, lastEventId, snapshot: async () => emptySnapshot(), heartbeatMs: 0 }));
      hold();
      return stream;
    };
    const live = await open();
    await until("the first stream sent its snapshot", () => live.text().includes('"type":"snapshot"'));
    for (let i = 1; i <= 3; i++) a.publish(topic, busy(i));
    await until("the first stream has event 3", () => live.text().includes(`id: ${onA.got[2]!.id}\n`));
    const resumed = await open(onA.got[0]!.id);
    await until("the second stream replayed 2 and 3", () => resumed.text().includes(`id: ${onA.got[2]!.id}\n`));
    expect(resumed.text()).not.toContain('"type":"snapshot"');
    expect(resumed.text()).toContain(`id: ${onA.got[1]!.id}\n`);
    await redis().flushAll();
    a.publish(topic, busy(4));
    await until("both streams resynced", () => live.done() && resumed.done());
    expect(live.text()).toContain(": resync");
    const after = await open(onA.got[2]!.id);
    await until("a reconnect gets a snapshot", () => after.text().includes('"type":"snapshot"'));
    a.publish(topic, busy(5));
    await until("then live events", () => after.text().includes('"n":5'));
    after.cancel();
  });
});
