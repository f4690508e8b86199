/**
 * The changes under way on one live conversation: a queue per file, so an async mutator never
 * races another change of the same file, and a count of every change not yet settled (queued,
 * running, or waiting for a checkpoint), so closing can make them all durable rather than refuse
 * the ones a caller began before it. Pure bookkeeping of promises: no I/O.
 */
export class ChangeQueues {
  readonly #queues = new Map<string, Promise<unknown>>();
  #busy = 0;
  #idle: { promise: Promise<void>; resolve: () => void } | null = null;

  /** Runs `fn` after every earlier change queued under `key`; counted until it settles. */
  serial<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.#queues.get(key) ?? Promise.resolve();
    const run = this.track(previous.then(fn, fn));
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    this.#queues.set(key, tail);
    void tail.then(() => {
      if (this.#queues.get(key) === tail) this.#queues.delete(key);
    });
    return run;
  }

  /** Counts a change that is not queued per file (an appended line) until it settles. */
  track<T>(change: Promise<T>): Promise<T> {
    this.#busy++;
    const done = () => {
      if (--this.#busy === 0 && this.#idle) {
        this.#idle.resolve();
        this.#idle = null;
      }
    };
    change.then(done, done);
    return change;
  }

  /** How many changes are under way. */
  get busy(): number {
    return this.#busy;
  }

  /** Resolves once no change is under way (at once when none is). */
  settled(): Promise<void> {
    if (this.#busy === 0) return Promise.resolve();
    if (!this.#idle) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.#idle = { promise, resolve };
    }
    return this.#idle.promise;
  }
}
