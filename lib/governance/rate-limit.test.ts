import { describe, expect, it } from "vitest";
import { AstrionError } from "@/lib/contracts/errors";
import { enforceRateLimit, rateLimitConfigFromEnv, RateLimitedError, TokenBucketLimiter } from "./rate-limit";


function clock(start = 0) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe("TokenBucketLimiter", () => {
  it("allows a burst, then refuses with the seconds until the next token", () => {
    const c = clock();
    const limiter = new TokenBucketLimiter({ perMinute: 30, burst: 3 }, c.now);
    expect([limiter.take("k"), limiter.take("k"), limiter.take("k")].every((r) => r.ok)).toBe(true);
    expect(limiter.take("k")).toEqual({ ok: false, retryAfterSeconds: 2 });
  });

  it("refills over time at the configured rate, never above the burst", () => {
    const c = clock();
    const limiter = new TokenBucketLimiter({ perMinute: 60, burst: 2 }, c.now);
    limiter.take("k");
    limiter.take("k");
    expect(limiter.take("k").ok).toBe(false);
    c.advance(500);
    expect(limiter.take("k")).toEqual({ ok: false, retryAfterSeconds: 1 });
    c.advance(500);
    expect(limiter.take("k").ok).toBe(true);
    expect(limiter.take("k").ok).toBe(false);
    c.advance(60 * 60_000);
    expect(limiter.take("k")).toEqual({ ok: true, remaining: 1 });
    expect(limiter.take("k")).toEqual({ ok: true, remaining: 0 });
    expect(limiter.take("k").ok).toBe(false);
  });

  it("keeps keys apart", () => {
    const limiter = new TokenBucketLimiter({ perMinute: 1, burst: 1 }, clock().now);
    expect(limiter.take("a").ok).toBe(true);
    expect(limiter.take("a")).toEqual({ ok: false, retryAfterSeconds: 60 });
    expect(limiter.take("b").ok).toBe(true);
  });

  it("is off at 0 per minute", () => {
    const limiter = new TokenBucketLimiter({ perMinute: 0, burst: 1 }, clock().now);
    for (let i = 0; i < 100; i++) expect(limiter.take("k").ok).toBe(true);
  });
});

describe("configuration", () => {
  it("reads the environment with defaults 30/min and burst 10", () => {
    expect(rateLimitConfigFromEnv({})).toEqual({ perMinute: 30, burst: 10 });
    expect(rateLimitConfigFromEnv({ ASTRION_RATE_LIMIT_PER_MINUTE: "5", ASTRION_RATE_LIMIT_BURST: "2" })).toEqual({ perMinute: 5, burst: 2 });
    expect(rateLimitConfigFromEnv({ ASTRION_RATE_LIMIT_PER_MINUTE: "lots", ASTRION_RATE_LIMIT_BURST: "0" })).toEqual({ perMinute: 30, burst: 1 });
  });
});

describe("enforceRateLimit", () => {
  it("rejects with a rate_limited AstrionError (429) with retry_after_seconds", async () => {
    const c = clock();
    const limiter = new TokenBucketLimiter({ perMinute: 6, burst: 1 }, c.now);
    await enforceRateLimit("entry", limiter);
    const thrown = await enforceRateLimit("entry", limiter).then(
      () => null,
      (error: unknown) => error,
    );
    expect(thrown).toBeInstanceOf(RateLimitedError);
    expect(thrown).toBeInstanceOf(AstrionError);
    const e = thrown as RateLimitedError;
    expect(e.code).toBe("rate_limited");
    expect(e.status).toBe(429);
    expect(e.details).toEqual({ retry_after_seconds: 10 });
    expect(e.message).toBe("Too many requests; try again in 10 s.");
    c.advance(10_000);
    await expect(enforceRateLimit("entry", limiter)).resolves.toBeUndefined();
  });

  it("takes from a limiter whose answer comes later (one shared by instances)", async () => {
    let n = 0;
    const shared = { take: async () => (++n <= 1 ? { ok: true as const, remaining: 0 } : { ok: false as const, retryAfterSeconds: 7 }) };
    await enforceRateLimit("entry", shared);
    await expect(enforceRateLimit("entry", shared)).rejects.toMatchObject({ code: "rate_limited", details: { retry_after_seconds: 7 } });
  });
});
