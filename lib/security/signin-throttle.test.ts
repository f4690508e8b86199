import { describe, expect, it } from "vitest";
import { SignInThrottle, signInThrottleConfigFromEnv } from "./signin-throttle";

const T0 = 1_000_000;

function fail(throttle: SignInThrottle, client: string, times: number, now = T0): number {
  let last = 0;
  for (let i = 0; i < times; i++) last = throttle.recordFailure(client, now);
  return last;
}

describe("sign-in throttle", () => {
  it("allows the free attempts, then locks out with a doubling delay", () => {
    const throttle = new SignInThrottle({ freeAttempts: 3, baseLockoutMs: 1000, maxLockoutMs: 60_000 });
    expect(fail(throttle, "a", 3)).toBe(0);
    expect(throttle.check("a", T0)).toEqual({ ok: true });
    expect(throttle.recordFailure("a", T0)).toBe(1000);
    expect(throttle.check("a", T0)).toEqual({ ok: false, retryAfterMs: 1000 });
    expect(throttle.check("a", T0 + 400)).toEqual({ ok: false, retryAfterMs: 600 });
    expect(throttle.check("a", T0 + 1000)).toEqual({ ok: true });
    expect(throttle.recordFailure("a", T0 + 1000)).toBe(2000);
    expect(throttle.recordFailure("a", T0 + 3000)).toBe(4000);
    expect(throttle.recordFailure("a", T0 + 7000)).toBe(8000);
  });

  it("caps the lockout", () => {
    const throttle = new SignInThrottle({ freeAttempts: 0, baseLockoutMs: 1000, maxLockoutMs: 5000 });
    expect(fail(throttle, "a", 100)).toBe(5000);
  });

  it("keeps clients apart", () => {
    const throttle = new SignInThrottle({ freeAttempts: 1, baseLockoutMs: 1000 });
    fail(throttle, "10.0.0.1", 2);
    expect(throttle.check("10.0.0.1", T0).ok).toBe(false);
    expect(throttle.check("10.0.0.2", T0).ok).toBe(true);
  });

  it("a success clears the record", () => {
    const throttle = new SignInThrottle({ freeAttempts: 1, baseLockoutMs: 1000 });
    fail(throttle, "a", 3);
    throttle.recordSuccess("a");
    expect(throttle.check("a", T0).ok).toBe(true);
    expect(throttle.recordFailure("a", T0)).toBe(0);
  });

  it("forgets a client that stopped failing, once its lock has passed", () => {
    const throttle = new SignInThrottle({ freeAttempts: 2, baseLockoutMs: 1000, forgetAfterMs: 10_000 });
    fail(throttle, "a", 3);
    expect(throttle.recordFailure("a", T0 + 20_000)).toBe(0); // forgotten: this is its first failure again
  });

  it("bounds the number of clients it remembers", () => {
    const throttle = new SignInThrottle({ freeAttempts: 0, maxClients: 100 });
    for (let i = 0; i < 1000; i++) throttle.recordFailure(`client-${i}`, T0);
    expect(throttle.size).toBeLessThanOrEqual(100);
    expect(throttle.check("client-999", T0).ok).toBe(false); // the newest are kept
  });

  it("reads its settings from the environment, ignoring nonsense", () => {
    expect(signInThrottleConfigFromEnv({ ASTRION_SIGNIN_FREE_ATTEMPTS: "2", ASTRION_SIGNIN_LOCKOUT_MS: "250" })).toMatchObject({ freeAttempts: 2, baseLockoutMs: 250 });
    expect(signInThrottleConfigFromEnv({ ASTRION_SIGNIN_FREE_ATTEMPTS: "-1", ASTRION_SIGNIN_LOCKOUT_MS: "x" })).toMatchObject({ freeAttempts: 5, baseLockoutMs: 1000 });
  });
});
