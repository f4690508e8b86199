/**
 * The sign-in throttle's one contract (lib/security/signin-guard.ts `SignInGuard`), run unchanged
 * against both implementations: the data folder's in-process guard and the one every instance
 * shares over Redis (lib/bus-redis/limits.ts), on a real redis-server the test starts. Both count
 * a guess at `check`, before anything is compared; a refused guess is not counted; a right one
 * clears the count; a right guess while locked out is refused; of guesses in flight together, one
 * gets through a lockout. Then what only Redis has: with it away, the throttle counts in memory,
 * never throws, and says so once in the log.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createRedisLimits, type RedisLimits } from "@/lib/bus-redis";
import { MemorySignInGuard, SignInThrottle, type SignInGuard, type SignInThrottleConfig } from "@/lib/security";
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

const CONFIG: Partial<SignInThrottleConfig> = { freeAttempts: 2, baseLockoutMs: 1000, maxLockoutMs: 60_000 };

async function redisGuard(log: (line: string) => void = () => undefined): Promise<SignInGuard> {
  const limits = createRedisLimits({ url: redis.url, entry: { perMinute: 60, burst: 10 }, signIn: CONFIG, log });
  made.push(limits);
  await limits.whenConnected();
  return limits.signInThrottle;
}

const implementations: [string, () => Promise<SignInGuard>][] = [
  ["in process", async () => new MemorySignInGuard(new SignInThrottle(CONFIG))],
  ["on Redis", () => redisGuard()],
];

/** A wrong guess as the route makes it: checked (counted), then said to be wrong. */
async function wrong(guard: SignInGuard, client: string): Promise<number> {
  expect(await guard.check(client)).toEqual({ ok: true });
  return guard.recordFailure(client);
}

describe.each(implementations)("the sign-in guard %s", (_name, make) => {
  it("counts each guess at its check: the free ones, then a lockout that doubles; refused guesses are not counted", async () => {
    const guard = await make();
    expect(await wrong(guard, "a")).toBe(0);
    expect(await wrong(guard, "a")).toBe(0);
    expect(await wrong(guard, "a")).toBe(1000);
    for (let i = 0; i < 5; i++) {
      const refused = await guard.check("a");
      expect(refused.ok).toBe(false);
      expect(refused.ok === false && refused.retryAfterMs).toBeGreaterThan(0);
    }
    expect((await guard.check("b")).ok).toBe(true);
    await until("the lockout is over", async () => (await guard.check("a")).ok, 5_000);
    // The five refused guesses did not count: this is the fourth, locked for 2 s, not 64.
    expect(await guard.recordFailure("a")).toBe(2000);
  });

  it("refuses a right guess while locked out, and a right one after the lockout clears the count", async () => {
    const guard = await make();
    for (let i = 0; i < 3; i++) await wrong(guard, "c");
    // The right token would be compared only after the check, and the check refuses it.
    expect((await guard.check("c")).ok).toBe(false);
    await until("the lockout is over", async () => (await guard.check("c")).ok, 5_000);
    await guard.recordSuccess("c");
    expect(await wrong(guard, "c")).toBe(0);
    expect(await wrong(guard, "c")).toBe(0);
  });

  it("counts a guess before it is compared, so guesses in flight together get one through a lockout", async () => {
    const guard = await make();
    await wrong(guard, "d");
    await wrong(guard, "d");
    // Twenty guesses checked at once, none compared yet: only one may be compared.
    const verdicts = await Promise.all(Array.from({ length: 20 }, () => guard.check("d")));
    expect(verdicts.filter((v) => v.ok)).toHaveLength(1);
  });
});

describe("the sign-in guard on Redis while Redis is away", () => {
  it("counts in this instance's memory, never throws, and says so once", async () => {
    const lines: string[] = [];
    const guard = await redisGuard((line) => lines.push(line));
    await redis.stop();
    try {
      expect(await wrong(guard, "e")).toBe(0);
      expect(await wrong(guard, "e")).toBe(0);
      expect(await wrong(guard, "e")).toBe(1000);
      expect((await guard.check("e")).ok).toBe(false);
      expect(lines.filter((l) => /not answering/.test(l))).toHaveLength(1);
    } finally {
      await redis.start();
    }
    await until("the guard is on Redis again", async () => {
      await guard.check("f");
      return lines.some((l) => /answers again/.test(l));
    });
    expect(lines).toHaveLength(2);
  });
});
