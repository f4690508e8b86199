/**
 * The engine's outbox: events for a conversation's viewers wait here until every change made
 * before they were published is durable, then leave in publication order (one group commit of
 * the step log releases all the events of its tick). The engine computes ahead of its storage
 * (its changes resolve once ordered for durability); the outbox is what keeps "a browser never
 * sees what a crash loses". Pure bookkeeping of promises: the storage's durability and the bus
 * are handed in.
 */
import type { Durability } from "@/lib/store";

/** The durability of storage that makes every change durable as it is made. */
const ALWAYS_DURABLE: Durability = { durableMark: 0, isDurable: () => true, whenDurable: () => Promise.resolve() };

interface Waiting<E> {
  /** Whose mark: a conversation let go and loaded again counts its marks anew. */
  durability: Durability;
  mark: number;
  event: E;
}

export class Outbox<E> {
  readonly #durability: () => Durability | null;
  readonly #send: (event: E) => void;
  #waiting: Waiting<E>[] = [];
  #draining = false;
  /** Events that entered, and events that left (sent or dropped), since the start. */
  #in = 0;
  #out = 0;
  /** Waiting until the events that entered before them have left. */
  #waiters: Array<{ upTo: number; resolve: () => void }> = [];

  /** `durability`: where the storage's changes stand now (null: durable as made); `send`: the bus. */
  constructor(durability: () => Durability | null, send: (event: E) => void) {
    this.#durability = durability;
    this.#send = send;
  }

  /**
   * Sends `event` once every change made so far is durable (at once when it is); events keep
   * their order. When the storage fails, the waiting events are dropped: what they describe may
   * be lost, so no viewer may see it.
   */
  publish(event: E): void {
    const durability = this.#durability();
    if (!this.#waiting.length && (!durability || durability.isDurable(durability.durableMark))) {
      this.#send(event);
      return;
    }
    this.#waiting.push({ durability: durability ?? ALWAYS_DURABLE, mark: durability?.durableMark ?? 0, event });
    this.#in++;
    if (!this.#draining) void this.#drain();
  }

  /**
   * Resolves once every change made so far is durable and every event published before the call
   * has been sent; rejects when the storage failed first.
   */
  async durable(): Promise<void> {
    const upTo = this.#in;
    await this.#durability()?.whenDurable();
    if (this.#out < upTo) await new Promise<void>((resolve) => this.#waiters.push({ upTo, resolve }));
  }

  #left(n: number): void {
    this.#out += n;
    if (this.#waiters.length) this.#waiters = this.#waiters.filter((w) => (w.upTo <= this.#out ? (w.resolve(), false) : true));
  }

  async #drain(): Promise<void> {
    this.#draining = true;
    try {
      while (this.#waiting.length) {
        const head = this.#waiting[0]!;
        await head.durability.whenDurable(head.mark);
        let n = 0;
        while (n < this.#waiting.length && this.#waiting[n]!.durability.isDurable(this.#waiting[n]!.mark)) n++;
        for (const { event } of this.#waiting.splice(0, n)) this.#send(event);
        this.#left(n);
      }
    } catch {
      const dropped = this.#waiting.length;
      this.#waiting = [];
      this.#left(dropped);
    } finally {
      this.#draining = false;
    }
  }
}
