import "server-only";
/**
 * The role folder's parsed files, held in memory between changes.
 *
 * A leader turn lists the roles and loads the ones it may use; reading and parsing every YAML
 * frontmatter for that was the largest cost of a turn. The folder is watched instead (inotify on
 * Linux, `fs.watch`): any event in it drops the cache, and so does every write the library itself
 * makes. Beside the watch, a read more than `recheckMs` (1 s) after the last check stats the
 * folder and each of its entries (one `readdir` and a `stat` per entry, asynchronous) and drops
 * the cache when anything moved: a watch sees only this machine's changes, and on PostgreSQL +
 * Redis every instance shares the folder (docs/postgresql.md, "Settings"), possibly over a
 * network file system whose changes made elsewhere no watch reports. An edit made by another
 * instance is thus seen within about a second even then, at a cost that grows with the number of
 * role files only. When the folder cannot be watched (the platform refuses), the check alone
 * keeps the cache honest; when it does not exist, nothing is cached.
 *
 * A load that started before a change never installs its result (a generation counter), so a
 * reader sees either the folder as it was at the last event or a fresh read. The stamp a load is
 * checked against is taken before it reads; when the newest time in it is less than a second old
 * it is "racy" (a second change within the same timestamp tick would leave it unchanged, as git
 * says of its index), and the next check reads the folder again whatever it finds.
 */
import { promises as fs, watch, type FSWatcher } from "node:fs";
import path from "node:path";

/** What one load of the folder produced: per file name, its parsed value (or its read error). */
export type FolderSnapshot<T> = ReadonlyMap<string, T>;

/** How a folder cache checks what its watch may have missed. */
export interface FolderCacheOptions {
  /** Least time between two stat checks of the folder, in ms (default 1000). */
  recheckMs?: number;
  /** Whether to watch the folder as well (default true; tests turn it off to act as a network file system). */
  watch?: boolean;
}

/** The identity of the folder and of each entry in it, taken before a load. */
interface FolderStamp {
  text: string;
  /** Its newest time is too recent to tell a later change in the same tick apart. */
  racy: boolean;
}

/** Below this age the newest time of a stamp cannot be trusted (timestamp ticks, clocks of a file server). */
const RACY_MS = 1000;

/** The folder's stamp, or null when it cannot be listed (missing, not a folder). */
async function stampFolder(dir: string): Promise<FolderStamp | null> {
  const takenAt = Date.now();
  let names: string[];
  try {
    names = (await fs.readdir(dir)).sort();
  } catch {
    return null;
  }
  const entries = [".", ...names];
  const stats = await Promise.all(entries.map((name) => fs.stat(path.join(dir, name), { bigint: true }).catch(() => null)));
  let newest = 0;
  const parts = stats.map((st, i) => {
    if (!st) return `${entries[i]}:-`;
    newest = Math.max(newest, Number(st.mtimeNs / 1_000_000n), Number(st.ctimeNs / 1_000_000n));
    return `${entries[i]}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
  });
  return { text: parts.join("|"), racy: takenAt - newest < RACY_MS };
}

/** Caches one folder's parsed snapshot until the folder changes. */
export class FolderCache<T> {
  readonly #dir: string;
  readonly #load: () => Promise<FolderSnapshot<T>>;
  readonly #recheckMs: number;
  readonly #watchFolder: boolean;
  #snapshot: FolderSnapshot<T> | null = null;
  /** The stamp taken before {@link #snapshot} was read, and when it was last compared. */
  #stamp: FolderStamp | null = null;
  #checkedAt = 0;
  #loading: { generation: number; promise: Promise<FolderSnapshot<T>> } | null = null;
  #generation = 0;
  #watcher: FSWatcher | null = null;

  constructor(dir: string, load: () => Promise<FolderSnapshot<T>>, options: FolderCacheOptions = {}) {
    this.#dir = dir;
    this.#load = load;
    this.#recheckMs = options.recheckMs ?? 1000;
    this.#watchFolder = options.watch ?? true;
  }

  /** The folder's snapshot: from memory while nothing changed, else loaded (concurrent callers share a load). */
  async get(): Promise<FolderSnapshot<T>> {
    if (this.#snapshot && Date.now() - this.#checkedAt >= this.#recheckMs) await this.#recheck();
    if (this.#snapshot) return this.#snapshot;
    const generation = this.#generation;
    if (this.#loading?.generation === generation) return this.#loading.promise;
    // Watch and stamp before reading: an edit made while the folder is read drops what this read installs.
    if (this.#watchFolder) this.#watch();
    const promise = stampFolder(this.#dir).then(async (stamp) => ({ stamp, snapshot: await this.#load() }));
    const snapshot = promise.then((loaded) => loaded.snapshot);
    this.#loading = { generation, promise: snapshot };
    try {
      const loaded = await promise;
      if (loaded.stamp && this.#generation === generation) {
        this.#snapshot = loaded.snapshot;
        this.#stamp = loaded.stamp;
        this.#checkedAt = Date.now();
      }
      return loaded.snapshot;
    } finally {
      if (this.#loading?.promise === snapshot) this.#loading = null;
    }
  }

  /**
   * Compares the folder with the stamp of the snapshot held; a change, or a racy stamp, drops it.
   * Readers meanwhile get the snapshot held (the check's clock moved first).
   */
  async #recheck(): Promise<void> {
    this.#checkedAt = Date.now();
    const generation = this.#generation;
    const known = this.#stamp;
    const now = await stampFolder(this.#dir);
    if (generation === this.#generation && (!known || known.racy || now?.text !== known.text)) this.invalidate();
  }

  /** Drops the snapshot (the folder changed, or the library wrote to it). */
  invalidate(): void {
    this.#generation++;
    this.#snapshot = null;
    this.#stamp = null;
  }

  /** Stops watching (tests, shutdown). */
  close(): void {
    this.#watcher?.close();
    this.#watcher = null;
    this.invalidate();
  }

  #watch(): void {
    if (this.#watcher) return;
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
    } catch {
      // Not watched (missing folder, or the platform refuses): the stat check alone applies.
    }
  }
}
