import { describe, expect, it } from "vitest";
import { DEFAULT_STREAM_LIMITS, StreamSlots, streamLimitsFromEnv } from "./limits";

describe("SSE stream caps", () => {
  it("refuses a client beyond its cap and frees the slot on release", () => {
    const slots = new StreamSlots({ perClient: 2, total: 10 });
    const a = slots.acquire("1.1.1.1");
    const b = slots.acquire("1.1.1.1");
    expect(a.ok && b.ok).toBe(true);
    const c = slots.acquire("1.1.1.1");
    expect(c).toMatchObject({ ok: false, scope: "client", limit: 2 });
    expect(slots.acquire("2.2.2.2").ok).toBe(true); // others are not affected
    if (a.ok) a.release();
    expect(slots.open("1.1.1.1")).toBe(1);
    expect(slots.acquire("1.1.1.1").ok).toBe(true);
  });

  it("refuses everyone beyond the total", () => {
    const slots = new StreamSlots({ perClient: 5, total: 3 });
    for (const c of ["a", "b", "c"]) expect(slots.acquire(c).ok).toBe(true);
    expect(slots.acquire("d")).toMatchObject({ ok: false, scope: "total", limit: 3 });
    expect(slots.open()).toBe(3);
  });

  it("a slot released twice is given back once", () => {
    const slots = new StreamSlots({ perClient: 1, total: 1 });
    const a = slots.acquire("a");
    if (!a.ok) throw new Error("expected a slot");
    a.release();
    a.release();
    expect(slots.open()).toBe(0);
    const b = slots.acquire("a");
    expect(b.ok).toBe(true);
    a.release(); // a stale release must not free b's slot
    expect(slots.acquire("a").ok).toBe(false);
  });

  it("reads its caps from the environment, keeping the defaults for nonsense", () => {
    expect(streamLimitsFromEnv({})).toEqual(DEFAULT_STREAM_LIMITS);
    expect(streamLimitsFromEnv({ ASTRION_SSE_MAX_PER_CLIENT: "3", ASTRION_SSE_MAX_TOTAL: "50" })).toEqual({ perClient: 3, total: 50 });
    expect(streamLimitsFromEnv({ ASTRION_SSE_MAX_PER_CLIENT: "0", ASTRION_SSE_MAX_TOTAL: "lots" })).toEqual(DEFAULT_STREAM_LIMITS);
  });
});
