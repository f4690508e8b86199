import { describe, expect, it } from "vitest";
import { AGENT_ID_BLOCK, AgentIds } from "./agent-ids";

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

/** The next id, when it waits for a reservation: the reservation (the `index`th) is written, then the id comes. */
async function reserved(ids: AgentIds, state: ReturnType<typeof counter>["state"], index: number): Promise<number> {
  const id = ids.next();
  await tick();
  expect(state.reserves).toHaveLength(index + 1);
  state.reserves[index]!.release();
  return id;
}

describe("global agent ids", () => {
  it("hands out a block of consecutive ids with one write, and reserves the next block before this one runs out", async () => {
    const { state, reserve } = counter(4);
    const ids = new AgentIds(reserve);
    const first = ids.next();
    await tick();
    expect(state.reserves).toHaveLength(1);
    state.reserves[0]!.release();
    expect(await first).toBe(5);
    const taken = [5];
    // Half the block is handed out from memory, with no write.
    while (taken.length < AGENT_ID_BLOCK / 2) taken.push(await ids.next());
    expect(state.reserves).toHaveLength(1);
    // Fewer than half left: the next block is asked for, and ids keep coming meanwhile.
    taken.push(await ids.next());
    expect(state.reserves).toHaveLength(2);
    while (taken.length < AGENT_ID_BLOCK) taken.push(await ids.next());
    expect(taken).toEqual(Array.from({ length: AGENT_ID_BLOCK }, (_, i) => 5 + i));
    // The block is used up: the next id waits for the write under way.
    let next: number | undefined;
    void ids.next().then((id) => (next = id));
    await tick();
    expect(next).toBeUndefined();
    // Asked for past the highest id handed out then (the ninth: 13).
    expect(state.reserves[1]!.floor).toBe(13);
    state.reserves[1]!.release();
    await tick();
    expect(next).toBe(5 + AGENT_ID_BLOCK);
    // state.json is always past every id handed out.
    expect(state.counter).toBeGreaterThanOrEqual(next!);
  });

  it("forgets the reserved ids when the counter was moved by someone else, a reservation under way included", async () => {
    const { state, reserve } = counter();
    const ids = new AgentIds(reserve);
    expect(await reserved(ids, state, 0)).toBe(1);
    // An import moved the counter to 40 (its agents may hold any id up to there).
    ids.drop(40);
    state.counter = 40;
    expect(await reserved(ids, state, 1)).toBe(41);

    // A drop while a reservation is under way: that block is not used either.
    for (let i = 0; i < AGENT_ID_BLOCK / 2; i++) await ids.next();
    expect(state.reserves).toHaveLength(3);
    ids.drop(100);
    state.counter = 100;
    state.reserves[2]!.release();
    // The block of the overlapped reservation (101…116) is skipped.
    expect(await reserved(ids, state, 3)).toBe(117);
  });

  it("after a drop, hands out no id at or below the ids known taken, though the counter is past them", async () => {
    const { state, reserve } = counter();
    const ids = new AgentIds(reserve);
    expect(await reserved(ids, state, 0)).toBe(1);
    // An import brings ids up to 5, inside the block 1…16 this reserved: the counter stays at 16.
    ids.drop(5);
    const next = await reserved(ids, state, 1);
    expect(next).toBeGreaterThan(16);
  });

  it("never hands out an id at or below one it handed out, even when the counter fell behind (state.json rebuilt)", async () => {
    const { state, reserve } = counter();
    const ids = new AgentIds(reserve);
    expect(await reserved(ids, state, 0)).toBe(1);
    ids.drop();
    state.counter = 0;
    expect(await reserved(ids, state, 1)).toBe(2);
    expect(state.reserves[1]!.floor).toBe(1);
  });
});
