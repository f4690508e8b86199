import { describe, expect, it } from "vitest";
import { reconnectDelay } from "./connection";

describe("reconnectDelay", () => {
  it("is a random share (full jitter) of a cap that doubles per attempt up to 5 s", () => {
    const top = (times: number) => reconnectDelay(times, () => 1);
    expect([1, 2, 3, 4, 5, 6, 7, 8].map(top)).toEqual([100, 200, 400, 800, 1600, 3200, 5000, 5000]);
    expect(top(10_000)).toBe(5000);
    expect(reconnectDelay(6, () => 0.5)).toBe(1600);
    // Instances that lost Redis together spread out instead of coming back in lockstep.
    expect(new Set(Array.from({ length: 50 }, () => reconnectDelay(8))).size).toBeGreaterThan(10);
    expect(reconnectDelay(8, () => 0)).toBe(20);
  });
});
