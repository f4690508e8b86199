/**
 * The data folder's count of sub-agent instances: state.json's `agent_id_counter` (seed §3, "the
 * global instance counter", optional). An agent's own id is numbered within its conversation
 * (lib/store/agent-files.ts); this counts every agent of every conversation, so it grows by one
 * per agent created anywhere in the data folder. It is moved on in blocks: one durable write of
 * the counter moved on by {@link AGENT_COUNTER_BLOCK}, then the block's numbers are taken from
 * memory, and the next block is reserved in the background once half of this one is used, so
 * creating a sub-agent does not wait for state.json. The counter on disk is always at or past
 * every number taken, in this process or after a restart; the numbers a crash or a stop leaves
 * unused in a block are skipped, so the counter may run ahead of the agents it counted.
 */

/** How many instances one durable write of state.json reserves. */
export const AGENT_COUNTER_BLOCK = 16;

/**
 * Writes the counter: `reserve(floor, count)` moves state.json's counter to at least
 * `max(counter, floor) + count` durably and resolves with the new counter (the block is the
 * `count` numbers up to it).
 */
export type ReserveCount = (floor: number, count: number) => Promise<number>;

/** The instance numbers reserved and not yet taken. */
export class AgentCounter {
  readonly #reserve: ReserveCount;
  /** Reserved ranges, inclusive, in order; the first is taken from. */
  #ranges: Array<{ next: number; end: number }> = [];
  #refill: Promise<void> | null = null;
  /** The end of the last block reserved: a rebuilt state.json (from the folders) may be behind it. */
  #reserved = 0;

  constructor(reserve: ReserveCount) {
    this.#reserve = reserve;
  }

  /** Counts one more instance; resolves with its number. Waits for state.json only when no reserved number is left. */
  async count(): Promise<number> {
    for (;;) {
      const range = this.#ranges[0];
      if (range && range.next <= range.end) {
        const n = range.next++;
        if (range.next > range.end) this.#ranges.shift();
        if (this.#left() < AGENT_COUNTER_BLOCK / 2) this.#fill().catch(() => undefined);
        return n;
      }
      this.#ranges.shift();
      if (!this.#ranges.length) await this.#fill();
    }
  }

  #left(): number {
    return this.#ranges.reduce((n, r) => n + r.end - r.next + 1, 0);
  }

  #fill(): Promise<void> {
    this.#refill ??= this.#reserve(this.#reserved, AGENT_COUNTER_BLOCK)
      .then((end) => {
        const start = Math.max(end - AGENT_COUNTER_BLOCK + 1, this.#reserved + 1);
        if (start <= end) this.#ranges.push({ next: start, end });
        this.#reserved = Math.max(this.#reserved, end);
      })
      .finally(() => {
        this.#refill = null;
      });
    return this.#refill;
  }
}
