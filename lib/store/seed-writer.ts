import "server-only";
/**
 * The seed files of an open conversation, rewritten from memory (used by LiveConversation).
 * A change is durable in the step log before it is marked here; the files follow:
 * - in the background ({@link SeedWriter.soon}), {@link SEED_WRITE_DELAY_MS} after the first
 *   change a pass writes, every file changed since the last pass in one go, so the steps of a
 *   burst share one rewrite of each file and a file is rewritten at most once per delay however
 *   fast the steps come; a pass that ends with more changes schedules the next;
 * - or now ({@link SeedWriter.all}): readers of the files, a checkpoint (durably), a close.
 * Writes are atomic (temp file + rename). A failed write leaves its files marked, so the next
 * pass tries again; nothing is lost, the log holds every change.
 */
import path from "node:path";
import { writeFileAtomicUnlocked } from "./atomic";

/**
 * How long after a change the seed files it touched are rewritten (ms). With a model that takes
 * seconds to answer, every step's files are on disk within this delay; with one that answers at
 * once, a file is rewritten at most about ten times a second instead of once per step.
 */
export const SEED_WRITE_DELAY_MS = 100;

/** Rewrites marked files from memory; `render` gives a key's path and text as they are now. */
export class SeedWriter<K extends string> {
  readonly #render: (key: K) => { file: string; text: string };
  readonly #label: string;
  readonly #dirty = new Set<K>();
  #writing: Promise<void> | null = null;
  #background: Promise<void> | null = null;
  #timer: NodeJS.Timeout | null = null;
  #stopped = false;

  constructor(render: (key: K) => { file: string; text: string }, label: string) {
    this.#render = render;
    this.#label = label;
  }

  /** Whether a file is marked or being written. */
  get pending(): boolean {
    return this.#dirty.size > 0 || this.#writing !== null;
  }

  /** Marks files whose content changed in memory. */
  mark(keys: Iterable<K>): void {
    for (const key of keys) this.#dirty.add(key);
  }

  /** Schedules a background pass unless one is due or running (nothing waits for it). */
  soon(): void {
    if (this.#timer || this.#background || this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#background = this.#pass()
        .catch((error) => {
          // The changes are in the log: the next pass, a checkpoint or a load writes the files.
          console.error(`[astrion] ${this.#label}: could not rewrite its seed files from memory (the step log holds the changes)`, error);
        })
        .finally(() => {
          this.#background = null;
          if (this.#dirty.size) this.soon();
        });
    }, SEED_WRITE_DELAY_MS);
    this.#timer.unref();
  }

  /** Writes every marked file now (after any write under way); `durable` fsyncs each. */
  async all(durable = false): Promise<void> {
    this.#cancelTimer();
    while (this.#dirty.size || this.#writing) {
      if (this.#writing) {
        await this.#writing.catch(() => undefined);
        continue;
      }
      await this.#write(this.#take(), durable);
    }
  }

  /** No more background passes; resolves once a pass under way has ended. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#cancelTimer();
    await this.#background;
  }

  #cancelTimer(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  #take(): K[] {
    const keys = [...this.#dirty];
    this.#dirty.clear();
    return keys;
  }

  async #pass(): Promise<void> {
    while (this.#writing) await this.#writing.catch(() => undefined);
    if (this.#dirty.size) await this.#write(this.#take(), false);
  }

  /** Writes the files of `keys`, serialized now, in one go, so they show one moment of the conversation. */
  async #write(keys: K[], durable: boolean): Promise<void> {
    const files = keys.map((k) => this.#render(k));
    // The one writer of these files while the conversation is open, so no file lock is taken:
    // the store's conversation lock (keyed on metadata.json) may be held by the caller (a load).
    this.#writing = Promise.all(files.map((f) => writeFileAtomicUnlocked(path.resolve(f.file), f.text, { durable }))).then(() => undefined);
    try {
      await this.#writing;
    } catch (error) {
      this.mark(keys);
      throw error;
    } finally {
      this.#writing = null;
    }
  }
}
