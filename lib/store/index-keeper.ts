/**
 * Keeps `conversations/index.json` and the in-memory {@link ConversationIndex} of one data folder:
 * loads them at boot (rebuilding index.json when it is missing, broken or out of step with the
 * metadata.json files, and reporting it), then writes index.json from memory after every change
 * the store makes that changes a field of index.json (a change that leaves every entry as it was
 * writes nothing). The seed's index.json is one whole file, so each write rewrites all of it.
 * Writes are grouped: a change made while a write is under way goes out in the next one, which
 * carries every change made until it starts, so a burst of updates costs a few writes, not one
 * each, and every caller still returns only once its change is on disk.
 */
import "server-only";
import { promises as fs, type Stats } from "node:fs";
import type { StoreProblem } from "@/lib/contracts/http";
import { CorruptFileError, NotFoundError } from "@/lib/contracts/errors";
import { writeFileAtomic, type FileQueues } from "./atomic";
import type { IndexRebuild, IndexRebuildReason, IndexReport } from "@/lib/contracts/index-report";
import { ConversationIndex, reconcileIndex } from "./conversation-index";
import { readJsonFile } from "./files";
import { toPythonJsonBytes } from "./json";
import { IndexFileSchema, type ConversationMetadata, type IndexFile } from "@/lib/contracts/on-disk";

/** Rebuild reports kept for {@link IndexKeeper.report} (the newest). */
const MAX_REBUILDS = 20;

/** How long after a step's change of the index its background rewrite of index.json waits (ms). */
const INDEX_WRITE_DELAY_MS = 200;

/** What the keeper needs from the store. */
export interface IndexKeeperHooks {
  /** index.json's absolute path. */
  file: string;
  /** The store's per-file write queues (index.json is written through them). */
  queues: FileQueues;
  /** Runs `fn` under the lock that guards index.json and state.json. */
  withRootLock<T>(fn: () => Promise<T>): Promise<T>;
  /** Reads every conversation folder's metadata.json: the readable ones and every folder named like an id. */
  scan(): Promise<{ conversations: ConversationMetadata[]; folderIds: string[] }>;
  /** Renames a broken file to a free `<name>.corrupt-<time>` beside it; returns the new path. */
  moveAside(file: string): Promise<string>;
  /** A path relative to the data folder, as problems name files. */
  rel(file: string): string;
}

function sameFile(a: Stats | null, b: Stats | null): boolean {
  return a !== null && b !== null && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs;
}

function reasonOf(error: CorruptFileError): string {
  const reason = (error.details as { reason?: unknown } | undefined)?.reason;
  return typeof reason === "string" ? reason : error.message;
}

/** See the file comment. One per store. */
export class IndexKeeper {
  readonly index = new ConversationIndex();
  readonly #hooks: IndexKeeperHooks;
  #loading: Promise<void> | null = null;
  #loadedAt: string | null = null;
  #loadMs: number | null = null;
  #unreadable = 0;
  readonly #rebuilds: IndexRebuild[] = [];
  /** index.json as this keeper last wrote or checked it: anything else on disk was changed behind its back. */
  #known: Stats | null = null;
  /** Bumped by every change; `#writtenVersion` is the newest change index.json holds. */
  #version = 0;
  #writtenVersion = 0;
  #flush: Promise<void> | null = null;
  #writes = 0;
  #writeMs = 0;
  #unchanged = 0;
  #lastWrite: IndexReport["last_write"] = null;
  /** Changes made with {@link putSoon} that index.json does not hold yet, and the timer of their write. */
  #pending = 0;
  #timer: NodeJS.Timeout | null = null;

  constructor(hooks: IndexKeeperHooks) {
    this.#hooks = hooks;
  }

  /** Loads the index once (at boot); later calls wait for that load. A failed load is tried again. */
  ready(): Promise<void> {
    if (!this.#loading) {
      const loading = this.#load();
      this.#loading = loading;
      loading.catch(() => {
        if (this.#loading === loading) this.#loading = null;
      });
    }
    return this.#loading;
  }

  /**
   * Puts a conversation whose metadata.json was just written into the index; resolves once
   * index.json holds it — at once when its index.json entry did not change.
   */
  async put(meta: ConversationMetadata): Promise<void> {
    if (this.index.put(meta)) await this.persist();
    else this.#unchanged++;
  }

  /**
   * {@link put} for the conversation engine's steps. A change of title is written before it
   * resolves, as {@link put}; a step that only moves `updated_at` (most of them) or `agent_count`
   * (one that creates a sub-agent) does not wait: the list shows it at once and index.json is
   * rewritten in the background ({@link INDEX_WRITE_DELAY_MS} later, every such change of that time
   * in one write), so a step never waits for a whole-file rewrite whose size grows with the number
   * of conversations (a new sub-agent waited for it: about ten trips through the thread pool and
   * two fsyncs). Both fields are in the conversation's metadata.json and step log first; a crash
   * before the write leaves only them behind, which the next start catches up
   * ({@link reconcileIndex}'s `touched`).
   */
  async putSoon(meta: ConversationMetadata): Promise<void> {
    if (!this.index.put(meta)) {
      this.#unchanged++;
      return;
    }
    if (!this.index.lastPutMovedOnlyStepFields) return this.persist();
    this.#pending++;
    if (this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      const pending = this.#pending;
      this.#pending = 0;
      if (pending) void this.persist().catch((error: unknown) => console.error("[astrion] could not rewrite conversations/index.json (the next change or start writes it)", error));
    }, INDEX_WRITE_DELAY_MS);
    this.#timer.unref();
  }

  /** Writes index.json now if a background write is due (a clean stop). */
  async flush(): Promise<void> {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    if (this.#pending) {
      this.#pending = 0;
      await this.persist();
    }
  }

  /** Forgets a deleted conversation; resolves once index.json no longer names it. */
  async remove(id: string): Promise<void> {
    this.index.remove(id);
    await this.persist();
  }

  /** Writes index.json from memory, with every change made so far; resolves once it is on disk. */
  async persist(): Promise<void> {
    const wanted = ++this.#version;
    while (this.#writtenVersion < wanted) {
      this.#flush ??= this.#hooks.withRootLock(() => this.#write()).finally(() => {
        this.#flush = null;
      });
      await this.#flush;
    }
  }

  /** The index and its rebuilds since boot. */
  report(): IndexReport {
    return {
      conversations: this.index.size,
      unreadable: this.#unreadable,
      loaded_at: this.#loadedAt,
      load_ms: this.#loadMs,
      rebuilds: this.#rebuilds.map((r) => ({ ...r })),
      writes: this.#writes,
      write_ms_total: Math.round(this.#writeMs * 100) / 100,
      unchanged: this.#unchanged,
      last_write: this.#lastWrite && { ...this.#lastWrite },
    };
  }

  /** Every rebuild, as problems (`GET /api/health` shows them). */
  notices(): StoreProblem[] {
    return this.#rebuilds.map((r) => ({ file: r.moved_to ?? "conversations/index.json", message: r.message }));
  }

  /** The broken index.json files moved aside: files the store could not use. */
  movedAside(): StoreProblem[] {
    return this.#rebuilds.filter((r) => r.moved_to).map((r) => ({ file: r.moved_to as string, message: r.message }));
  }

  async #load(): Promise<void> {
    const started = performance.now();
    const { file } = this.#hooks;
    const scan = await this.#hooks.scan();
    const readable = new Set(scan.conversations.map((c) => c.id));
    const unreadable = new Set(scan.folderIds.filter((id) => !readable.has(id)));
    await this.#hooks.withRootLock(async () => {
      let onDisk: IndexFile | null = null;
      let broken: { reason: string; movedTo: string } | null = null;
      try {
        onDisk = await readJsonFile(file, IndexFileSchema);
      } catch (error) {
        if (error instanceof CorruptFileError) {
          broken = { reason: reasonOf(error), movedTo: this.#hooks.rel(await this.#hooks.moveAside(file)) };
        } else if (!(error instanceof NotFoundError)) {
          throw error;
        }
      }
      const { entries, added, removed, changed, touched } = reconcileIndex(onDisk, scan.conversations, unreadable);
      this.index.load(scan.conversations, entries);
      this.#unreadable = unreadable.size;
      const inStep = added.length === 0 && removed.length === 0 && changed.length === 0;
      if (onDisk && inStep && touched.length === 0) {
        this.#known = await this.#stat();
        return;
      }
      if (onDisk && inStep) {
        // Only `updated_at` times and agent counts behind (written in the background before a stop or crash): caught up, not a rebuild.
        await this.#writeUnchecked();
        console.log(`[astrion] conversation index: caught up the last-change time or agent count of ${touched.length} conversation(s)`);
        return;
      }
      await this.#writeUnchecked();
      const from = `rebuilt at start-up from ${scan.conversations.length} metadata.json file(s)`;
      if (broken) {
        this.#record("corrupt", `conversations/index.json was unusable (${broken.reason}); its contents were moved to ${broken.movedTo} and it was ${from}.`, broken.movedTo);
      } else if (onDisk) {
        const counts = [`${added.length} conversation(s) missing from it`, `${removed.length} deleted one(s) still in it`, `${changed.length} with other titles, times or agent counts`];
        this.#record("out_of_step", `conversations/index.json was out of step with the conversation folders (${counts.join(", ")}); it was ${from}.`);
      } else if (scan.folderIds.length > 0) {
        this.#record("missing", `conversations/index.json was missing; it was ${from}.`);
      }
      // A missing index.json in a data folder without conversations is a first start, not a rebuild.
    });
    this.#loadedAt = new Date().toISOString();
    this.#loadMs = Math.round((performance.now() - started) * 100) / 100;
    if (this.index.size > 0 || unreadable.size > 0) {
      console.log(`[astrion] conversation index: ${this.index.size} conversation(s) loaded from metadata.json in ${Math.round(this.#loadMs)} ms`);
    }
  }

  async #stat(): Promise<Stats | null> {
    try {
      return await fs.stat(this.#hooks.file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
    }
  }

  /** One grouped write (under the root lock): first makes sure nobody else changed index.json. */
  async #write(): Promise<void> {
    const current = await this.#stat();
    if (this.#known && !sameFile(current, this.#known)) await this.#changedOnDisk(current);
    await this.#writeUnchecked();
  }

  async #writeUnchecked(): Promise<void> {
    const version = this.#version;
    const started = performance.now();
    // The entries come from metadata.json files already parsed with their schema, and from a
    // parsed index.json: valid by construction, so the whole file is not parsed again per write.
    const bytes = toPythonJsonBytes(this.index.toIndexFile());
    await writeFileAtomic(this.#hooks.queues, this.#hooks.file, bytes);
    const ms = performance.now() - started;
    this.#writes++;
    this.#writeMs += ms;
    this.#lastWrite = { at: new Date().toISOString(), bytes: bytes.length, ms: Math.round(ms * 100) / 100 };
    this.#known = await this.#stat();
    this.#writtenVersion = Math.max(this.#writtenVersion, version);
  }

  /**
   * index.json was replaced, edited or deleted by another program since this keeper wrote it.
   * It is derived, so it is rewritten from memory; a broken one is moved aside first.
   */
  async #changedOnDisk(current: Stats | null): Promise<void> {
    const { file } = this.#hooks;
    if (current) {
      try {
        await readJsonFile(file, IndexFileSchema);
      } catch (error) {
        if (!(error instanceof CorruptFileError)) throw error;
        const movedTo = this.#hooks.rel(await this.#hooks.moveAside(file));
        this.#record(
          "changed_on_disk",
          `conversations/index.json was changed by another program and is unusable (${reasonOf(error)}); its contents were moved to ${movedTo} and it was rewritten from the in-memory index.`,
          movedTo,
        );
        return;
      }
    }
    this.#record(
      "changed_on_disk",
      `conversations/index.json was ${current ? "changed" : "deleted"} by another program; it is derived from the metadata.json files, so it was rewritten from the in-memory index (changes to metadata.json made outside the app show after a restart).`,
    );
  }

  #record(reason: IndexRebuildReason, message: string, movedTo?: string): void {
    console.log(`[astrion] ${message}`);
    this.#rebuilds.push({ at: new Date().toISOString(), reason, message, ...(movedTo ? { moved_to: movedTo } : {}) });
    if (this.#rebuilds.length > MAX_REBUILDS) this.#rebuilds.splice(0, this.#rebuilds.length - MAX_REBUILDS);
  }
}
