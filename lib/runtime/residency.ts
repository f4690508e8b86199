/**
 * When the runtime lets a conversation go from memory. A conversation is resident (its run object,
 * its files held by the store, its open log files, its bus topic) while anything holds it:
 * - a request using its run (a lease, {@link Residency.use});
 * - a loop of its run working (its bus topic is also retained meanwhile, so a viewer that drops
 *   and reconnects is replayed what it missed);
 * - an SSE viewer following it.
 * When nothing holds it, it is released: nothing of it stays in memory, and the next request loads
 * it from disk again. One exception: a run holding notices for the person (kept in memory only,
 * a release would lose them) stays, at most {@link DEFAULT_MAX_KEPT} such runs, the least
 * recently settled released first.
 *
 * Pure policy: what "working", "viewers" and "release" mean comes in as hooks (lib/runtime/engine.ts).
 */

/** At most this many idle, unviewed runs are kept for their notices. */
const DEFAULT_MAX_KEPT = 16;

/** What the policy needs to know and do about one conversation. */
export interface ResidencyHooks {
  /** Whether a loop of the conversation's run is working. */
  working(convId: string): boolean;
  /** Resolves when no loop of its run is working. */
  idle(convId: string): Promise<void>;
  /** SSE viewers following it now. */
  viewers(convId: string): number;
  /** Whether its run holds notices for the person that only live in memory. */
  hasNotices(convId: string): boolean;
  /** Keeps its bus topic's numbering and replay buffer; returns the release. */
  retain(convId: string): () => void;
  /** Lets it go: run, files held in memory, open files. */
  release(convId: string): Promise<void>;
}

/** Figures for operators (`GET /api/health`). */
export interface ResidencyCounts {
  /** Conversations a request is using now. */
  in_use: number;
  /** Conversations whose run works (their bus topic retained). */
  working: number;
  /** Idle, unviewed runs kept for their notices. */
  kept_for_notices: number;
  /** Releases under way. */
  releasing: number;
}

/** Tracks what holds each conversation and releases those nothing holds. One per process. */
export class Residency {
  readonly maxKept: number;
  readonly #hooks: ResidencyHooks;
  readonly #leases = new Map<string, number>();
  /** Bus holds: taken while a conversation is in use or working. */
  readonly #holds = new Map<string, () => void>();
  /** Conversations whose run's idle() is awaited. */
  readonly #watching = new Set<string>();
  /** Kept for their notices; Map order is settle order (oldest first). */
  readonly #kept = new Map<string, true>();
  readonly #releasing = new Map<string, Promise<void>>();

  constructor(hooks: ResidencyHooks, options: { maxKept?: number } = {}) {
    this.#hooks = hooks;
    this.maxKept = Math.max(0, options.maxKept ?? DEFAULT_MAX_KEPT);
  }

  /**
   * Runs `fn` with the conversation held, so it cannot be released under a request that is using
   * its run; then looks whether it can go. A release under way is waited for first: the next load
   * reads what it wrote.
   */
  async use<T>(convId: string, fn: () => Promise<T>): Promise<T> {
    // Checked and taken in one synchronous step after the last wait: no release can start between.
    for (let pending = this.#releasing.get(convId); pending; pending = this.#releasing.get(convId)) await pending;
    this.#leases.set(convId, (this.#leases.get(convId) ?? 0) + 1);
    this.#kept.delete(convId);
    this.#hold(convId);
    try {
      return await fn();
    } finally {
      const left = (this.#leases.get(convId) ?? 1) - 1;
      if (left > 0) this.#leases.set(convId, left);
      else this.#leases.delete(convId);
      this.settle(convId);
    }
  }

  /**
   * Looks again at a conversation (a request ended, a viewer left, its run went idle) and releases
   * it when nothing holds it. A working run is watched: this runs again when it goes idle.
   */
  settle(convId: string): void {
    if (this.#leases.has(convId) || this.#releasing.has(convId)) return;
    if (this.#hooks.working(convId)) {
      this.#hold(convId);
      this.#watch(convId);
      return;
    }
    this.#unhold(convId);
    if (this.#hooks.viewers(convId) > 0) return;
    if (this.#hooks.hasNotices(convId) && this.maxKept > 0) {
      this.#keep(convId);
      return;
    }
    this.#kept.delete(convId);
    this.#release(convId);
  }

  /**
   * Runs `fn` (which lets the conversation go itself: a delete, an archive) as this conversation's
   * release: requests wait for it, and nothing of the conversation stays tracked here.
   */
  async forget(convId: string, fn: () => Promise<void>): Promise<void> {
    for (let pending = this.#releasing.get(convId); pending; pending = this.#releasing.get(convId)) await pending;
    this.#unhold(convId);
    this.#kept.delete(convId);
    const work = fn();
    const settled: Promise<void> = work
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => {
        if (this.#releasing.get(convId) === settled) this.#releasing.delete(convId);
      });
    this.#releasing.set(convId, settled);
    await work;
  }

  /** Resolves once no release of the conversation is under way. */
  async released(convId: string): Promise<void> {
    for (let pending = this.#releasing.get(convId); pending; pending = this.#releasing.get(convId)) await pending;
  }

  /** Figures for operators. */
  counts(): ResidencyCounts {
    return { in_use: this.#leases.size, working: this.#watching.size, kept_for_notices: this.#kept.size, releasing: this.#releasing.size };
  }

  #hold(convId: string): void {
    if (!this.#holds.has(convId)) this.#holds.set(convId, this.#hooks.retain(convId));
  }

  #unhold(convId: string): void {
    const release = this.#holds.get(convId);
    this.#holds.delete(convId);
    release?.();
  }

  #watch(convId: string): void {
    if (this.#watching.has(convId)) return;
    this.#watching.add(convId);
    void this.#hooks
      .idle(convId)
      .catch(() => undefined)
      .then(() => {
        this.#watching.delete(convId);
        this.settle(convId);
      });
  }

  #keep(convId: string): void {
    this.#kept.delete(convId);
    this.#kept.set(convId, true);
    while (this.#kept.size > this.maxKept) {
      const oldest = this.#kept.keys().next().value!;
      this.#kept.delete(oldest);
      // Something may hold it again since it was kept; then it is settled when that lets go.
      if (!this.#leases.has(oldest) && !this.#hooks.working(oldest) && this.#hooks.viewers(oldest) === 0) this.#release(oldest);
    }
  }

  #release(convId: string): void {
    if (this.#releasing.has(convId)) return;
    const done: Promise<void> = this.#hooks
      .release(convId)
      .catch((error: unknown) => console.error(`[astrion] could not let ${convId} go:`, (error as Error).message))
      .finally(() => {
        if (this.#releasing.get(convId) === done) this.#releasing.delete(convId);
      });
    this.#releasing.set(convId, done);
  }
}
