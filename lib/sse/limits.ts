/**
 * Caps on open SSE streams: per client address and in total. Each stream holds a socket, a
 * subscription and a heartbeat timer, so an unbounded number of them (one tab reconnecting in a
 * loop, or a script) would exhaust the server. A refused stream gets 429 with Retry-After; a
 * stream gives its slot back exactly once, when it ends for any reason. Pure.
 */

/** How many streams may be open at once. */
export interface StreamLimits {
  /** Per client address. */
  perClient: number;
  /** In the whole process. */
  total: number;
}

/** Defaults: 20 per client address (many tabs), 200 in all. */
export const DEFAULT_STREAM_LIMITS: StreamLimits = { perClient: 20, total: 200 };

/** Seconds a refused client is told to wait: long enough for a closed tab's stream to be noticed. */
export const STREAM_RETRY_AFTER_SECONDS = 5;

function intFrom(env: Readonly<Record<string, string | undefined>>, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const n = Number(raw);
  return Number.isInteger(n) && n >= 1 ? n : fallback;
}

/** Reads ASTRION_SSE_MAX_PER_CLIENT and ASTRION_SSE_MAX_TOTAL (positive integers) over the defaults. */
export function streamLimitsFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): StreamLimits {
  return {
    perClient: intFrom(env, "ASTRION_SSE_MAX_PER_CLIENT", DEFAULT_STREAM_LIMITS.perClient),
    total: intFrom(env, "ASTRION_SSE_MAX_TOTAL", DEFAULT_STREAM_LIMITS.total),
  };
}

/** A granted slot; `release()` is idempotent. */
export interface StreamSlot {
  ok: true;
  release: () => void;
}

/** A refusal: which cap was reached. */
export interface StreamRefusal {
  ok: false;
  scope: "client" | "total";
  limit: number;
  message: string;
}

/** Counts open streams per client and in total. */
export class StreamSlots {
  readonly limits: StreamLimits;
  readonly #perClient = new Map<string, number>();
  #total = 0;

  constructor(limits: StreamLimits = DEFAULT_STREAM_LIMITS) {
    this.limits = limits;
  }

  /** Takes a slot for `client`, or says which cap refuses it. */
  acquire(client: string): StreamSlot | StreamRefusal {
    const mine = this.#perClient.get(client) ?? 0;
    if (mine >= this.limits.perClient) {
      return {
        ok: false,
        scope: "client",
        limit: this.limits.perClient,
        message: `Too many live streams from this address (at most ${this.limits.perClient}); close some tabs and try again.`,
      };
    }
    if (this.#total >= this.limits.total) {
      return { ok: false, scope: "total", limit: this.limits.total, message: `The server has too many live streams open (at most ${this.limits.total}); try again shortly.` };
    }
    this.#perClient.set(client, mine + 1);
    this.#total += 1;
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        this.#total -= 1;
        const left = (this.#perClient.get(client) ?? 1) - 1;
        if (left <= 0) this.#perClient.delete(client);
        else this.#perClient.set(client, left);
      },
    };
  }

  /** Streams open now, in total and for `client`. */
  open(client?: string): number {
    return client === undefined ? this.#total : (this.#perClient.get(client) ?? 0);
  }
}
