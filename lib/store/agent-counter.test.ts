import { describe, expect, it } from "vitest";
import { AGENT_COUNTER_BLOCK, AgentCounter } from "./agent-counter";

/** A counter like state.json's, whose durable writes the test releases one by one. */
function counter(start = 0) {
  const state = { counter: start, reserves: [] as Array<{ floor: number; count: number; release: () => void }> };
  const reserve = (floor: number, count: number) =>
    new Promise<number>((resolve) => {
      state.reserves.push({
        floor,
        count,
        release: () => {
          state.counter = Math.max(state.counter, floor) + count;
          resolve(state.counter);
        },
      });
    });
  return { state, reserve };
}

const tick = () => new Promise((r) => setImmediate(r));

describe("the data folder's count of sub-agent instances", () => {
  it("counts a block of instances with one write, and reserves the next block before this one runs out", async () => {
    const { state, reserve } = counter(4);
    const instances = new AgentCounter(reserve);
    const first = instances.count();
    await tick();
    expect(state.reserves).toHaveLength(1);
    state.reserves[0]!.release();
    expect(await first).toBe(5);
    const taken = [5];
    // Half the block is counted from memory, with no write.
    while (taken.length < AGENT_COUNTER_BLOCK / 2) taken.push(await instances.count());
    expect(state.reserves).toHaveLength(1);
    // Fewer than half left: the next block is asked for, and counting goes on meanwhile.
    taken.push(await instances.count());
    expect(state.reserves).toHaveLength(2);
    while (taken.length < AGENT_COUNTER_BLOCK) taken.push(await instances.count());
    expect(taken).toEqual(Array.from({ length: AGENT_COUNTER_BLOCK }, (_, i) => 5 + i));
    // The block is used up: the next count waits for the write under way.
    let next: number | undefined;
    void instances.count().then((n) => (next = n));
    await tick();
    expect(next).toBeUndefined();
    // Asked for past the block reserved before (5…20).
    expect(state.reserves[1]!.floor).toBe(4 + AGENT_COUNTER_BLOCK);
    state.reserves[1]!.release();
    await tick();
    expect(next).toBe(5 + AGENT_COUNTER_BLOCK);
    // state.json is always at or past every instance counted.
    expect(state.counter).toBeGreaterThanOrEqual(next!);
  });

  it("never counts a number twice, even when the counter on disk fell behind (state.json rebuilt from the folders)", async () => {
    const { state, reserve } = counter();
    const instances = new AgentCounter(reserve);
    const counted = [instances.count()];
    await tick();
    state.reserves[0]!.release();
    await tick();
    // Past half the block: the next block is asked for.
    while (state.reserves.length < 2) counted.push(instances.count());
    await Promise.all(counted);
    // Meanwhile state.json was rebuilt, behind the block reserved (1…16).
    state.counter = 0;
    state.reserves[1]!.release();
    await tick();
    // The next block is asked for past the one reserved before, not from the rebuilt 0.
    expect(state.reserves[1]!.floor).toBe(AGENT_COUNTER_BLOCK);
    while (counted.length < 2 * AGENT_COUNTER_BLOCK) counted.push(instances.count());
    const numbers = await Promise.all(counted);
    expect(numbers).toEqual(Array.from({ length: 2 * AGENT_COUNTER_BLOCK }, (_, i) => i + 1));
    expect(state.counter).toBeGreaterThanOrEqual(Math.max(...numbers));
  });
});
