import { describe, expect, it } from "vitest";
import {
  breakerOptionsFromEnv,
  CircuitBreaker,
  DEFAULT_BREAKER_COOLDOWN_MS,
  DEFAULT_BREAKER_THRESHOLD,
} from "./breaker";

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

function fail(b: CircuitBreaker, times = 1) {
  for (let i = 0; i < times; i++) b.tryAcquire()!.done("failure", "HTTP 500");
}

describe("CircuitBreaker", () => {
  it("opens after the threshold of consecutive failures and refuses calls while open", () => {
    const c = clock();
    const b = new CircuitBreaker("http://x/v1", { threshold: 3, cooldownMs: 1_000, now: c.now });
    fail(b, 2);
    expect(b.state).toBe("closed");
    fail(b);
    expect(b.state).toBe("open");
    expect(b.tryAcquire()).toBeNull();
    expect(b.retryInMs()).toBe(1_000);
    c.advance(400);
    expect(b.retryInMs()).toBe(600);
    expect(b.snapshot()).toMatchObject({ state: "open", consecutive_failures: 3, last_failure: "HTTP 500", probing: false });
    expect(b.snapshot().retry_at).toBe(new Date(c.now() + 600).toISOString());
  });

  it("a success resets the count; neutral outcomes change nothing", () => {
    const b = new CircuitBreaker("e", { threshold: 2 });
    fail(b);
    b.tryAcquire()!.done("neutral");
    expect(b.snapshot().consecutive_failures).toBe(1);
    b.tryAcquire()!.done("success");
    expect(b.snapshot().consecutive_failures).toBe(0);
    fail(b);
    expect(b.state).toBe("closed");
  });

  it("after the cool-down lets exactly one probe through; its success closes the circuit", () => {
    const c = clock();
    const b = new CircuitBreaker("e", { threshold: 1, cooldownMs: 500, now: c.now });
    fail(b);
    c.advance(499);
    expect(b.state).toBe("open");
    c.advance(1);
    expect(b.state).toBe("half_open");
    const probe = b.tryAcquire();
    expect(probe?.probe).toBe(true);
    expect(b.tryAcquire()).toBeNull();
    expect(b.snapshot().probing).toBe(true);
    probe!.done("success");
    expect(b.state).toBe("closed");
    expect(b.snapshot()).toMatchObject({ consecutive_failures: 0, opened_at: null, retry_at: null, probing: false });
    expect(b.tryAcquire()?.probe).toBe(false);
  });

  it("a failed probe re-opens for another full cool-down", () => {
    const c = clock();
    const b = new CircuitBreaker("e", { threshold: 1, cooldownMs: 500, now: c.now });
    fail(b);
    c.advance(600);
    b.tryAcquire()!.done("failure");
    expect(b.state).toBe("open");
    expect(b.retryInMs()).toBe(500);
    c.advance(500);
    expect(b.state).toBe("half_open");
  });

  it("a neutral probe (aborted) frees the probe slot and stays half-open", () => {
    const c = clock();
    const b = new CircuitBreaker("e", { threshold: 1, cooldownMs: 10, now: c.now });
    fail(b);
    c.advance(10);
    b.tryAcquire()!.done("neutral");
    expect(b.state).toBe("half_open");
    expect(b.tryAcquire()?.probe).toBe(true);
  });

  it("ignores outcomes of calls admitted before the circuit changed state, and a second done()", () => {
    const c = clock();
    const b = new CircuitBreaker("e", { threshold: 2, cooldownMs: 100, now: c.now });
    const slow = b.tryAcquire()!;
    fail(b, 2);
    expect(b.state).toBe("open");
    slow.done("success");
    expect(b.state).toBe("open");
    c.advance(100);
    const probe = b.tryAcquire()!;
    probe.done("success");
    probe.done("failure");
    expect(b.state).toBe("closed");
    slow.done("failure");
    expect(b.snapshot().consecutive_failures).toBe(0);
  });

  it("uses the documented defaults", () => {
    const b = new CircuitBreaker("e");
    expect(b.threshold).toBe(DEFAULT_BREAKER_THRESHOLD);
    expect(b.cooldownMs).toBe(DEFAULT_BREAKER_COOLDOWN_MS);
    expect([DEFAULT_BREAKER_THRESHOLD, DEFAULT_BREAKER_COOLDOWN_MS]).toEqual([5, 10_000]);
  });
});

describe("breaker options", () => {
  it("reads threshold and cool-down from the environment", () => {
    expect(breakerOptionsFromEnv({ ASTRION_BREAKER_THRESHOLD: "2", ASTRION_BREAKER_COOLDOWN_MS: "250" })).toEqual({ threshold: 2, cooldownMs: 250 });
    expect(breakerOptionsFromEnv({ ASTRION_BREAKER_THRESHOLD: "lots", ASTRION_BREAKER_COOLDOWN_MS: "" })).toEqual({});
  });
});
