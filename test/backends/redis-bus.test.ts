/**
 * The Redis bus (lib/bus-redis) against a real redis-server the test starts: the bus
 * conformance suite unchanged, then instances sharing one Redis (bus objects with two
 * connections each, as separate servers would have): delivery across them in order, replay on
 * one of what a viewer saw on another, the last hold anywhere letting go, holds of a process
 * that died expiring, two instances publishing at once. Outages: redis-bus-outages.test.ts.
 */
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { agentTopic, type BusMessage, type NumberedEvent } from "@/lib/bus";
import { describeEngineBus } from "../conformance/engine-bus";
import { until } from "../helpers/wait";
import { busy, delta, freshTopic, nOf, numbered, numberingOf, recorder, replayed, redisBusKit } from "../support/redis-bus-kit";

const { redis, makeBus } = redisBusKit();

describeEngineBus("Redis", ({ replayWindow }) => makeBus(replayWindow));

describe("Redis bus: instances on one Redis", () => {
  it("delivers what A publishes to B's subscribers in publication order, with the ids A handed out", async () => {
    const [a, b] = [await makeBus(), await makeBus()];
    const topic = freshTopic();
    a.retain(topic);
    const onA = recorder();
    const onB = recorder();
    a.subscribe(topic, onA.listener);
    b.subscribe(topic, onB.listener);
    await Promise.all([a.synced(topic), b.synced(topic)]);
    for (let i = 1; i <= 40; i++) {
      a.publish(topic, busy(i));
      if (i % 4 === 0) a.publish(topic, delta(`after ${i}`));
    }
    await until("B has every event", () => onB.got.length === onA.got.length);
    expect(onB.got.map((m) => m.event)).toEqual(onA.got.map((m) => m.event));
    expect(numbered(onB.got).map((m) => m.id)).toEqual(numbered(onA.got).map((m) => m.id));
    // B's own count runs on without a hole, and each live event follows the numbered one before it.
    const seqs = numbered(onB.got).map((m) => m.seq);
    expect(seqs).toEqual(seqs.map((_, i) => seqs[0]! + i));
    onB.got.forEach((m, i) => {
      if (m.seq === null) expect(m).toMatchObject({ after: onB.got[i - 1]!.seq, id: onB.got[i - 1]!.id });
    });
    expect(b.lastId(topic)).toBe(a.lastId(topic));
  });

  it("replays on B, warm or cold, exactly what a viewer missed after an id it got from A", async () => {
    const [a, b] = [await makeBus(), await makeBus()];
    const topic = freshTopic();
    a.retain(topic);
    const onA = recorder();
    a.subscribe(topic, onA.listener);
    const onB = recorder();
    b.subscribe(topic, onB.listener);
    await Promise.all([a.synced(topic), b.synced(topic)]);
    for (let i = 1; i <= 10; i++) a.publish(topic, busy(i));
    await until("B has the ten events", () => onB.got.length === 10);
    const seen = onA.got[3]!.id; // the viewer saw 1…4 on A
    const warm = b.eventsSince(topic, seen);
    expect(replayed(warm)).toEqual([5, 6, 7, 8, 9, 10]);
    expect("gap" in warm ? [] : warm.events.map((e) => e.id)).toEqual(onA.got.slice(4).map((m) => m.id));
    // An instance that did not hold the topic reads the window from Redis when it takes it.
    const c = await makeBus();
    c.retain(topic);
    await c.synced(topic);
    expect(replayed(c.eventsSince(topic, seen))).toEqual([5, 6, 7, 8, 9, 10]);
    expect(c.eventsSince(topic, a.lastId(topic))).toEqual({ events: [], after: c.lastSeq(topic) });
    expect(c.eventsSince(topic, `${seen}x`)).toEqual({ gap: true });
    // Events published after the cold instance joined reach it like any other.
    const onC = recorder();
    c.subscribe(topic, onC.listener);
    a.publish(topic, busy(11));
    await until("C has event 11", () => onC.got.length === 1);
    expect(replayed(c.eventsSince(topic, seen))).toEqual([5, 6, 7, 8, 9, 10, 11]);
  });

  it("a cold instance keeps its replay window: an id older than it is a gap, the one just before it is not", async () => {
    const a = await makeBus(5);
    const topic = freshTopic();
    a.retain(topic);
    const onA = recorder();
    a.subscribe(topic, onA.listener);
    await a.synced(topic);
    for (let i = 1; i <= 12; i++) a.publish(topic, busy(i));
    const c = await makeBus(5);
    c.retain(topic);
    await until("C has read the stream", async () => (await c.synced(topic), c.lastId(topic) === a.lastId(topic)));
    expect(c.stats().buffered_events).toBe(5);
    expect(replayed(c.eventsSince(topic, onA.got[6]!.id))).toEqual([8, 9, 10, 11, 12]);
    expect(c.eventsSince(topic, onA.got[5]!.id)).toEqual({ gap: true });
  });

  it("an instance that does not hold a topic publishes into it for those that do, and into nothing when nobody does", async () => {
    const [a, b] = [await makeBus(), await makeBus()];
    const topic = freshTopic();
    a.publish(topic, busy(1)); // nobody holds it anywhere: kept nowhere
    const onB = recorder();
    b.subscribe(topic, onB.listener);
    await b.synced(topic);
    expect(b.lastSeq(topic)).toBe(0);
    a.publish(topic, busy(2)); // A holds nothing, B does
    await until("B has event 2", () => onB.got.length === 1);
    expect(onB.got.map(nOf)).toEqual([2]);
    expect(a.lastSeq(topic)).toBe(0);
  });

  it("the topic lives while any instance holds it; once the last lets go, a new hold starts a new numbering", async () => {
    const [a, b, c] = [await makeBus(), await makeBus(), await makeBus()];
    const topic = freshTopic();
    const releaseA = a.retain(topic);
    const onA = recorder();
    a.subscribe(topic, onA.listener);
    await a.synced(topic);
    for (let i = 1; i <= 3; i++) a.publish(topic, busy(i));
    const releaseB = b.retain(topic);
    await b.synced(topic);
    await a.close(); // A is gone; B holds the topic
    const releaseC = c.retain(topic);
    await c.synced(topic);
    expect(replayed(c.eventsSince(topic, onA.got[0]!.id))).toEqual([2, 3]);
    releaseB();
    releaseC(); // the last hold anywhere
    void releaseA;
    const holders = new Redis(redis().url);
    await until("the topic is deleted in Redis", async () => (await holders.exists(`astrion:bus:{${topic}}:m`)) === 0);
    holders.disconnect();
    const d = await makeBus();
    d.retain(topic);
    await d.synced(topic);
    expect(d.eventsSince(topic, onA.got[0]!.id)).toEqual({ gap: true });
    expect(numberingOf(d.lastId(topic))).not.toBe(numberingOf(onA.got[0]!.id));
  });

  it("wakes an agent's loop on another instance, once, and its own instance's loop once", async () => {
    const [a, b] = [await makeBus(), await makeBus()];
    const conv = freshTopic().slice("conv:".length);
    const topic = agentTopic(conv, 1);
    const onA: BusMessage[] = [];
    const onB: BusMessage[] = [];
    a.subscribe(topic, (m) => void onA.push(m));
    b.subscribe(topic, (m) => void onB.push(m));
    await until("B hears A's wake-ups", () => {
      a.publish(topic, { n: onA.length });
      return onB.length > 0;
    });
    expect(onB[0]).toMatchObject({ topic, seq: null, id: null, event: { n: expect.any(Number) } });
    const before = onA.length;
    b.publish(topic);
    await until("A hears B's wake-up", () => onA.length > before);
    expect(onA.slice(before)).toEqual([{ topic, seq: null, id: null, event: undefined }]);
    // A's own wake-ups reached A once each: delivered at once, their echo from Redis dropped.
    expect(onA.slice(0, before).map((m) => (m.event as { n: number }).n)).toEqual(onA.slice(0, before).map((_, i) => i));
  });

  it("holds expire unless renewed, and the topic's keys carry the hold's TTL", async () => {
    const b = await makeBus(100, 5_000);
    const topic = freshTopic();
    const keys = `astrion:bus:{${topic}}`;
    const raw = new Redis(redis().url);
    try {
      const release = b.retain(topic);
      await b.synced(topic);
      b.publish(topic, busy(1));
      await until("the event is in the stream", async () => (await raw.xlen(`${keys}:s`)) === 1);
      for (const key of [`${keys}:m`, `${keys}:s`, `${keys}:h`]) {
        const ttl = await raw.pttl(key);
        expect(ttl).toBeGreaterThan(0);
        expect(ttl).toBeLessThanOrEqual(5_000);
      }
      // A process that registered a hold and died: it never renews, so once its hold has
      // expired, B's release is the last one and deletes the topic.
      const [seconds] = await raw.time();
      await raw.zadd(`${keys}:h`, Number(seconds) * 1000 + 1500, "odeadproc");
      await until("the dead process's hold has expired", async () => {
        const [now] = await raw.time();
        return Number(now) * 1000 > Number(seconds) * 1000 + 1500;
      });
      release();
      await until("the topic is deleted", async () => (await raw.exists(`${keys}:m`, `${keys}:s`, `${keys}:h`)) === 0);
      // A hold that has not expired keeps the topic past B's release.
      const again = b.retain(topic);
      await b.synced(topic);
      await raw.zadd(`${keys}:h`, Date.now() + 60_000, "oliveproc");
      again();
      await until("B's release is done", async () => (await raw.zscore(`${keys}:h`, b.origin)) === null);
      expect(await raw.exists(`${keys}:m`)).toBe(1);
    } finally {
      raw.disconnect();
    }
  });

  it("two instances publishing at once: every event lands once, and an id names the same event everywhere", async () => {
    const [a, b] = [await makeBus(), await makeBus()];
    const topic = freshTopic();
    a.retain(topic);
    b.retain(topic);
    const onA = recorder();
    const onB = recorder();
    a.subscribe(topic, onA.listener);
    b.subscribe(topic, onB.listener);
    await Promise.all([a.synced(topic), b.synced(topic)]);
    for (let i = 1; i <= 30; i++) {
      a.publish(topic, busy(i));
      b.publish(topic, busy(100 + i));
    }
    const c = await makeBus();
    c.retain(topic);
    await until("A, B and C agree on the last event", async () => {
      await c.synced(topic);
      return a.lastId(topic) === b.lastId(topic) && b.lastId(topic) === c.lastId(topic) && c.stats().buffered_events === 60;
    });
    const kept = c.eventsAfter(topic, c.lastSeq(topic) - 60) as { events: NumberedEvent[] };
    const byId = new Map(kept.events.map((e) => [e.id, e.event]));
    expect(kept.events.map(nOf).sort((x, y) => Number(x) - Number(y))).toEqual([...Array.from({ length: 30 }, (_, i) => i + 1), ...Array.from({ length: 30 }, (_, i) => 101 + i)]);
    // Each instance's own events stay in its order in the shared stream.
    expect(kept.events.map(nOf).filter((n) => Number(n) < 100)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    for (const m of numbered([...onA.got, ...onB.got])) {
      const replay = c.eventsSince(topic, m.id);
      if (byId.has(m.id)) {
        expect(byId.get(m.id)).toEqual(m.event);
        expect("gap" in replay).toBe(false);
      } else {
        expect(replay).toEqual({ gap: true });
      }
    }
  });

});
