/**
 * Append-only JSON Lines files (the audit timeline, the context reports, the action journal).
 * Besides "server-only" it imports only Node built-ins and the store's atomic helpers, so a test
 * can transpile it and run it in a child process that is killed mid-append.
 *
 * Appends are group-committed: every line appended to one file during one turn of the event loop
 * is written with one `write` and, when any of them asks for it, made durable with one `fsync`,
 * through a file handle kept open between appends (at most {@link MAX_OPEN_FILES} at once, the
 * least recently used closed first). A durable append resolves only once its line is on disk, so
 * the bus, which publishes an envelope only after its line is written, never shows a client an
 * event that a crash could lose. A non-durable append (`{ durable: false }`) is for a line that is
 * durable elsewhere already (an open conversation's step log holds it and puts it back after a
 * crash; lib/store/live-conversation.ts): it resolves once written, and
 * {@link JsonLineFiles.sync} makes it durable later, with the folder's entry of a file it created
 * (a durable append syncs a new file's folder at once). A crash can still cut the last line short
 * (power loss mid-write); readers drop such a tail, and the next append first ends it with a
 * newline, so a torn fragment never glues itself to the front of a good record. The fragment is
 * kept (an audit log is never rewritten) and readers report it as a bad line.
 */
import "server-only";
import { fstatSync, promises as fs, readSync, statSync, writeSync } from "node:fs";
import path from "node:path";
import { fsyncDir } from "./atomic";

const NEWLINE = 0x0a;

/** Files kept open for appending at once. */
const MAX_OPEN_FILES = 256;

/** What an append did besides writing its line. */
export interface AppendResult {
  /** True when the file ended in a torn line (left by a crash) that this append closed off. */
  sealedTornLine: boolean;
}

interface Waiter {
  line: string;
  durable: boolean;
  resolve: (result: AppendResult) => void;
  reject: (error: Error) => void;
}

interface Appender {
  file: string;
  handle: fs.FileHandle | null;
  queue: Waiter[];
  flushing: Promise<void> | null;
  lastUse: number;
  /** Lines written since the last fsync of the file. */
  unsynced: boolean;
}

/** Lines appended, fsyncs of files and of folders made through one {@link JsonLineFiles} (benchmarks and tests read them). */
export interface AppendStats {
  lines: number;
  syncs: number;
  folderSyncs: number;
}

/**
 * A group of at most this many bytes is appended with a synchronous `write` (to the page cache),
 * as the step log's groups are (./step-log.ts; this module imports only Node built-ins and
 * ./atomic, so a test can run it in a child process); a larger one goes to the thread pool.
 */
const SYNC_APPEND_LIMIT = 64 * 1024;

/**
 * The JSON Lines files a process appends to: the files it keeps open and each one's queue of
 * lines, and the folders whose new files are not synced yet. Appends to one file are ordered and
 * group-committed only among callers of the same instance, so every writer of the data folder
 * must be given the same one: the composition root (lib/server/app.ts) makes one per process and
 * hands it to the store (a module-level map would exist once per Next route bundle, each with a
 * handle and a queue of its own for one file). Standalone code (a script, a test's child process)
 * makes its own.
 */
export class JsonLineFiles {
  /** Lines appended, fsyncs of files and of folders made through this instance. */
  readonly stats: AppendStats = { lines: 0, syncs: 0, folderSyncs: 0 };
  readonly #appenders = new Map<string, Appender>();
  /**
   * Folders holding a file that a non-durable append created and no fsync of the folder followed
   * yet. Kept apart from the appenders, which a failed write or a close drops.
   */
  readonly #unsyncedFolders = new Set<string>();
  /** Folder syncs under way, so a caller that finds its folder no longer pending still waits for them. */
  readonly #folderSyncs = new Map<string, Promise<void>>();

  /**
   * Appends `line` and a `\n` to `file` (creating it, not its folder) and resolves once the line
   * is fsynced, or only written with `{ durable: false }`. Appends to one file land in call order;
   * appends made in the same tick share one write and one fsync.
   * @throws RangeError when `line` contains a newline (it would become two records).
   */
  append(file: string, line: string, opts: { durable?: boolean } = {}): Promise<AppendResult> {
    if (line.includes("\n") || line.includes("\r")) return Promise.reject(new RangeError("a JSON line must not contain a line break"));
    const a = this.#appenderOf(file);
    a.lastUse = Date.now();
    return new Promise<AppendResult>((resolve, reject) => {
      a.queue.push({ line, durable: opts.durable !== false, resolve, reject });
      a.flushing ??= this.#flush(a);
    });
  }

  /**
   * Makes every line appended to `file` so far durable: waits for queued appends, then fsyncs the
   * file when a non-durable append left it unsynced (a checkpoint of the step log that held them).
   * A file closed meanwhile was synced as it was closed.
   */
  async sync(file: string): Promise<void> {
    const a = this.#appenders.get(path.resolve(file));
    if (a) {
      while (a.flushing) await a.flushing;
      if (a.unsynced && a.handle) await this.#syncHandle(a, a.handle);
    }
    await this.#syncFolderOf(path.resolve(file));
  }

  /**
   * Commits what is queued for the files below `dir` and closes them (a conversation being deleted
   * or let go). A later append opens its file again.
   */
  async close(dir: string): Promise<void> {
    const prefix = path.resolve(dir) + path.sep;
    const map = this.#appenders;
    for (const a of [...map.values()]) {
      if (!a.file.startsWith(prefix)) continue;
      while (a.flushing) await a.flushing;
      map.delete(a.file);
      await this.#closeAppender(a).catch(() => undefined);
    }
  }

  /** Files kept open for appending (at most {@link MAX_OPEN_FILES} between appends). */
  openFiles(): number {
    return this.#appenders.size;
  }

  #appenderOf(file: string): Appender {
    const abs = path.resolve(file);
    const map = this.#appenders;
    let appender = map.get(abs);
    if (!appender) {
      appender = { file: abs, handle: null, queue: [], flushing: null, lastUse: 0, unsynced: false };
      map.set(abs, appender);
    }
    return appender;
  }

  /**
   * Fsyncs `dir` when a file created in it by a non-durable append is not in a synced folder yet
   * (or `always`); otherwise waits for a sync of it already under way.
   */
  async #syncFolderOf(file: string, always = false): Promise<void> {
    const dir = path.dirname(file);
    const pending = this.#unsyncedFolders;
    const underWay = this.#folderSyncs;
    if (!always && !pending.has(dir)) return underWay.get(dir);
    // Taken off first: a file created while this sync runs marks the folder again.
    pending.delete(dir);
    const run = fsyncDir(dir).then(
      () => void (this.stats.folderSyncs += 1),
      (error: unknown) => {
        pending.add(dir);
        throw error;
      },
    );
    underWay.set(dir, run);
    try {
      await run;
    } finally {
      if (underWay.get(dir) === run) underWay.delete(dir);
    }
  }

  async #syncHandle(a: Appender, handle: fs.FileHandle): Promise<void> {
    await handle.sync();
    a.unsynced = false;
    this.stats.syncs += 1;
  }

  /** Closes an appender's file, syncing what non-durable appends left in it first. */
  async #closeAppender(a: Appender): Promise<void> {
    const handle = a.handle;
    a.handle = null;
    if (!handle) return;
    try {
      if (a.unsynced) await this.#syncHandle(a, handle);
      await this.#syncFolderOf(a.file);
    } finally {
      await handle.close().catch(() => undefined);
    }
  }

  async #flush(a: Appender): Promise<void> {
    // Let every append of this tick join the group.
    await new Promise<void>((r) => setImmediate(r));
    try {
      while (a.queue.length) {
        const batch = a.queue.splice(0);
        try {
          let sealed = false;
          let created = false;
          if (!a.handle) {
            // The stats and the last byte's read are synchronous (metadata and one byte from the page
            // cache: microseconds, where each trip through the thread pool costs about 55 µs of CPU).
            created = statSync(a.file, { throwIfNoEntry: false }) === undefined;
            // "a+": O_APPEND, so every write lands at the current end of the file. The folder is not
            // created: a conversation deleted meanwhile stays deleted (ENOENT).
            a.handle = await fs.open(a.file, "a+", 0o644);
            const { size } = fstatSync(a.handle.fd);
            if (size > 0) {
              const last = Buffer.alloc(1);
              readSync(a.handle.fd, last, 0, 1, size - 1);
              sealed = last[0] !== NEWLINE;
            }
            await this.#closeLeastRecentlyUsed();
          }
          const data = Buffer.from(`${sealed ? "\n" : ""}${batch.map((w) => `${w.line}\n`).join("")}`, "utf8");
          let offset = 0;
          // A small group goes to the page cache synchronously, as the step log's does (./step-log.ts).
          while (offset < data.length) {
            offset += data.length <= SYNC_APPEND_LIMIT ? writeSync(a.handle.fd, data, offset, data.length - offset) : (await a.handle.write(data, offset, data.length - offset, null)).bytesWritten;
          }
          this.stats.lines += batch.length;
          if (batch.some((w) => w.durable)) {
            await a.handle.sync();
            this.stats.syncs += 1;
            a.unsynced = false;
            // A durable line is in a file the folder lists durably (a new one, or one whose folder
            // a non-durable append left unsynced).
            await this.#syncFolderOf(a.file, created);
          } else {
            a.unsynced = true;
            // Not synced until the lines are made durable (sync, a close): the log that holds them
            // puts back a file a crash took away, folder entry and all.
            if (created) this.#unsyncedFolders.add(path.dirname(a.file));
          }
          batch.forEach((w, i) => w.resolve({ sealedTornLine: sealed && i === 0 }));
        } catch (error) {
          // What reached the disk is unknown: the next append reopens the file and seals any torn line.
          const handle = a.handle;
          a.handle = null;
          await handle?.close().catch(() => undefined);
          for (const w of batch) w.reject(error instanceof Error ? error : new Error(String(error)));
        }
      }
    } finally {
      a.flushing = null;
      // A file that failed (e.g. its conversation was deleted) is not kept: the next append starts afresh.
      if (!a.handle && a.queue.length === 0 && this.#appenders.get(a.file) === a) this.#appenders.delete(a.file);
    }
  }

  async #closeLeastRecentlyUsed(): Promise<void> {
    const map = this.#appenders;
    const open = [...map.values()].filter((a) => a.handle);
    if (open.length <= MAX_OPEN_FILES) return;
    const idle = open.filter((a) => !a.queue.length && !a.flushing).sort((x, y) => x.lastUse - y.lastUse);
    for (const a of idle.slice(0, open.length - MAX_OPEN_FILES)) {
      map.delete(a.file);
      await this.#closeAppender(a).catch(() => undefined);
    }
  }
}

/** A line in the middle of a JSON Lines file that could not be used. */
export interface BadLine {
  /** 1-based line number. */
  line: number;
  reason: string;
  /** The start of the line (at most 200 characters), for the log. */
  excerpt: string;
}

/** The outcome of parsing one line: a value, or why it was refused. */
export type LineParse<T> = { ok: true; value: T } | { ok: false; reason: string };

/** What {@link parseJsonLines} found. */
export interface JsonLinesResult<T> {
  records: T[];
  /** Unusable lines before the end of the file: reported, skipped, never thrown. */
  bad: BadLine[];
  /** True when a torn last line was dropped (no final newline, or it did not parse). */
  tornTail: boolean;
}

/**
 * Parses JSON Lines text line by line with `parse` (given the `JSON.parse`d value). A last line
 * that lacks its `\n` or does not parse is a write cut short by a crash and is dropped; a bad line
 * anywhere else is reported in `bad`. Blank lines carry nothing and are skipped.
 */
export function parseJsonLines<T>(text: string, parse: (value: unknown) => LineParse<T>): JsonLinesResult<T> {
  const parts = text.split("\n");
  // After the final "\n" split leaves "", so a non-empty last part is a line without its newline.
  const tail = parts.pop() ?? "";
  let tornTail = tail.trim().length > 0;
  const records: T[] = [];
  const bad: BadLine[] = [];
  let lastContentIndex = -1;
  for (let i = parts.length - 1; i >= 0; i--) {
    if ((parts[i] ?? "").trim()) {
      lastContentIndex = i;
      break;
    }
  }
  parts.forEach((raw, index) => {
    if (!raw.trim()) return;
    let result: LineParse<T>;
    try {
      result = parse(JSON.parse(raw));
    } catch (error) {
      result = { ok: false, reason: `not JSON: ${(error as Error).message}` };
    }
    if (result.ok) records.push(result.value);
    else if (index === lastContentIndex && !tornTail) tornTail = true;
    else bad.push({ line: index + 1, reason: result.reason, excerpt: raw.slice(0, 200) });
  });
  return { records, bad, tornTail };
}
