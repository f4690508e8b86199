import { describe, expect, it } from "vitest";
import { placeholderClass } from "./scene-fill";
import { rng } from "@/test/helpers/context/histories";
import { messageTokens } from "./tokens";
import { placeholderText } from "./types";

const cost = (n: number) => messageTokens({ role: "user", content: placeholderText(n) });

describe("placeholder costs", () => {
  // The fill skips candidates by the cost of the placeholders around them, taken to be the same
  // for every count of one class: with the tokenizer in use this must hold, or the incremental
  // scene could differ from the one built from scratch.
  it("every count up to 30,000, and counts around and between the powers of ten up to 10^9, cost what their class's first count costs", () => {
    const wrong: number[] = [];
    const check = (n: number) => {
      const [first, last] = placeholderClass(n);
      expect(first).toBeLessThanOrEqual(n);
      expect(last).toBeGreaterThanOrEqual(n);
      if (cost(n) !== cost(first) || cost(last) !== cost(first)) wrong.push(n);
    };
    for (let n = 1; n <= 30_000; n++) check(n);
    const rand = rng(3);
    for (let p = 10; p <= 1e9; p *= 10) {
      for (const n of [p - 2, p - 1, p, p + 1]) check(n);
      for (let k = 0; k < 300; k++) check(p + Math.floor(rand() * 9 * p));
    }
    expect(wrong).toEqual([]);
  });

  it("classes: 1 alone, then one per number of digits", () => {
    expect(placeholderClass(1)).toEqual([1, 1]);
    expect(placeholderClass(2)).toEqual([2, 9]);
    expect(placeholderClass(9)).toEqual([2, 9]);
    expect(placeholderClass(10)).toEqual([10, 99]);
    expect(placeholderClass(4321)).toEqual([1000, 9999]);
  });
});
