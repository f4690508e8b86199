/**
 * The Redis bus (lib/bus-redis) against a real redis-server the test starts: the bus
 * conformance suite unchanged, then instances sharing one Redis (two bus objects, two
 * connections each, as two servers would have).
 */
import { afterAll, afterEach, beforeAll } from "vitest";
import { createRedisBus, type RedisBus } from "@/lib/bus-redis";
import { describeEngineBus } from "../conformance/engine-bus";
import { startRedis, type TestRedis } from "../support/redis-server";

let redis: TestRedis;
const buses: RedisBus[] = [];

beforeAll(async () => {
  redis = await startRedis();
});
afterEach(async () => {
  await Promise.all(buses.splice(0).map((bus) => bus.close()));
});
afterAll(async () => {
  await redis?.dispose();
});

async function makeBus(replayWindow = 100): Promise<RedisBus> {
  const bus = createRedisBus({ url: redis.url, replayWindow, log: () => undefined });
  buses.push(bus);
  await bus.whenConnected();
  return bus;
}

describeEngineBus("Redis", ({ replayWindow }) => makeBus(replayWindow));
