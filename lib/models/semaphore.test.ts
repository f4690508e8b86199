import { describe, expect, it } from "vitest";
import { Semaphore, SemaphoreAbortedError } from "./semaphore";

const tick = () => new Promise((r) => setTimeout(r, 0));

describe("Semaphore", () => {
  it("admits up to the limit, then queues in arrival order", async () => {
    const s = new Semaphore(2);
    const order: number[] = [];
    const r1 = await s.acquire();
    const r2 = await s.acquire();
    const waiting = [3, 4, 5].map((n) => s.acquire().then((release) => (order.push(n), release)));
    await tick();
    expect(s.snapshot()).toEqual({ limit: 2, active: 2, waiting: 3 });
    r2();
    r2(); // a second release is harmless
    await tick();
    expect(order).toEqual([3]);
    r1();
    await tick();
    expect(order).toEqual([3, 4]);
    (await waiting[0]!)();
    await tick();
    expect(order).toEqual([3, 4, 5]);
    expect(s.snapshot()).toEqual({ limit: 2, active: 2, waiting: 0 });
  });

  it("a waiter whose signal aborts leaves the queue and never takes a slot", async () => {
    const s = new Semaphore(1);
    const release = await s.acquire();
    const controller = new AbortController();
    const aborted = s.acquire(controller.signal);
    const next = s.acquire();
    await tick();
    controller.abort();
    await expect(aborted).rejects.toBeInstanceOf(SemaphoreAbortedError);
    expect(s.snapshot().waiting).toBe(1);
    release();
    const r = await next;
    expect(s.snapshot()).toEqual({ limit: 1, active: 1, waiting: 0 });
    r();
    await expect(s.acquire(AbortSignal.abort())).rejects.toBeInstanceOf(SemaphoreAbortedError);
    expect(s.snapshot().active).toBe(0);
  });

  it("never exceeds the limit under 50 concurrent acquirers, and all of them finish", async () => {
    const s = new Semaphore(3);
    let inFlight = 0;
    let max = 0;
    const done = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        s.run(async () => {
          inFlight += 1;
          max = Math.max(max, inFlight);
          await new Promise((r) => setTimeout(r, 1 + (i % 5)));
          inFlight -= 1;
          return i;
        }),
      ),
    );
    expect(done).toHaveLength(50);
    expect(max).toBe(3);
    expect(s.snapshot()).toEqual({ limit: 3, active: 0, waiting: 0 });
  });

  it("releases the slot when the work throws", async () => {
    const s = new Semaphore(1);
    await expect(s.run(async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(s.snapshot().active).toBe(0);
  });

  it("raising the limit admits waiters at once; lowering it admits no one until under it", async () => {
    const s = new Semaphore(1);
    const r1 = await s.acquire();
    const w = s.acquire();
    s.setLimit(2);
    const r2 = await w;
    s.setLimit(1);
    const w3 = s.acquire();
    r1();
    await tick();
    expect(s.snapshot()).toEqual({ limit: 1, active: 1, waiting: 1 });
    r2();
    (await w3)();
    expect(() => new Semaphore(0)).toThrow(RangeError);
  });
});

