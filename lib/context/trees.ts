/**
 * Two small indexes over a growing array of numbers, each O(log n) per update and per query, so
 * the scene is filled without walking the whole history: sums over a range (how many messages a
 * run of dropped items holds) and "the last position before p whose value is at most x" (the
 * next item small enough to fit). Pure.
 */

/** Range sums over an array that grows at the end, with point updates (a Fenwick tree). */
export class SumTree {
  // 1-based: #tree[i] holds the sum of the #values in (i - lowbit(i), i]
  #tree: number[] = [0];
  #values: number[] = [];

  /** Number of values. */
  get length(): number {
    return this.#values.length;
  }

  /** Appends `value`. */
  push(value: number): void {
    const i = this.#values.length + 1;
    this.#values.push(value);
    // the node covers (i - lowbit(i), i]: the earlier part of that range plus the new value
    this.#tree.push(value + this.#prefix(i - 1) - this.#prefix(i - (i & -i)));
  }

  /** Sets the value at `index` (which must exist). */
  set(index: number, value: number): void {
    const delta = value - this.#values[index]!;
    if (!delta) return;
    this.#values[index] = value;
    for (let i = index + 1; i < this.#tree.length; i += i & -i) this.#tree[i]! += delta;
  }

  /** Sum of the values at positions `from` (inclusive) to `to` (exclusive); 0 when empty. */
  range(from: number, to: number): number {
    return to > from ? this.#prefix(to) - this.#prefix(from) : 0;
  }

  /** Sum of the first `n` values. */
  prefix(n: number): number {
    return this.#prefix(n);
  }

  /**
   * The smallest `n` whose {@link prefix} is at least `target` (0 when `target` ≤ 0, `length + 1`
   * when even the whole sum is less). The values must not be negative.
   */
  firstReaching(target: number): number {
    if (target <= 0) return 0;
    let at = 0;
    let left = target;
    let step = 1;
    while (step * 2 < this.#tree.length) step *= 2;
    for (; step > 0; step >>= 1) {
      if (at + step < this.#tree.length && this.#tree[at + step]! < left) {
        at += step;
        left -= this.#tree[at]!;
      }
    }
    // prefix(at) < target ≤ prefix(at + 1)
    return at + 1;
  }

  #prefix(n: number): number {
    let sum = 0;
    for (let i = n; i > 0; i -= i & -i) sum += this.#tree[i]!;
    return sum;
  }
}

/** Minimums over an array that grows (a segment tree); unset positions are +Infinity. */
export class MinTree {
  #size = 1;
  #min = new Float64Array(2).fill(Number.POSITIVE_INFINITY);

  /** Sets the value at `index` (any non-negative index; the tree grows as needed). */
  set(index: number, value: number): void {
    while (index >= this.#size) this.#grow();
    let p = this.#size + index;
    this.#min[p] = value;
    for (p >>= 1; p >= 1; p >>= 1) this.#min[p] = Math.min(this.#min[2 * p]!, this.#min[2 * p + 1]!);
  }

  /** The largest position below `before` whose value is at most `max`, or -1. */
  lastAtMost(before: number, max: number): number {
    return this.#search(1, 0, this.#size, Math.min(before, this.#size), max);
  }

  #search(node: number, lo: number, hi: number, before: number, max: number): number {
    if (lo >= before || this.#min[node]! > max) return -1;
    if (hi - lo === 1) return lo;
    const mid = (lo + hi) >> 1;
    const right = this.#search(2 * node + 1, mid, hi, before, max);
    return right >= 0 ? right : this.#search(2 * node, lo, mid, before, max);
  }

  #grow(): void {
    const size = this.#size * 2;
    const min = new Float64Array(2 * size).fill(Number.POSITIVE_INFINITY);
    min.set(this.#min.subarray(this.#size, 2 * this.#size), size);
    for (let p = size - 1; p >= 1; p--) min[p] = Math.min(min[2 * p]!, min[2 * p + 1]!);
    this.#size = size;
    this.#min = min;
  }
}
