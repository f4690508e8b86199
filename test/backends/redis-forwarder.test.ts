/**
 * The forwarding port's conformance suite, unchanged, on Redis (lib/bus-redis/forwarder.ts) over
 * a throwaway redis-server; then what only Redis can do to it: a flush and a restart under it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedisForwarder, type RedisForwarder } from "@/lib/bus-redis";
import { describeCommandForwarder } from "@/test/conformance/command-forwarding";
import { startRedis, type TestRedis } from "@/test/support/redis-server";
import { until } from "../helpers/wait";

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.dispose();
});

/** A forwarder on the test Redis, connected. */
async function connected(self: string, made: RedisForwarder[]): Promise<RedisForwarder> {
  const f = createRedisForwarder({ url: redis.url, self, log: () => undefined });
  made.push(f);
  await f.whenConnected();
  return f;
}

describeCommandForwarder("Redis", async () => {
  const made: RedisForwarder[] = [];
  return { instance: (self) => connected(self, made), dispose: async () => void (await Promise.all(made.map((f) => f.close()))) };
});

describe("the Redis forwarder when Redis goes away", () => {
  it("answers unreachable while Redis is down and serves again once it is back, with no new serve call", async () => {
    const made: RedisForwarder[] = [];
    try {
      const [a, b] = [await connected("inst-a", made), await connected("inst-b", made)];
      await a.serve(async (r) => ({ ok: true, value: r.command }));
      await redis.flushAll();
      expect(await b.send("inst-a", { conversation_id: "c", command: 1 }, 5_000)).toEqual({ kind: "answered", reply: { ok: true, value: 1 } });
      await redis.stop();
      expect((await b.send("inst-a", { conversation_id: "c", command: 2 }, 1_000)).kind).toBe("unanswered");
      await redis.start();
      const back = await until("an answer after the restart", async () => {
        const outcome = await b.send("inst-a", { conversation_id: "c", command: 3 }, 1_000);
        return outcome.kind === "answered" ? outcome : null;
      }, 30_000);
      expect(back).toEqual({ kind: "answered", reply: { ok: true, value: 3 } });
    } finally {
      await Promise.all(made.map((f) => f.close()));
    }
  }, 60_000);
});
