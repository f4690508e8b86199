/**
 * What every part of the conversation store shares (lib/store/conversation-store.ts is its public
 * face): the data folder, the conversations held in memory, the in-memory index, the observers of
 * changes, per-conversation write versions, the locks, the record of unusable files, and
 * `state.json`. The parts (conversations, the leader's files, sub-agents, import) are modules of
 * functions over one {@link StoreCore}; nothing outside lib/store sees it.
 *
 * Locks (all in-process queues of the store's {@link FileQueues}, shared with every other writer
 * of the data folder in this process; one process owns a data folder, see lock.ts),
 * always taken in this order so they cannot deadlock:
 *   conversation (its metadata.json path) → that conversation's other files → the root lock
 *   (index.json + state.json, for all conversations).
 */
import "server-only";
import { promises as fs } from "node:fs";
import path from "node:path";
import type { StoreProblem } from "@/lib/contracts/http";
import { ConflictError, CorruptFileError, NotFoundError } from "@/lib/contracts/errors";
import { AgentCounter } from "./agent-counter";
import type { FileQueues } from "./atomic";
import type { JsonLineFiles } from "./jsonl";
import { readJsonFile, writeJsonAtomic } from "./files";
import { IndexKeeper } from "./index-keeper";
import type { LiveConversation, Mutator } from "./live-conversation";
import { conversationDir, conversationMetadataFile, indexFile, stateFile } from "./paths";
import { StateFileSchema, type AgentMetadata, type ConversationMetadata, type StateFile } from "@/lib/contracts/on-disk";
import { rebuildState, scanConversations, type ScannedConversations } from "./store-scan";
import { compactTimestamp, conversationIdPrefix, localTimestamp, MAX_CONVERSATION_SEQ, newConversationId } from "./time";

/**
 * A durable change the store made, for whoever keeps something derived from the conversations
 * (the history search index, lib/search). Told apart by `type`.
 */
export type StoreChange =
  /** metadata.json was written (created, renamed, archived, touched). */
  | { type: "conversation"; meta: ConversationMetadata }
  /** A messages.json changed (`agentId` null: the leader's); messages from `at` on are new or changed. */
  | { type: "messages"; convId: string; agentId: number | null; at: number }
  /** A sub-agent's metadata.json was written. */
  | { type: "agent"; convId: string; meta: AgentMetadata }
  /** The conversation was deleted. */
  | { type: "removed"; convId: string }
  /** The conversation's whole folder was put in place (an import): whatever was known of it is stale. */
  | { type: "installed"; convId: string }
  /** The conversation was loaded into memory (its step log replayed): what it holds now can be compared. */
  | { type: "opened"; live: LiveConversation };

/**
 * Hears every {@link StoreChange}, synchronously, after the change is durable. It must return at
 * once (queue the work): it runs on the engine's write path.
 */
export type StoreObserver = (change: StoreChange) => void;

export type { Mutator };

/** The error code of a failed file-system call. */
export function errnoCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/**
 * Checks a conversation's project folder; returns the path to keep in metadata.json.
 * @throws ValidationError with `details[0].reason` for a refused folder.
 */
export type ProjectFolderGate = (value: unknown) => Promise<string>;

/** The shared state and helpers of one data folder's store. */
export class StoreCore {
  /** The data folder (absolute). */
  readonly root: string;
  /** Problems with state.json (and copies moved aside) and with single files read since boot, keyed by file. */
  readonly fileProblems = new Map<string, StoreProblem>();
  /** Broken metadata.json files found at boot (a conversation's entry goes once the store rewrites or deletes it). */
  scanProblems: StoreProblem[] = [];
  /** Per conversation, a number that grows with every write this store makes to its files. */
  readonly #versions = new Map<string, number>();
  /** Conversations held in memory by their engine, loading or loaded. */
  readonly opening = new Map<string, Promise<LiveConversation>>();
  readonly live = new Map<string, LiveConversation>();
  /** index.json and the in-memory index that lists and searches conversations. */
  readonly keeper: IndexKeeper;
  readonly #observers = new Set<StoreObserver>();
  /**
   * The next sequence number to try per `conv_YYYYMMDD_HHMMSS` prefix: a hint only, so
   * concurrent creates of this store try different numbers; creating the folder decides
   * ({@link claimConversationId}), so another store or process over the same folder is never
   * given an id already taken.
   */
  readonly #sequenceHints = new Map<string, number>();
  /** The data folder's count of sub-agent instances (state.json's `agent_id_counter`), reserved in blocks. */
  readonly agentCounter = new AgentCounter((floor, count) => this.#reserveAgentCount(floor, count));
  readonly #checkProjectFolder: ProjectFolderGate;
  /** The per-file write queues, shared with every other writer of the data folder. */
  readonly queues: FileQueues;
  /** The process's open JSON Lines files (timelines, context reports, journals). */
  readonly lines: JsonLineFiles;

  constructor(root: string, parts: { checkProjectFolder: ProjectFolderGate; queues: FileQueues; lines: JsonLineFiles }) {
    this.root = path.resolve(root);
    this.#checkProjectFolder = parts.checkProjectFolder;
    this.queues = parts.queues;
    this.lines = parts.lines;
    this.keeper = new IndexKeeper({
      file: indexFile(this.root),
      queues: this.queues,
      withRootLock: (fn) => this.withRootLock(fn),
      scan: async () => {
        const scan = await this.scan();
        this.scanProblems = scan.problems;
        return scan;
      },
      moveAside: (file) => this.moveAside(file),
      rel: (file) => this.rel(file),
    });
  }

  // ---------------------------------------------------------------- observers

  observe(observer: StoreObserver): () => void {
    this.#observers.add(observer);
    return () => this.#observers.delete(observer);
  }

  /** The one place changes are announced. An observer's failure never fails the write it hears of. */
  notify(change: StoreChange): void {
    for (const observer of this.#observers) {
      try {
        observer(change);
      } catch (error) {
        console.error(`[astrion] an observer of the store failed on a ${change.type} change:`, (error as Error).message);
      }
    }
  }

  // ---------------------------------------------------------------- versions

  version(id: string): number {
    return this.#versions.get(id) ?? 0;
  }

  /** Counted before and after a write, so a reader racing the write never keeps the old version. */
  async changing<T>(id: string, fn: () => Promise<T>): Promise<T> {
    this.#bump(id);
    try {
      return await fn();
    } finally {
      this.#bump(id);
    }
  }

  #bump(id: string): void {
    this.#versions.set(id, (this.#versions.get(id) ?? 0) + 1);
  }

  // ---------------------------------------------------------------- problems

  /** Files the store could not use and every rebuild of index.json since boot. */
  problems(): StoreProblem[] {
    return this.distinct([...this.unusableFiles(), ...this.keeper.notices()]);
  }

  /** Files that could not be used, broken index.json files moved aside included. */
  unusableFiles(): StoreProblem[] {
    return [...this.fileProblems.values(), ...this.keeper.movedAside(), ...this.scanProblems];
  }

  /** Each problem once (the same file and message can be known from two places). */
  distinct(problems: StoreProblem[]): StoreProblem[] {
    const seen = new Set<string>();
    const out: StoreProblem[] = [];
    for (const p of problems) {
      const key = `${p.file}\n${p.message}`;
      if (!seen.has(key)) {
        seen.add(key);
        out.push(p);
      }
    }
    return out;
  }

  /** Forgets every problem recorded for a conversation's files (it was deleted or replaced whole). */
  forgetProblemsOf(id: string): void {
    const prefix = `conversations/${id}/`;
    this.scanProblems = this.scanProblems.filter((p) => !p.file.startsWith(prefix));
    for (const key of this.fileProblems.keys()) if (key.startsWith(prefix)) this.fileProblems.delete(key);
  }

  /** A path relative to the data folder, with `/` separators, as problems name files. */
  rel(file: string): string {
    return path.relative(this.root, file).split(path.sep).join("/");
  }

  /**
   * Runs a read or update of `file`: when it turns out corrupt the file is recorded (so
   * /api/health lists it without scanning anything), and when it works its record is cleared.
   * The error is rethrown either way.
   */
  async tracked<T>(file: string, fn: () => Promise<T>): Promise<T> {
    try {
      const value = await fn();
      this.fileProblems.delete(this.rel(file));
      return value;
    } catch (error) {
      if (error instanceof CorruptFileError) this.fileProblems.set(this.rel(file), this.problemOf(file, error));
      throw error;
    }
  }

  /** What is wrong with `file`, as a problem. */
  problemOf(file: string, error: unknown): StoreProblem {
    if (error instanceof CorruptFileError) {
      const reason = (error.details as { reason?: unknown } | undefined)?.reason;
      return { file: this.rel(file), message: typeof reason === "string" ? reason : error.message };
    }
    if (error instanceof NotFoundError) return { file: this.rel(file), message: "the file is missing" };
    return { file: this.rel(file), message: error instanceof Error ? error.message : String(error) };
  }

  // ---------------------------------------------------------------- locks

  /** The one lock under which index.json and state.json are read and written, for every conversation. */
  withRootLock<T>(fn: () => Promise<T>): Promise<T> {
    return this.queues.withFileLock(`astrion-root:${this.root}`, fn);
  }

  /** The lock of one conversation: its metadata.json path, shared with any `updateJsonFile` on it. */
  withConversationLock<T>(id: string, fn: () => Promise<T>): Promise<T> {
    return this.queues.withFileLock(path.resolve(conversationMetadataFile(this.root, id)), fn);
  }

  // ---------------------------------------------------------------- state.json

  /** Creates state.json when it is missing; a corrupt one is left as it is and recorded. */
  async ensureState(): Promise<void> {
    const file = stateFile(this.root);
    await this.withRootLock(async () => {
      try {
        await readJsonFile(file, StateFileSchema);
        this.fileProblems.delete(this.rel(file));
      } catch (error) {
        if (error instanceof NotFoundError) await writeJsonAtomic(this.queues, file, await this.#rebuildState(), StateFileSchema);
        else if (error instanceof CorruptFileError) this.fileProblems.set(this.rel(file), this.problemOf(file, error));
        else throw error;
      }
    });
  }

  /**
   * Applies `fn` to state.json under the root lock; returns the new state. Missing: rebuilt.
   * Corrupt: moved aside to `<name>.corrupt-<YYYYMMDDHHMMSS>`, rebuilt from the folders, and
   * recorded as a problem.
   */
  updateState(fn: (state: StateFile) => StateFile | Promise<StateFile>): Promise<StateFile> {
    return this.withRootLock(async () => {
      const file = stateFile(this.root);
      const current = await this.#loadState(file);
      const next = await fn(current);
      await writeJsonAtomic(this.queues, file, next, StateFileSchema);
      return next;
    });
  }

  /** Moves state.json's agent counter on by a block (./agent-counter.ts); resolves with the new counter. */
  async #reserveAgentCount(floor: number, count: number): Promise<number> {
    const state = await this.updateState((s) => ({ ...s, agent_id_counter: Math.max(s.agent_id_counter ?? 0, floor) + count, updated_at: localTimestamp() }));
    return state.agent_id_counter ?? count;
  }

  async #loadState(file: string): Promise<StateFile> {
    try {
      const value = await readJsonFile(file, StateFileSchema);
      this.fileProblems.delete(this.rel(file));
      return value;
    } catch (error) {
      if (error instanceof NotFoundError) return this.#rebuildState();
      if (!(error instanceof CorruptFileError)) throw error;
      const aside = await this.moveAside(file);
      this.fileProblems.delete(this.rel(file));
      this.fileProblems.set(this.rel(aside), {
        file: this.rel(aside),
        message:
          `${this.rel(file)} was unusable (${this.problemOf(file, error).message}); ` +
          `its contents were moved to this file and ${path.basename(file)} was rebuilt from the conversation folders.`,
      });
      return this.#rebuildState();
    }
  }

  async #rebuildState(): Promise<StateFile> {
    return rebuildState(this.root, await this.scan());
  }

  /** Renames a broken file to a free `<name>.corrupt-<YYYYMMDDHHMMSS>[-N]` beside it; returns the new path. */
  async moveAside(file: string): Promise<string> {
    const base = `${file}.corrupt-${compactTimestamp()}`;
    for (let n = 0; ; n++) {
      const candidate = n === 0 ? base : `${base}-${n}`;
      try {
        // link() fails if the name is taken, so no earlier copy is ever overwritten.
        await fs.link(file, candidate);
      } catch (error) {
        if (errnoCode(error) === "EEXIST") continue;
        throw error;
      }
      await fs.rm(file, { force: true });
      return candidate;
    }
  }

  // ---------------------------------------------------------------- the index

  /** Reads every conversation folder's metadata.json; broken ones become problems. */
  scan(): Promise<ScannedConversations> {
    return scanConversations(this.root, this);
  }

  /**
   * After a conversation's metadata.json was written: its list row, then index.json, follow. A
   * step of the engine (`soon`) that only moves `updated_at` does not wait for index.json
   * (IndexKeeper.putSoon).
   */
  async indexed(meta: ConversationMetadata, soon = false): Promise<void> {
    const file = this.rel(conversationMetadataFile(this.root, meta.id));
    this.scanProblems = this.scanProblems.filter((p) => p.file !== file);
    this.notify({ type: "conversation", meta });
    await (soon ? this.keeper.putSoon(meta) : this.keeper.put(meta));
  }

  // ---------------------------------------------------------------- ids and project folders

  /**
   * Claims `conv_YYYYMMDD_HHMMSS_NNN` by creating its folder (no `recursive`, so EEXIST means the
   * id is taken, by this process or another one, and the next number is tried).
   */
  async claimConversationId(date: Date): Promise<string> {
    const prefix = conversationIdPrefix(date);
    const hints = this.#sequenceHints;
    if (!hints.has(prefix) && hints.size > 64) hints.clear();
    for (;;) {
      // Taken synchronously, so concurrent creates in this process try different numbers.
      const seq = hints.get(prefix) ?? 1;
      if (seq > MAX_CONVERSATION_SEQ) {
        throw new ConflictError("Too many conversations created in one second; try again.");
      }
      hints.set(prefix, seq + 1);
      const id = newConversationId(date, seq);
      try {
        await fs.mkdir(conversationDir(this.root, id));
        return id;
      } catch (error) {
        if (errnoCode(error) !== "EEXIST") throw error;
      }
    }
  }

  /**
   * The project folder rules, as the store's creator gave them (the server gives
   * lib/workspace/project-folder.ts's: an existing absolute folder, judged by its real path, that
   * is not the file-system root, a system folder, or this data folder / the app folder, inside
   * them or containing them). Storage does not know the workspace.
   */
  checkProjectPath(value: unknown): Promise<string> {
    return this.#checkProjectFolder(value);
  }
}
