import "server-only";
/**
 * Where one open conversation's changes stand on their way to PostgreSQL (the engine's
 * `Durability`): every change takes the next mark, a commit that held the changes up to a mark
 * makes them durable together, and a failure (a refused or lost commit) rejects every wait for a
 * mark not yet durable, and every later change. Pure bookkeeping: the flusher (./flusher.ts) says
 * when a commit landed or failed.
 */
import type { Durability } from "@/lib/store";

interface Waiter {
  mark: number;
  resolve: () => void;
  reject: (error: Error) => void;
}

/** The marks of one loaded conversation (a conversation let go and loaded again counts its marks anew, as the engine expects). */
export class ChangeLog implements Durability {
  #made = 0;
  #durable = 0;
  #failure: Error | null = null;
  #waiters: Waiter[] = [];
  /** Told once, when the changes fail (the storage tells the engine, which stops the run). */
  onFail: ((error: Error) => void) | null = null;

  /** The mark of every change made so far. */
  get durableMark(): number {
    return this.#made;
  }

  /** Why changes can no longer become durable, once they cannot. */
  get failure(): Error | null {
    return this.#failure;
  }

  /** Whether every change made before `mark` is durable. */
  isDurable(mark: number): boolean {
    return this.#durable >= mark;
  }

  /** Resolves once every change before `mark` (default: every change so far) is durable; rejects when they can no longer become durable. */
  whenDurable(mark: number = this.#made): Promise<void> {
    if (this.#durable >= mark) return Promise.resolve();
    if (this.#failure) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => this.#waiters.push({ mark, resolve, reject }));
  }

  /** Takes the mark of a new change. @throws the failure, once there is one (nothing after it could become durable). */
  next(): number {
    if (this.#failure) throw this.#failure;
    return ++this.#made;
  }

  /** A commit landed holding every change up to `mark`. */
  durableUpTo(mark: number): void {
    if (mark <= this.#durable) return;
    this.#durable = mark;
    const ready = this.#waiters.filter((w) => w.mark <= mark);
    if (!ready.length) return;
    this.#waiters = this.#waiters.filter((w) => w.mark > mark);
    for (const w of ready) w.resolve();
  }

  /** The changes not durable yet never will be: their waits reject with `error`, and so does every later change. */
  fail(error: Error): void {
    if (this.#failure) return;
    this.#failure = error;
    for (const w of this.#waiters.splice(0)) w.reject(error);
    this.onFail?.(error);
  }
}
