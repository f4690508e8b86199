import { describe, expect, it } from "vitest";
import { rng } from "@/test/helpers/context/histories";
import { MinTree, SumTree } from "./trees";

describe("SumTree", () => {
  it("range sums, prefixes and firstReaching agree with a plain array as it grows and changes", () => {
    const rand = rng(7);
    const tree = new SumTree();
    const plain: number[] = [];
    const prefix = (n: number) => plain.slice(0, n).reduce((a, b) => a + b, 0);
    for (let step = 0; step < 600; step++) {
      if (plain.length && rand() < 0.4) {
        const at = Math.floor(rand() * plain.length);
        const v = 1 + Math.floor(rand() * 9);
        plain[at] = v;
        tree.set(at, v);
      } else {
        const v = 1 + Math.floor(rand() * 9);
        plain.push(v);
        tree.push(v);
      }
      expect(tree.length).toBe(plain.length);
      const from = Math.floor(rand() * (plain.length + 1));
      const to = Math.floor(rand() * (plain.length + 1));
      expect(tree.range(from, to)).toBe(to > from ? prefix(to) - prefix(from) : 0);
      const target = Math.floor(rand() * (prefix(plain.length) + 3)) - 1;
      let expected = 0;
      while (expected <= plain.length && prefix(expected) < target) expected++;
      expect(tree.firstReaching(target), `target ${target}`).toBe(expected);
    }
  });
});

describe("MinTree", () => {
  it("lastAtMost finds the last position before a bound whose value is at most a limit", () => {
    const rand = rng(11);
    const tree = new MinTree();
    const plain: number[] = [];
    for (let step = 0; step < 800; step++) {
      const at = Math.floor(rand() * (plain.length + 2));
      const v = rand() < 0.1 ? Number.POSITIVE_INFINITY : Math.floor(rand() * 100);
      while (plain.length <= at) plain.push(Number.POSITIVE_INFINITY);
      plain[at] = v;
      tree.set(at, v);
      const before = Math.floor(rand() * (plain.length + 3));
      const max = Math.floor(rand() * 110);
      let expected = -1;
      for (let i = Math.min(before, plain.length) - 1; i >= 0; i--) {
        if (plain[i]! <= max) {
          expected = i;
          break;
        }
      }
      expect(tree.lastAtMost(before, max)).toBe(expected);
    }
  });
});
