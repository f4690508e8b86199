/**
 * A command's output kept within a budget: its head and its tail, the middle dropped with a
 * marker saying how much. Memory stays bounded however much a command prints. Pure.
 */

/** The marker put where the middle of an output was dropped. */
export function elidedMarker(chars: number): string {
  return `\n… [${chars} characters of output elided] …\n`;
}

/** Collects output, keeping at most `max` characters: the first half and the last half. */
export class OutputCollector {
  readonly #headMax: number;
  readonly #tailMax: number;
  #head = "";
  #tail = "";
  #total = 0;

  constructor(max: number) {
    this.#headMax = Math.ceil(max / 2);
    this.#tailMax = Math.floor(max / 2);
  }

  /** Adds a piece of output. */
  add(text: string): void {
    this.#total += text.length;
    if (this.#head.length < this.#headMax) {
      const room = this.#headMax - this.#head.length;
      this.#head += text.slice(0, room);
      text = text.slice(room);
    }
    if (!text) return;
    // slice(-0) would keep everything, hence the explicit empty tail.
    this.#tail = this.#tailMax > 0 ? (this.#tail + text).slice(-this.#tailMax) : "";
  }

  /** Characters received in all. */
  get total(): number {
    return this.#total;
  }

  /** True when some output was dropped. */
  get truncated(): boolean {
    return this.#total > this.#head.length + this.#tail.length;
  }

  /** The kept output, with the marker where the middle was dropped. */
  text(): string {
    const dropped = this.#total - this.#head.length - this.#tail.length;
    return dropped > 0 ? `${this.#head}${elidedMarker(dropped)}${this.#tail}` : this.#head + this.#tail;
  }
}
