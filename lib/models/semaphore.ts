/**
 * A counting semaphore with a FIFO queue, and a process-wide set of them keyed by model entry, so a
 * model entry's `max_concurrency` bounds its simultaneous calls across every conversation (seed 003
 * §6.2: "the agent's own concurrency limit is declared in the registry and the orchestrator never
 * sends more than that to one backend"). Pure: no I/O.
 */

/** Gives the slot back; calling it more than once is harmless. */
export type Release = () => void;

/** Why {@link Semaphore.acquire} gave up: the caller's signal aborted while it waited. */
export class SemaphoreAbortedError extends Error {
  constructor() {
    super("The wait for a free slot was aborted.");
    this.name = "SemaphoreAbortedError";
  }
}

/** What a semaphore is doing, for health views and tests. */
export interface SemaphoreSnapshot {
  limit: number;
  active: number;
  waiting: number;
}

interface Waiter {
  grant: (release: Release) => void;
  cleanup: () => void;
}

/**
 * At most `limit` holders at once; others wait in arrival order. A waiter whose signal aborts
 * leaves the queue at once and never takes a slot.
 */
export class Semaphore {
  private holders = 0;
  private readonly queue: Waiter[] = [];

  constructor(private max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`A semaphore needs a limit of at least 1, not ${max}.`);
  }

  /** The current limit. */
  get limit(): number {
    return this.max;
  }

  /**
   * Changes the limit (models.json was edited). Raising it admits waiters at once; lowering it
   * lets current holders finish and admits no one until they are under the new limit.
   */
  setLimit(limit: number): void {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`A semaphore needs a limit of at least 1, not ${limit}.`);
    this.max = limit;
    this.drain();
  }

  /** Resolves with a {@link Release} once a slot is free; rejects with {@link SemaphoreAbortedError} on abort. */
  acquire(signal?: AbortSignal): Promise<Release> {
    if (signal?.aborted) return Promise.reject(new SemaphoreAbortedError());
    // The queue check keeps FIFO fair: a newcomer never overtakes someone already waiting.
    if (this.holders < this.max && this.queue.length === 0) {
      this.holders += 1;
      return Promise.resolve(this.releaser());
    }
    return new Promise<Release>((resolve, reject) => {
      const onAbort = () => {
        const at = this.queue.indexOf(waiter);
        if (at >= 0) this.queue.splice(at, 1);
        reject(new SemaphoreAbortedError());
      };
      const waiter: Waiter = {
        grant: resolve,
        cleanup: () => signal?.removeEventListener("abort", onAbort),
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.queue.push(waiter);
    });
  }

  /** Runs `fn` holding a slot, and gives the slot back however `fn` ends. */
  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const release = await this.acquire(signal);
    try {
      return await fn();
    } finally {
      release();
    }
  }

  /** Holders and waiters right now. */
  snapshot(): SemaphoreSnapshot {
    return { limit: this.max, active: this.holders, waiting: this.queue.length };
  }

  private releaser(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holders -= 1;
      this.drain();
    };
  }

  private drain(): void {
    while (this.holders < this.max) {
      const next = this.queue.shift();
      if (!next) return;
      next.cleanup();
      this.holders += 1;
      next.grant(this.releaser());
    }
  }
}
