/**
 * Global sub-agent ids, handed out from blocks reserved in state.json (seed §3: `agent_id_counter`,
 * the global instance counter). A block is reserved with one durable write of the counter moved
 * on by {@link AGENT_ID_BLOCK}; ids are then handed out from memory, and the next block is
 * reserved in the background once half of this one is used, so creating a sub-agent does not wait
 * for state.json. An id is never handed out twice, in this process or after a restart (the counter
 * on disk is always past every id handed out); the ids a crash or a stop leaves unused in a block
 * are skipped, so ids are unique and increasing but not always consecutive.
 */

/** How many ids one durable write of state.json reserves. */
export const AGENT_ID_BLOCK = 16;

/**
 * Writes the counter: `reserve(floor, count)` moves state.json's counter to at least
 * `max(counter, floor) + count` durably and resolves with the new counter (the block is the
 * `count` ids up to it).
 */
export type ReserveIds = (floor: number, count: number) => Promise<number>;

/** The ids reserved and not yet handed out. */
export class AgentIds {
  readonly #reserve: ReserveIds;
  /** Reserved ranges, inclusive, in order; the first is handed out from. */
  #ranges: Array<{ next: number; end: number }> = [];
  #refill: Promise<void> | null = null;
  /** The highest id handed out or known taken: a rebuilt state.json (from the folders) may be behind it. */
  #highest = 0;
  /** Counts {@link drop}s: a block whose reservation a drop overlapped is not used. */
  #generation = 0;

  constructor(reserve: ReserveIds) {
    this.#reserve = reserve;
  }

  /** The next id; waits for state.json only when no reserved id is left. */
  async next(): Promise<number> {
    for (;;) {
      const range = this.#ranges[0];
      if (range && range.next <= range.end) {
        const id = range.next++;
        if (range.next > range.end) this.#ranges.shift();
        this.#highest = Math.max(this.#highest, id);
        if (this.#left() < AGENT_ID_BLOCK / 2) this.#fill().catch(() => undefined);
        return id;
      }
      this.#ranges.shift();
      if (!this.#ranges.length) await this.#fill();
    }
  }

  /**
   * Forgets the ids reserved and not handed out, a reservation under way included: ids up to
   * `taken` now exist that this did not hand out (an imported conversation brings its agents'
   * ids), so any of them may be taken. The next id comes from a new block past `taken`.
   */
  drop(taken = 0): void {
    this.#ranges = [];
    this.#generation++;
    this.#highest = Math.max(this.#highest, taken);
  }

  #left(): number {
    return this.#ranges.reduce((n, r) => n + r.end - r.next + 1, 0);
  }

  #fill(): Promise<void> {
    const generation = this.#generation;
    this.#refill ??= this.#reserve(this.#highest, AGENT_ID_BLOCK)
      .then((end) => {
        if (generation !== this.#generation) return;
        const start = Math.max(end - AGENT_ID_BLOCK + 1, this.#highest + 1);
        if (start <= end) this.#ranges.push({ next: start, end });
      })
      .finally(() => {
        this.#refill = null;
      });
    return this.#refill;
  }
}
