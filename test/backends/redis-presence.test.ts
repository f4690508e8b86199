/**
 * Presence over Redis (lib/bus-redis/presence-store.ts) against a real redis-server the test
 * starts: the presence conformance suite unchanged, with two instances as two stores of their own
 * connections; then Redis away, back and flushed: presence never throws into a route or a stream,
 * and after a flush an acknowledgment answers "unknown" (the page then registers again).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisPresenceStore, type RedisPresenceStore } from "@/lib/bus-redis";
import { createPresence } from "@/lib/presence";
import { describePresence } from "../conformance/presence-contract";
import { until } from "../helpers/wait";
import { startRedis, type TestRedis } from "../support/redis-server";

let redis: TestRedis;
const stores: RedisPresenceStore[] = [];
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
  await redis?.dispose();
});

async function store(name: string): Promise<RedisPresenceStore> {
  const made = redisPresenceStore({ url: redis.url, name });
  await made.whenConnected();
  return made;
}

describePresence("Redis", async () => ({ a: await store("a"), b: await store("b") }));

describe("presence on Redis: outages", () => {
  const ann = { id: "p_ann", name: "Ann" };

  it("answers nobody while Redis is away, never throws, and works again once it is back", async () => {
    const logged: string[] = [];
    const presence = createPresence(await store("outage"), { log: (m) => void logged.push(m) });
    const conv = "conv_20260102_000000_001";
    await presence.join(conv, "v_ann_tab_one", ann);
    expect(await presence.people(conv)).toHaveLength(1);
    await redis.stop();
    await expect(presence.join(conv, "v_ann_tab_two", ann)).resolves.toBeUndefined();
    await expect(presence.people(conv)).resolves.toEqual([]);
    await expect(presence.counts()).resolves.toEqual({});
    // An acknowledgment that cannot be checked is not refused: pages would reconnect in a storm.
    await expect(presence.beat(conv, "v_ann_tab_one", ann.id, { drawer: null, typing: null })).resolves.toBe(true);
    await expect(presence.leave(conv, "v_ann_tab_one")).resolves.toBeUndefined();
    expect(logged.some((m) => m.startsWith("presence could not"))).toBe(true);
    await redis.start();
    await until("presence writes again", async () => {
      await presence.join(conv, "v_ann_tab_three", ann);
      return (await presence.people(conv)).length === 1;
    });
    await presence.close();
  });

  it("after a flush an acknowledgment answers unknown, so the page registers again", async () => {
    const presence = createPresence(await store("flush"), { log: () => undefined });
    const conv = "conv_20260102_000000_002";
    await presence.join(conv, "v_ann_tab_one", ann);
    await redis.flushAll();
    expect(await presence.beat(conv, "v_ann_tab_one", ann.id, { drawer: null, typing: null })).toBe(false);
    expect(await presence.people(conv)).toEqual([]);
    await presence.close();
  });
});
