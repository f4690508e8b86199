import "server-only";
/**
 * Checkpoints of the search database's write-ahead log, made off the event loop.
 *
 * The server's own connection writes the index in synchronous transactions (`node:sqlite`);
 * in WAL mode with `synchronous = NORMAL` a commit writes the log and waits for no disk. What
 * waits is the checkpoint, which copies the log into the database file and fsyncs it: SQLite
 * runs one in the committing connection about every 4 MB of log (1,000 pages), on the event
 * loop, for as long as the disk takes. So that connection runs none (`wal_autocheckpoint = 0`,
 * see ./db.ts), and this worker thread, with a connection of its own to the same file, runs a
 * PASSIVE checkpoint (it never waits for a reader or a writer) every {@link CHECKPOINT_EVERY_MS}
 * and on demand. A checkpoint with nothing to copy costs a few microseconds of the worker.
 *
 * The worker's code is a string (no file for the bundler to move) and uses Node's built-in
 * `node:sqlite`. If the worker stops unasked (it could not open the file, or it failed later),
 * `onStop` is called once, so the owner can checkpoint in its own connection again rather than
 * let the log grow.
 */
import { Worker } from "node:worker_threads";

/** How often the worker checkpoints the log (ms). */
const CHECKPOINT_EVERY_MS = 1_000;

/** What a checkpoint did: frames in the log, and how many of them are in the database file now. */
export interface CheckpointResult {
  logFrames: number;
  checkpointedFrames: number;
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { existsSync } = require("node:fs");
const { DatabaseSync } = require("node:sqlite");
if (!existsSync(workerData.file)) throw new Error("no database at " + workerData.file);
const db = new DatabaseSync(workerData.file, { timeout: 1000 });
const passive = db.prepare("PRAGMA wal_checkpoint(PASSIVE)");
const checkpoint = () => {
  const row = passive.get();
  return { logFrames: row.log, checkpointedFrames: row.checkpointed };
};
const timer = setInterval(() => {
  try { checkpoint(); } catch {}
}, workerData.everyMs);
parentPort.on("message", (message) => {
  if (message.type === "close") {
    clearInterval(timer);
    try { db.close(); } catch {}
    parentPort.postMessage({ id: message.id, result: null });
    parentPort.close();
    return;
  }
  try {
    parentPort.postMessage({ id: message.id, result: checkpoint() });
  } catch (error) {
    parentPort.postMessage({ id: message.id, error: String((error && error.message) || error) });
  }
});
`;

/** The checkpointing worker of one database file. */
export class Checkpointer {
  readonly #worker: Worker;
  readonly #pending = new Map<number, { resolve: (r: CheckpointResult | null) => void; reject: (e: Error) => void }>();
  #nextId = 0;
  #exited = false;
  #closed: Promise<void> | null = null;

  /**
   * Starts the worker for the database at `file` (which must exist and be in WAL mode); `onStop`
   * runs once if the worker stops before {@link close} is asked.
   */
  constructor(file: string, everyMs: number = CHECKPOINT_EVERY_MS, onStop?: () => void) {
    this.#worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, everyMs } });
    // A checkpointer never keeps the process alive (tests, shutdown).
    this.#worker.unref();
    this.#worker.on("message", (m: { id: number; result?: CheckpointResult | null; error?: string }) => {
      const waiter = this.#pending.get(m.id);
      this.#pending.delete(m.id);
      if (m.error !== undefined) waiter?.reject(new Error(`search index checkpoint: ${m.error}`));
      else waiter?.resolve(m.result ?? null);
    });
    const failAll = (error: Error) => {
      for (const waiter of this.#pending.values()) waiter.reject(error);
      this.#pending.clear();
    };
    this.#worker.on("error", (error) => {
      console.error("[astrion] search index: the checkpoint worker failed; checkpoints run on the event loop", error);
      failAll(error);
    });
    this.#worker.on("exit", () => {
      this.#exited = true;
      failAll(new Error("the search index's checkpoint worker has stopped"));
      if (!this.#closed) onStop?.();
    });
  }

  #ask(type: "checkpoint" | "close"): Promise<CheckpointResult | null> {
    if (this.#exited) return Promise.reject(new Error("the search index's checkpoint worker has stopped"));
    return new Promise((resolve, reject) => {
      const id = this.#nextId++;
      this.#pending.set(id, { resolve, reject });
      this.#worker.postMessage({ id, type });
    });
  }

  /** Runs a checkpoint now, in the worker. */
  async checkpoint(): Promise<CheckpointResult> {
    const result = await this.#ask("checkpoint");
    if (!result) throw new Error("the search index's checkpoint worker is closed");
    return result;
  }

  /** Closes the worker's connection and ends the worker; safe to call more than once. */
  close(): Promise<void> {
    this.#closed ??= this.#ask("close").then(
      () => undefined,
      () => undefined,
    );
    return this.#closed;
  }
}
