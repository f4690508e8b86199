/**
 * Atomic, durable file writes (seed §8.2) and per-file serialization. Imports only Node
 * built-ins so a test can run it in a child process that is killed mid-write.
 *
 * A write goes to a temp file in the same folder, is fsynced, renamed over the target and the
 * folder is fsynced, so after a crash at any instant the target is either the old or the new
 * file, never torn. Writes (and read-modify-writes) to one path are queued ({@link FileQueues})
 * so none is lost.
 */
import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";

/** Temp files are `<name>.<pid>.<random>.tmp` beside their target: recognizable for clean-up. */
export const TEMP_FILE_PATTERN = /\.\d+\.[0-9a-f]{12}\.tmp$/;

/**
 * Per-file write queues: a task queued under a key (usually an absolute file path) runs once every
 * earlier task under that key has settled, so read-modify-write sequences on one file never
 * interleave. Only writers that share an instance are serialized, so every writer of a data
 * folder must be given the same one: the composition root (lib/server/app.ts) makes one per
 * process and hands it down (a module-level queue would exist once per Next route bundle).
 * Standalone code (a script, a test's child process) makes its own.
 */
export class FileQueues {
  readonly #tails = new Map<string, Promise<unknown>>();

  /**
   * Runs `fn` after every earlier task queued under `key` has settled, so read-modify-write
   * sequences on one file never interleave.
   */
  async withFileLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const tails = this.#tails;
    const previous = tails.get(key) ?? Promise.resolve();
    const run = previous.then(fn, fn);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    tails.set(key, tail);
    try {
      return await run;
    } finally {
      if (tails.get(key) === tail) tails.delete(key);
    }
  }

  /** Keys with a task queued or running. */
  get busyKeys(): number {
    return this.#tails.size;
  }
}

/** fsync a directory so a rename (or a newly created file's name) inside it survives power loss. */
export async function fsyncDir(dir: string): Promise<void> {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(dir, "r");
    await handle.sync();
  } catch (error) {
    // Some file systems refuse to fsync a directory (EINVAL/EISDIR/EPERM); the rename is still atomic.
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "EINVAL" && code !== "EISDIR" && code !== "EPERM" && code !== "ENOTSUP") throw error;
  } finally {
    await handle?.close();
  }
}

/** Options of the atomic writes. */
export interface AtomicWriteOptions {
  /**
   * Default true: fsync the file and its folder, so the write survives power loss. False when the
   * content is already durable elsewhere (the conversation engine's step log): the rename is still
   * atomic, so a crashed process leaves the old or the new file, never a torn one.
   */
  durable?: boolean;
  /**
   * Permission bits of the new file (default 0o644). A secret's file is written 0o600, and since
   * the temp file is created with them before any byte is written, no reader ever sees it looser.
   */
  mode?: number;
}

// Temp names count up from a random start (drawn once: a random draw per write cost more than the write).
const TEMP_SPACE = 2 ** 48;
let tempCounter = randomBytes(6).readUIntBE(0, 6);

/** A fresh temp-file name for `file`, matching {@link TEMP_FILE_PATTERN}. */
function tempNameOf(file: string): string {
  tempCounter = (tempCounter + 1) % TEMP_SPACE;
  return `${file}.${process.pid}.${tempCounter.toString(16).padStart(12, "0")}.tmp`;
}

/** Writes without queueing; callers that already hold the file's lock use this. */
export async function writeFileAtomicUnlocked(file: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  const durable = options.durable !== false;
  const mode = options.mode ?? 0o644;
  const dir = path.dirname(file);
  const tmp = tempNameOf(file);
  if (!durable) {
    // Nothing waits for the disk here (no fsync), but every step goes to the thread pool all the
    // same: creating the temp file and renaming it over the target change the folder, and on ext4
    // such a change waits for the journal while a commit is under way (an fsync of any file of
    // the file system starts one). Made synchronously, the temp file's create held the event loop
    // for 214 ms once in 60 bench runs on the development machine, where no write to an open file
    // took 1 ms; a rename over a file can also wait for the new file's write-back (ext4's
    // auto_da_alloc). `wx` refuses to follow anything already there.
    let created = false;
    try {
      await fs.writeFile(tmp, data, { flag: "wx", mode });
      created = true;
      await fs.rename(tmp, file);
    } catch (error) {
      // A temp file that could not be opened because its folder is not there (ENOENT comes only
      // from the open) was never made: nothing to remove. Anything else may have left one.
      if (created || (error as NodeJS.ErrnoException).code !== "ENOENT") await fs.rm(tmp, { force: true }).catch(() => undefined);
      throw error;
    }
    return;
  }
  let handle: fs.FileHandle | undefined;
  let created = false;
  try {
    handle = await fs.open(tmp, "wx", mode);
    created = true;
    await handle.writeFile(data, typeof data === "string" ? { encoding: "utf8" } : undefined);
    await handle.sync();
    await handle.close();
    handle = undefined;
    await fs.rename(tmp, file);
  } catch (error) {
    await handle?.close().catch(() => undefined);
    // An open that failed made nothing (`wx`): a missing folder (a new sub-agent's first write,
    // which the seed writer answers by making it) costs no removal, and a name already there is
    // not ours to remove.
    if (created) await fs.rm(tmp, { force: true }).catch(() => undefined);
    throw error;
  }
  await fsyncDir(dir);
}

/**
 * Creates `file` (refusing one already there) with `data` and fsyncs it; no temp file, no rename
 * and no sync of its folder: for a file in a folder nobody sees yet (a staging folder, which the
 * caller syncs once and renames into place), so several such files can be written at once.
 */
export async function writeNewFileDurable(file: string, data: string | Uint8Array): Promise<void> {
  const handle = await fs.open(file, "wx", 0o644);
  try {
    await handle.writeFile(data, typeof data === "string" ? { encoding: "utf8" } : undefined);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Atomically replaces `file` with `data` (creating it), queued in `queues` behind other writes to it. */
export async function writeFileAtomic(queues: FileQueues, file: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  const abs = path.resolve(file);
  await queues.withFileLock(abs, () => writeFileAtomicUnlocked(abs, data, options));
}

/**
 * Deletes temp files left by a process that died mid-write, anywhere below `root`.
 * Returns the paths removed. Run at start-up, before anything writes.
 */
export async function removeOrphanTempFiles(root: string): Promise<string[]> {
  const removed: string[] = [];
  async function walk(dir: string): Promise<void> {
    let entries: import("node:fs").Dirent[];
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile() && TEMP_FILE_PATTERN.test(entry.name)) {
        await fs.rm(full, { force: true });
        removed.push(full);
      }
    }
  }
  await walk(root);
  return removed;
}
