import "server-only";
/**
 * The seed files of an open conversation, rewritten from memory (used by LiveConversation).
 * A change is durable in the step log before it is marked here; the files follow:
 * - in the background ({@link SeedWriter.soon}), {@link SEED_WRITE_DELAY_MS} after the first
 *   change a pass writes, every file changed since the last pass in one go, so the steps of a
 *   burst share one rewrite of each file and a file is rewritten at most once per delay however
 *   fast the steps come; a pass that ends with more changes schedules the next;
 * - or now ({@link SeedWriter.all}): readers of the files, a checkpoint (durably), a close.
 * Writes are atomic (temp file + rename). A new sub-agent's folder appears whole: the files of the
 * pass that go in it are written into a staging folder beside it (`.creating-*`, removed by a
 * load after a crash), which is then renamed into place, so a kill never leaves an agent folder
 * with one of its two files. A failed write leaves its files marked, so the next
 * pass tries again; nothing is lost, the log holds every change.
 * A durable pass rewrites only the files that changed since they were last written; one that a
 * background pass already wrote, and that has not changed since, is synced where it is (an fsync
 * of the file and of its folder), not rewritten.
 */
import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import { fsyncDir, writeFileAtomicUnlocked } from "./atomic";

/**
 * How long after a change the seed files it touched are rewritten (ms). With a model that takes
 * seconds to answer, every step's files are on disk within this delay; with one that answers at
 * once, a file is rewritten at most about ten times a second instead of once per step. (500 ms
 * saved about 0.2 ms of CPU per model call in `npm run bench`, but left the files a person or a
 * script reads while a team works half a second behind what the page shows.)
 */
const SEED_WRITE_DELAY_MS = 100;

/** Where a key's file is, and its text (or that text's UTF-8 bytes) as it is now in memory. */
export interface SeedFiles<K extends string> {
  path(key: K): string;
  text(key: K): string | Uint8Array;
}

/** Rewrites marked files from memory. */
export class SeedWriter<K extends string> {
  readonly #files: SeedFiles<K>;
  readonly #label: string;
  readonly #dirty = new Set<K>();
  /** Files written by a background pass (no fsync) and not synced since. */
  readonly #unsynced = new Set<K>();
  /** Parents of folders made by a pass without a sync (a new sub-agent's), to be synced by a durable one. */
  readonly #newFolders = new Set<string>();
  /** Folders being made (a new sub-agent's, and agents/ before it), so the files waiting for one share its making. */
  readonly #making = new Map<string, Promise<void>>();
  #writing: Promise<void> | null = null;
  #background: Promise<void> | null = null;
  #timer: NodeJS.Timeout | null = null;
  #stopped = false;

  constructor(files: SeedFiles<K>, label: string) {
    this.#files = files;
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

  /**
   * Writes every marked file now (after any write under way). `durable`: each file written is
   * fsynced, and so is every file an earlier pass wrote without a sync, so that on return every
   * file this writer ever wrote is on disk.
   */
  async all(durable = false): Promise<void> {
    this.#cancelTimer();
    while (this.#dirty.size || this.#writing) {
      if (this.#writing) {
        await this.#writing.catch(() => undefined);
        continue;
      }
      await this.#write(this.#take(), durable);
    }
    if (durable && this.#unsynced.size) await this.#syncInPlace();
    if (durable && this.#newFolders.size) await this.#syncNewFolders();
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
    const files = keys.map((k) => ({ file: path.resolve(this.#files.path(k)), text: this.#files.text(k) }));
    const byFolder = new Map<string, { file: string; text: string | Uint8Array }[]>();
    for (const f of files) {
      const dir = path.dirname(f.file);
      const group = byFolder.get(dir);
      if (group) group.push(f);
      else byFolder.set(dir, [f]);
    }
    // The one writer of these files while the conversation is open, so no file lock is taken:
    // the store's conversation lock (keyed on metadata.json) may be held by the caller (a load).
    // Every write settles before the pass ends (a folder being made may still be renamed into place).
    this.#writing = Promise.allSettled(files.map((f) => this.#writeOne(f.file, f.text, byFolder.get(path.dirname(f.file))!, durable))).then((written) => {
      const failed = written.find((w) => w.status === "rejected");
      if (failed) throw failed.reason;
    });
    try {
      await this.#writing;
      for (const key of keys) {
        if (durable) this.#unsynced.delete(key);
        else this.#unsynced.add(key);
      }
    } catch (error) {
      this.mark(keys);
      throw error;
    } finally {
      this.#writing = null;
    }
  }

  /**
   * Writes one file. When its folder is not there yet (a new sub-agent's), the folder is made
   * with every file of the pass that goes in it (`siblings`), at once; the other files' writes
   * fail the same way and wait for that one making.
   */
  async #writeOne(file: string, text: string | Uint8Array, siblings: readonly { file: string; text: string | Uint8Array }[], durable: boolean): Promise<void> {
    try {
      await writeFileAtomicUnlocked(file, text, { durable });
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
    await this.#makeFolder(path.dirname(file), siblings, durable);
  }

  /**
   * Makes `folder` holding `files`: written into a staging folder beside it, then renamed into
   * place (a folder made meanwhile is written into directly). Its parent is made first when it
   * is not there (the conversation's agents/ before its first agent) but nothing above: a
   * conversation removed meanwhile fails the write rather than being made again. Every step goes
   * through the thread pool, as every change of a folder does (./atomic.ts): a create can wait
   * for the file system's journal. The made folder's own name is synced in its parent: now when
   * `durable`, else by the next durable pass. The files of one pass share one making.
   */
  #makeFolder(folder: string, files: readonly { file: string; text: string | Uint8Array }[], durable: boolean): Promise<void> {
    let making = this.#making.get(folder);
    if (!making) {
      making = this.#make(folder, files, durable);
      const done = () => {
        if (this.#making.get(folder) === making) this.#making.delete(folder);
      };
      making.then(done, done);
      this.#making.set(folder, making);
    }
    return making;
  }

  async #make(folder: string, files: readonly { file: string; text: string | Uint8Array }[], durable: boolean): Promise<void> {
    const parent = path.dirname(folder);
    await fs.mkdir(parent).then(
      () => this.#newFolders.add(path.dirname(parent)),
      (error: unknown) => {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      },
    );
    const staging = path.join(parent, `.creating-${path.basename(folder)}-${randomBytes(4).toString("hex")}`);
    await fs.mkdir(staging);
    try {
      // Every write settled before the staging folder can be removed on a failure.
      const written = await Promise.allSettled(files.map((f) => writeFileAtomicUnlocked(path.join(staging, path.basename(f.file)), f.text, { durable })));
      const failed = written.find((w) => w.status === "rejected");
      if (failed) throw failed.reason;
      if (durable) await fsyncDir(staging);
      await fs.rename(staging, folder);
    } catch (error) {
      await fs.rm(staging, { recursive: true, force: true }).catch(() => undefined);
      const code = (error as NodeJS.ErrnoException).code;
      // Made meanwhile (renaming onto a folder with files fails): the files go straight into it.
      if (code !== "ENOTEMPTY" && code !== "EEXIST") throw error;
      await Promise.all(files.map((f) => writeFileAtomicUnlocked(f.file, f.text, { durable })));
      return;
    }
    this.#newFolders.add(parent);
    if (durable) await this.#syncNewFolders();
  }

  /** fsyncs the parents of the folders made since the last sync, so the folders' names are durable. */
  async #syncNewFolders(): Promise<void> {
    const parents = [...this.#newFolders];
    this.#newFolders.clear();
    try {
      await Promise.all(parents.map((d) => fsyncDir(d)));
    } catch (error) {
      for (const d of parents) this.#newFolders.add(d);
      throw error;
    }
  }

  /**
   * fsyncs the files written without a sync (their content is current: they are not marked) and
   * their folders. One that is no longer there (removed by hand) is written again, durably.
   */
  async #syncInPlace(): Promise<void> {
    const keys = [...this.#unsynced];
    const files = keys.map((k) => path.resolve(this.#files.path(k)));
    const gone: K[] = [];
    this.#writing = (async () => {
      const synced = await Promise.all(files.map((f) => syncFile(f)));
      for (const [i, key] of keys.entries()) if (!synced[i]) gone.push(key);
      await Promise.all([...new Set(files.filter((_, i) => synced[i]).map((f) => path.dirname(f)))].map((d) => fsyncDir(d)));
    })();
    try {
      await this.#writing;
      for (const key of keys) this.#unsynced.delete(key);
    } finally {
      this.#writing = null;
    }
    if (gone.length) await this.#write(gone, true);
  }
}

/** fsyncs the file at `file` (opened for reading: an fsync needs no write access); false when it is not there. */
async function syncFile(file: string): Promise<boolean> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
  try {
    await handle.sync();
    return true;
  } finally {
    await handle.close();
  }
}
