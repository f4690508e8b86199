/**
 * The shared limits over Redis (lib/bus-redis/limits.ts) against a real redis-server the test
 * starts: two instances (each its own limiter objects on its own connections) share one entry
 * budget and one sign-in throttle; guesses sent at once to both get one through a lockout; with
 * Redis stopped, each answers from its own memory and never throws.
 */
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createRedisLimits, type RedisLimits } from "@/lib/bus-redis";
import { until } from "../helpers/wait";
import { startRedis, type TestRedis } from "../support/redis-server";

let redis: TestRedis;
const made: RedisLimits[] = [];

beforeAll(async () => {
  redis = await startRedis();
});
afterEach(async () => {
  await Promise.all(made.splice(0).map((limits) => limits.close()));
  await redis.flushAll();
});
afterAll(async () => {
  await redis?.dispose();
});

/** One instance's limits: a budget of `burst` per four minutes, and the throttle with `freeAttempts`. */
async function instance(burst: number, freeAttempts: number): Promise<RedisLimits> {
  const limits = createRedisLimits({ url: redis.url, entry: { perMinute: burst / 4, burst }, signIn: { freeAttempts, baseLockoutMs: 1000 } });
  made.push(limits);
  await limits.whenConnected();
  return limits;
}

describe("shared limits over Redis", () => {
  it("two instances take from one entry budget per key", async () => {
    const [a, b] = [await instance(4, 5), await instance(4, 5)];
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await a.entryLimiter.take("entry"), await b.entryLimiter.take("entry"));
    expect(answers.map((r) => r.ok)).toEqual([true, true, true, true, false, false]);
    const refused = answers[4]!;
    expect(refused.ok === false && refused.retryAfterSeconds).toBeGreaterThan(0);
    expect(answers.slice(0, 4).map((r) => (r.ok ? r.remaining : -1))).toEqual([3, 2, 1, 0]);
    // Another key has its own budget.
    expect(await b.entryLimiter.take("other")).toEqual({ ok: true, remaining: 3 });
  });

  it("wrong guesses on one instance lock the client out on the other, and a right token clears them", async () => {
    const [a, b] = [await instance(10, 2), await instance(10, 2)];
    for (let i = 0; i < 2; i++) {
      expect(await a.signInThrottle.check("1.2.3.4")).toEqual({ ok: true });
      expect(await a.signInThrottle.recordFailure("1.2.3.4")).toBe(0);
    }
    expect(await b.signInThrottle.check("1.2.3.4")).toEqual({ ok: true });
    expect(await b.signInThrottle.recordFailure("1.2.3.4")).toBe(1000);
    const locked = await a.signInThrottle.check("1.2.3.4");
    expect(locked.ok).toBe(false);
    expect(locked.ok === false && locked.retryAfterMs).toBeGreaterThan(0);
    expect(await b.signInThrottle.check("5.6.7.8")).toEqual({ ok: true });
    await until("the lockout is over", async () => (await b.signInThrottle.check("1.2.3.4")).ok);
    // The guess let through after the lockout was right.
    await b.signInThrottle.recordSuccess("1.2.3.4");
    for (let i = 0; i < 3; i++) expect(await a.signInThrottle.check("1.2.3.4")).toEqual({ ok: true });
  });

  it("after a lockout, guesses sent at once to both instances get one through", async () => {
    const [a, b] = [await instance(10, 0), await instance(10, 0)];
    expect(await a.signInThrottle.check("9.9.9.9")).toEqual({ ok: true });
    expect(await a.signInThrottle.recordFailure("9.9.9.9")).toBe(1000);
    await until("the lockout is over", () => lockoutOver("9.9.9.9"));
    const verdicts = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).signInThrottle.check("9.9.9.9")));
    expect(verdicts.filter((v) => v.ok)).toHaveLength(1);
  });

  it("a client's count is forgotten an hour after its last guess, not its first", async () => {
    const a = await instance(10, 5);
    const raw = new Redis(redis.url);
    try {
      expect(await a.signInThrottle.check("2.2.2.2")).toEqual({ ok: true });
      await a.signInThrottle.recordFailure("2.2.2.2");
      // As if that guess had been made almost an hour ago.
      await raw.pexpire("astrion:signin:guesses:2.2.2.2", 5_000);
      expect(await a.signInThrottle.check("2.2.2.2")).toEqual({ ok: true });
      expect(await raw.pttl("astrion:signin:guesses:2.2.2.2")).toBeGreaterThan(3_500_000);
      expect(await raw.get("astrion:signin:guesses:2.2.2.2")).toBe("2");
    } finally {
      raw.disconnect();
    }
  });

  it("with Redis stopped, each instance limits from its own memory and never throws", async () => {
    const a = await instance(2, 1);
    await redis.stop();
    try {
      const answers = [await a.entryLimiter.take("entry"), await a.entryLimiter.take("entry"), await a.entryLimiter.take("entry")];
      expect(answers.map((r) => r.ok)).toEqual([true, true, false]);
      expect(await a.signInThrottle.check("1.1.1.1")).toEqual({ ok: true });
      await expect(a.signInThrottle.recordFailure("1.1.1.1")).resolves.toBe(0);
      await expect(a.signInThrottle.recordSuccess("1.1.1.1")).resolves.toBeUndefined();
    } finally {
      await redis.start();
    }
  });
});

/** True once `client`'s lockout has expired in Redis, read without taking the guess it lets through. */
async function lockoutOver(client: string): Promise<boolean> {
  const raw = new Redis(redis.url);
  try {
    return (await raw.exists(`astrion:signin:gate:${client}`)) === 0;
  } finally {
    raw.disconnect();
  }
}
