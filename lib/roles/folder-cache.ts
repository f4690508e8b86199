import "server-only";
/**
 * The role folder's parsed files, held in memory between changes.
 *
 * A leader turn lists the roles and loads the ones it may use; reading and parsing every YAML
 * frontmatter for that was the largest cost of a turn. The folder is watched instead (inotify on
 * Linux, `fs.watch`): any event in it drops the cache, and so does every write the library itself
 * makes. When the folder cannot be watched (it does not exist yet, or the platform refuses), nothing
 * is cached and every read goes to the disk, as before.
 *
 * A load that started before a change never installs its result (a generation counter), so a
 * reader sees either the folder as it was at the last event or a fresh read.
 */
import { watch, type FSWatcher } from "node:fs";
import path from "node:path";

/** What one load of the folder produced: per file name, its parsed value (or its read error). */
export type FolderSnapshot<T> = ReadonlyMap<string, T>;

/** Caches one folder's parsed snapshot until the folder changes. */
export class FolderCache<T> {
  readonly #dir: string;
  readonly #load: () => Promise<FolderSnapshot<T>>;
  #snapshot: FolderSnapshot<T> | null = null;
  #loading: { generation: number; promise: Promise<FolderSnapshot<T>> } | null = null;
  #generation = 0;
  #watcher: FSWatcher | null = null;

  constructor(dir: string, load: () => Promise<FolderSnapshot<T>>) {
    this.#dir = dir;
    this.#load = load;
  }

  /** The folder's snapshot: from memory while nothing changed, else loaded (concurrent callers share a load). */
  async get(): Promise<FolderSnapshot<T>> {
    if (this.#snapshot) return this.#snapshot;
    const generation = this.#generation;
    if (this.#loading?.generation === generation) return this.#loading.promise;
    // Watch before reading: an edit made while the folder is read drops what this read installs.
    const watched = this.#watch();
    const promise = this.#load();
    this.#loading = { generation, promise };
    try {
      const snapshot = await promise;
      if (watched && this.#generation === generation) this.#snapshot = snapshot;
      return snapshot;
    } finally {
      if (this.#loading?.promise === promise) this.#loading = null;
    }
  }

  /** Drops the snapshot (the folder changed, or the library wrote to it). */
  invalidate(): void {
    this.#generation++;
    this.#snapshot = null;
  }

  /** Stops watching (tests, shutdown). */
  close(): void {
    this.#watcher?.close();
    this.#watcher = null;
    this.invalidate();
  }

  #watch(): boolean {
    if (this.#watcher) return true;
    try {
      // An event naming the folder itself (or no name) means the folder was moved or removed:
      // the watch follows the old folder, so it is dropped and made again at the next read.
      const self = path.basename(this.#dir);
      const lost = () => {
        if (this.#watcher === watcher) this.#watcher = null;
        watcher.close();
        this.invalidate();
      };
      const watcher = watch(this.#dir, { persistent: false }, (_event, name) => (name === null || name === self ? lost() : this.invalidate()));
      watcher.on("error", lost);
      this.#watcher = watcher;
      return true;
    } catch {
      return false;
    }
  }
}
