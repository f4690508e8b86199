/**
 * An append-only log with group commit: the durability path of the conversation engine. Every
 * record appended during one turn of the event loop is written with one `write` and made durable
 * with one `fdatasync`, shared by all of them (SQLite's WAL and Postgres do the same); an append
 * resolves only once its record is on disk. Imports only Node built-ins, so a test can run it in a
 * child process that is killed at random moments.
 *
 * One record is one line of JSON. A crash can cut the last line short; {@link openStepLog} drops
 * such a tail (truncating the file to its last complete line: the log is ours, not an audit
 * record, so it is repaired, not kept). A failed write or sync poisons the log: what reached the
 * disk is unknown (the "fsyncgate" lesson), so every later append is refused until it is reopened.
 */
import { promises as fs, writeSync } from "node:fs";
import path from "node:path";

const NEWLINE = 0x0a;

/**
 * A group of at most this many bytes is written with a synchronous `write` (to the page cache: a
 * few microseconds for a step's records, where a trip through the thread pool costs far more);
 * a larger one goes to the thread pool. The `fdatasync` always does.
 */
export const SYNC_APPEND_LIMIT = 64 * 1024;

/** Counters of a log's work, for benchmarks and health. */
export interface StepLogStats {
  /** Records made durable. */
  records: number;
  /** fdatasync calls (each commits a group). */
  syncs: number;
  /** Bytes appended. */
  bytes: number;
}

interface Waiter {
  data: string;
  resolve: () => void;
  reject: (error: Error) => void;
}

/** Someone waiting until the first `mark` records appended are durable. */
interface MarkWaiter {
  mark: number;
  resolve: () => void;
  reject: (error: Error) => void;
}

/** The log of one conversation (or anything else that needs ordered, durable records). */
export class StepLog {
  readonly file: string;
  #handle: fs.FileHandle | null;
  #queue: Waiter[] = [];
  #flushing: Promise<void> | null = null;
  #failed: Error | null = null;
  #closed = false;
  #size: number;
  /** Records appended so far (accepted, not necessarily durable). */
  #appended = 0;
  /** Records made durable so far; the log is durable in order, so these are the first ones appended. */
  #durable = 0;
  #markWaiters: MarkWaiter[] = [];
  readonly stats: StepLogStats = { records: 0, syncs: 0, bytes: 0 };

  /** Use {@link openStepLog}. */
  constructor(file: string, handle: fs.FileHandle, size: number) {
    this.file = file;
    this.#handle = handle;
    this.#size = size;
  }

  /** Bytes in the log file. */
  get size(): number {
    return this.#size;
  }

  /** The error that poisoned the log, if a write or sync failed. */
  get failed(): Error | null {
    return this.#failed;
  }

  /**
   * A position in the log: the number of records appended so far. Everything appended before a
   * mark is durable once {@link isDurable} says so for it; records become durable in order.
   */
  get mark(): number {
    return this.#appended;
  }

  /** Whether every record appended before `mark` is durable. */
  isDurable(mark: number): boolean {
    return this.#durable >= mark;
  }

  /**
   * Resolves once every record appended before `mark` (default: now) is durable; rejects when the
   * log failed first. Costs nothing when they are durable already.
   */
  whenDurable(mark: number = this.#appended): Promise<void> {
    if (this.#durable >= mark) return Promise.resolve();
    if (this.#failed) return Promise.reject(this.#failed);
    return new Promise<void>((resolve, reject) => this.#markWaiters.push({ mark, resolve, reject }));
  }

  /**
   * Appends `record` (serialized as one line of JSON) and resolves once it is durable. Records
   * appended in the same tick share one write and one sync, in call order.
   * @throws Error when the log was closed or an earlier write failed.
   */
  append(record: unknown): Promise<void> {
    return this.appendLine(JSON.stringify(record));
  }

  /** {@link append} for a line already serialized (it must not contain a line break). */
  appendLine(line: string): Promise<void> {
    if (this.#closed) return Promise.reject(new Error(`the step log ${this.file} is closed`));
    if (this.#failed) return Promise.reject(this.#failed);
    if (line.includes("\n")) return Promise.reject(new RangeError("a log record must not contain a line break"));
    this.#appended++;
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ data: `${line}\n`, resolve, reject });
      this.#flushing ??= this.#flush();
    });
  }

  async #flush(): Promise<void> {
    // Let every append of this tick join the group before writing.
    await new Promise<void>((r) => setImmediate(r));
    try {
      while (this.#queue.length) {
        const batch = this.#queue.splice(0);
        try {
          if (this.#failed) throw this.#failed;
          const handle = this.#handle;
          if (!handle) throw new Error(`the step log ${this.file} is closed`);
          const data = Buffer.from(batch.map((w) => w.data).join(""), "utf8");
          let offset = 0;
          while (offset < data.length) {
            offset += data.length <= SYNC_APPEND_LIMIT ? writeSync(handle.fd, data, offset, data.length - offset) : (await handle.write(data, offset, data.length - offset, null)).bytesWritten;
          }
          await handle.datasync();
          this.#size += data.length;
          this.stats.records += batch.length;
          this.stats.syncs += 1;
          this.stats.bytes += data.length;
          this.#durable += batch.length;
          for (const w of batch) w.resolve();
          this.#settleMarks();
        } catch (error) {
          this.#failed ??= error instanceof Error ? error : new Error(String(error));
          for (const w of batch) w.reject(this.#failed);
          this.#settleMarks();
        }
      }
    } finally {
      this.#flushing = null;
    }
  }

  /** Resolves the mark waiters whose records are durable; rejects the rest once the log failed. */
  #settleMarks(): void {
    if (!this.#markWaiters.length) return;
    const waiting: MarkWaiter[] = [];
    for (const w of this.#markWaiters) {
      if (w.mark <= this.#durable) w.resolve();
      else if (this.#failed) w.reject(this.#failed);
      else waiting.push(w);
    }
    this.#markWaiters = waiting;
  }

  /** Resolves once everything appended so far is durable (or refused). */
  async drain(): Promise<void> {
    while (this.#flushing) await this.#flushing;
  }

  /**
   * Empties the log after its records were made durable elsewhere (a checkpoint): appends made
   * before the call are committed first. The emptying itself is synced.
   */
  async truncate(): Promise<void> {
    await this.drain();
    if (this.#failed) throw this.#failed;
    const handle = this.#handle;
    if (!handle) throw new Error(`the step log ${this.file} is closed`);
    await handle.truncate(0);
    await handle.sync();
    this.#size = 0;
  }

  /** Commits what is queued and closes the file. Later appends are refused. */
  async close(): Promise<void> {
    if (this.#closed) return;
    await this.drain();
    this.#closed = true;
    const handle = this.#handle;
    this.#handle = null;
    await handle?.close();
  }
}

/** A log opened for appending, and the records it already held. */
export interface OpenedStepLog {
  log: StepLog;
  /** The complete records in the file, in order (JSON-parsed, not validated). */
  records: unknown[];
  /** Bytes of a torn last line that were cut off (0 when the file ended cleanly). */
  repairedBytes: number;
}

/**
 * Opens (creating) the log at `file`, reads its complete records and cuts off a torn tail.
 * @throws Error when a line before the last is not JSON: the file was damaged by something other
 * than a crash mid-append, and guessing would lose or invent state.
 */
export async function openStepLog(file: string): Promise<OpenedStepLog> {
  const abs = path.resolve(file);
  const handle = await fs.open(abs, "a+", 0o644);
  try {
    const buffer = await handle.readFile();
    const end = buffer.lastIndexOf(NEWLINE) + 1;
    const records: unknown[] = [];
    let start = 0;
    let lineNo = 0;
    while (start < end) {
      const stop = buffer.indexOf(NEWLINE, start);
      lineNo++;
      const text = buffer.toString("utf8", start, stop);
      start = stop + 1;
      if (!text.trim()) continue;
      try {
        records.push(JSON.parse(text));
      } catch (error) {
        throw new Error(`${abs} line ${lineNo} is not JSON (${(error as Error).message}); the log is damaged and was not used.`);
      }
    }
    const repairedBytes = buffer.length - end;
    if (repairedBytes > 0) {
      await handle.truncate(end);
      await handle.sync();
    }
    return { log: new StepLog(abs, handle, end), records, repairedBytes };
  } catch (error) {
    await handle.close();
    throw error;
  }
}
