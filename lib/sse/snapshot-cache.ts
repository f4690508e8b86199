/**
 * The encoded snapshot frame of a conversation, shared by the streams that open on it while it is
 * unchanged. A snapshot holds the whole leader conversation and every agent (megabytes for a long
 * run); building and encoding it once per connection would cost that much per connection and per
 * reconnect storm. Here N streams opened on an unchanged conversation build it once, even when
 * they open at the same moment (the build in flight is shared).
 *
 * The version is the bus's last event id (which names the topic's numbering, so a numbering that
 * restarted after a release never matches an old one) plus whatever else the snapshot reads that
 * may change without an event (the store's write counter): a different version builds afresh. An
 * entry lives only while some stream of that conversation is open, so idle conversations keep no
 * copy.
 */

interface Entry {
  /** Streams of this topic open now. */
  holders: number;
  version?: string;
  frame?: Promise<Uint8Array>;
}

/** Snapshot frames per topic, kept while streams of the topic are open. */
export class SnapshotFrameCache {
  readonly #entries = new Map<string, Entry>();

  /** A stream of `topic` opened; call the returned function (once) when it ends. */
  hold(topic: string): () => void {
    const entry = this.#entries.get(topic) ?? { holders: 0 };
    entry.holders += 1;
    this.#entries.set(topic, entry);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      entry.holders -= 1;
      if (entry.holders <= 0 && this.#entries.get(topic) === entry) this.#entries.delete(topic);
    };
  }

  /**
   * The frame of `topic` at `version`: the cached one when the version matches, else `build()`'s
   * (called on a later microtask). A failed build is not kept, so the next stream tries again.
   * Without a {@link hold} on the topic nothing is kept.
   */
  frame(topic: string, version: string, build: () => Promise<Uint8Array>): Promise<Uint8Array> {
    const entry = this.#entries.get(topic);
    if (entry?.frame && entry.version === version) return entry.frame;
    const frame = Promise.resolve().then(build);
    if (entry) {
      entry.version = version;
      entry.frame = frame;
      frame.catch(() => {
        if (entry.frame === frame) {
          entry.frame = undefined;
          entry.version = undefined;
        }
      });
    }
    return frame;
  }

  /** Topics with an entry (tests, diagnostics). */
  get size(): number {
    return this.#entries.size;
  }
}

/** One cache per bus: frames name the bus's boot id and sequence numbers. */
const caches = new WeakMap<object, SnapshotFrameCache>();

/** The snapshot cache of `bus`. */
export function snapshotCacheFor(bus: object): SnapshotFrameCache {
  let cache = caches.get(bus);
  if (!cache) {
    cache = new SnapshotFrameCache();
    caches.set(bus, cache);
  }
  return cache;
}
