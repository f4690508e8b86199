/**
 * The multi-agent conversation store (seed 000: `MultiAgentConversationStore`): conversations,
 * the Team Leader's messages, sub-agents, `conversations/index.json` and `state.json`.
 *
 * The conversation folders are the source of truth; the index and the state are derived and can
 * be rebuilt from them. A file that exists but is broken is never overwritten with defaults: it is
 * reported as a problem, and when the index or state must be written anyway the broken file is
 * first moved aside (`index.json.corrupt-YYYYMMDDHHMMSS`) so the user's bytes are never lost.
 *
 * The index lives in memory (conversation-index.ts): loaded once, at boot, from every
 * metadata.json, checked against index.json (rebuilt and reported when missing, broken or out of
 * step), then kept by this store, the only writer of conversation metadata, on every create,
 * update and delete, and written to index.json from memory. A list or a search never reads a
 * conversation's files. So an edit made to a metadata.json behind the store's back shows in the
 * list only after the next start.
 *
 * Locks (all in-process queues from `withFileLock`; one process owns a data folder, see lock.ts),
 * always taken in this order so they cannot deadlock:
 *   conversation (its metadata.json path) → that conversation's other files → the root lock
 *   (index.json + state.json, for all conversations).
 */
import "server-only";
import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { ListConversationsQuerySchema, type ConversationList, type StoreProblem } from "@/lib/api/contract";
import { AstrionError, ConflictError, CorruptFileError, NotFoundError, ValidationError, zodIssues } from "@/lib/errors";
import { assertProjectFolder } from "@/lib/workspace/project-folder";
import { fsyncDir, withFileLock } from "./atomic";
import { appendJsonLine } from "./jsonl";
import { LiveConversation, messagesDelta, type LoadReport } from "./live-conversation";
import type { LoggedLineFile } from "./step-records";
import type { IndexReport } from "./conversation-index";
import { IndexKeeper } from "./index-keeper";
import { readJsonFile, updateJsonFile, writeJsonAtomic, writeJsonAtomicUnlocked } from "./files";
import { readFolderFiles, writeFolderFiles, type ReadBudget } from "./folder-files";
import {
  agentDir,
  agentMessagesFile,
  agentMetadataFile,
  agentsDir,
  conversationDir,
  conversationMetadataFile,
  conversationsDir,
  indexFile,
  leaderMessagesFile,
  parseAgentId,
  parseConversationId,
  resolveDataRoot,
  rolesDir,
  stateFile,
} from "./paths";
import {
  AgentMessagesFileSchema,
  AgentMetadataSchema,
  CONVERSATION_ID_PATTERN,
  ConversationMetadataSchema,
  ConversationPhaseSchema,
  ConversationStatusSchema,
  LeaderMessagesFileSchema,
  RunModeSchema,
  StateFileSchema,
  type AgentMessagesFile,
  type AgentMetadata,
  type ConversationMetadata,
  type LeaderMessagesFile,
  type RunMode,
  type StateFile,
} from "./schemas";
import {
  compactTimestamp,
  compareConversationIds,
  conversationIdPrefix,
  localTimestamp,
  MAX_CONVERSATION_SEQ,
  newConversationId,
} from "./time";

/** `state.json` `version` written by this store. */
export const STATE_VERSION = "1.0";

/** Title given to a conversation created without one. */
export const DEFAULT_CONVERSATION_TITLE = "Untitled conversation";

/**
 * A conversation folder without metadata.json younger than this is being created right now
 * (the folder is claimed first, its files are written next) and is skipped, not reported.
 */
const CREATING_GRACE_MS = 10_000;

/** At most this many files are read at once when scanning folders. */
const SCAN_CONCURRENCY = 32;

/** Input of {@link ConversationStore.create}. */
export interface CreateConversationInput {
  /** Blank or missing: {@link DEFAULT_CONVERSATION_TITLE}. */
  title?: string;
  /** An existing folder, as an absolute path. */
  project_path: string;
  /** The Team Leader's model key. */
  model_key: string;
  /** Default `fast`. `thinking_mode` is derived from it (`run_mode !== "fast"`). */
  run_mode?: RunMode;
}

/** Fields of a conversation's metadata.json that {@link ConversationStore.update} may patch. */
export const ConversationPatchSchema = z.strictObject({
  title: z.string().trim().min(1, "a title cannot be empty").max(200, "at most 200 characters").optional(),
  status: ConversationStatusSchema.optional(),
  phase: ConversationPhaseSchema.optional(),
  agent_count: z.number().int().nonnegative().optional(),
  agent_ids: z.array(z.number().int().positive()).optional(),
  allowed_roles: z.array(z.string()).nullable().optional(),
});
/** A patch accepted by {@link ConversationStore.update}. */
export type ConversationPatch = z.infer<typeof ConversationPatchSchema>;

/** Input of {@link ConversationStore.createAgent}. */
export interface CreateAgentInput {
  role_id: string;
  /** The role's display name; the agent is shown as `<role_name>_<agent_id>` (seed: `UI Operator_1`). */
  role_name: string;
  /** Default: the conversation's model key. */
  model_key?: string;
  /** Default: `fast` when the conversation runs fast, else `thinking`. */
  thinking_mode?: string;
  task_summary?: string;
}

/** What {@link ConversationStore.listAgents} returns: the readable agents and what was not. */
export interface AgentList {
  agents: AgentMetadata[];
  problems: StoreProblem[];
}

type Mutator<T> = (current: T) => T | Promise<T>;

interface ScannedConversations {
  conversations: ConversationMetadata[];
  problems: StoreProblem[];
  /** Every folder named like a conversation id, readable or not. */
  folderIds: string[];
}

async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  async function worker() {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i] as T);
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

function errnoCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** The next free sequence number per `conv_YYYYMMDD_HHMMSS` prefix, shared by every store in this process. */
function sequenceHints(): Map<string, number> {
  const key = Symbol.for("astrion.store.conversationSeqHints");
  const g = globalThis as unknown as Record<symbol, Map<string, number> | undefined>;
  return (g[key] ??= new Map());
}

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

/**
 * Conversations, leader messages and sub-agents of one data folder. All writes are atomic,
 * validated against their schema and written as Python-style JSON.
 */
export class ConversationStore {
  /** The data folder (absolute). */
  readonly root: string;
  /** Problems with state.json (and copies moved aside) and with leader messages.json files, keyed by file. */
  readonly #fileProblems = new Map<string, StoreProblem>();
  /** Broken metadata.json files found at boot (a conversation's entry goes once the store rewrites or deletes it). */
  #scanProblems: StoreProblem[] = [];
  /** Per conversation, a number that grows with every write this store makes to its files. */
  readonly #versions = new Map<string, number>();
  /** Conversations held in memory by their engine (see {@link open}), loading or loaded. */
  readonly #opening = new Map<string, Promise<LiveConversation>>();
  readonly #live = new Map<string, LiveConversation>();
  /** index.json and the in-memory index that lists and searches conversations. */
  readonly #keeper: IndexKeeper;
  readonly #observers = new Set<StoreObserver>();

  constructor(root: string) {
    this.root = path.resolve(root);
    this.#keeper = new IndexKeeper({
      file: indexFile(this.root),
      withRootLock: (fn) => this.#withRootLock(fn),
      scan: async () => {
        const scan = await this.#scan();
        this.#scanProblems = scan.problems;
        return scan;
      },
      moveAside: (file) => this.#moveAside(file),
      rel: (file) => this.#rel(file),
    });
  }

  // ---------------------------------------------------------------- observers

  /** Adds an observer of every change this store makes; returns its removal. */
  observe(observer: StoreObserver): () => void {
    this.#observers.add(observer);
    return () => this.#observers.delete(observer);
  }

  /** The one place changes are announced. An observer's failure never fails the write it hears of. */
  #notify(change: StoreChange): void {
    for (const observer of this.#observers) {
      try {
        observer(change);
      } catch (error) {
        console.error(`[astrion] an observer of the store failed on a ${change.type} change:`, (error as Error).message);
      }
    }
  }

  // ---------------------------------------------------------------- versions

  /**
   * A number that changes whenever this store writes one of the conversation's files (metadata,
   * messages, agents), so a cache of something built from them (the SSE snapshot) knows it is stale
   * even when the write published no event (a rename, an archive).
   */
  version(id: string): number {
    return this.#versions.get(id) ?? 0;
  }

  /** Counted before and after a write, so a reader racing the write never keeps the old version. */
  async #changing<T>(id: string, fn: () => Promise<T>): Promise<T> {
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

  // ---------------------------------------------------------------- open conversations

  /**
   * Holds a conversation in memory (lib/store/live-conversation.ts) until {@link closeConversation}:
   * from then on every read of its files is served from memory and every write goes through its
   * step log. The conversation engine opens the conversations it runs. `onLoad` hears how the
   * load went (how many log records a crash left to replay).
   */
  async open(id: string, onLoad?: (report: LoadReport) => void): Promise<LiveConversation> {
    parseConversationId(id);
    let opening = this.#opening.get(id);
    if (!opening) {
      opening = this.#withConversationLock(id, async () => {
        const { live, report } = await this.#tracked(leaderMessagesFile(this.root, id), () =>
          LiveConversation.load(this.root, id, {
            onMetadata: (meta) => this.#indexed(meta, true),
            onMessages: (agentId, at) => this.#notify({ type: "messages", convId: id, agentId, at }),
            onAgent: (meta) => this.#notify({ type: "agent", convId: id, meta }),
          }),
        );
        this.#live.set(id, live);
        this.#notify({ type: "opened", live });
        for (const { file, error } of report.broken) this.#fileProblems.set(this.#rel(file), this.#problemOf(file, error));
        onLoad?.(report);
        return live;
      });
      this.#opening.set(id, opening);
      opening.catch(() => this.#opening.delete(id));
    }
    return opening;
  }

  /** Checkpoints an open conversation and lets it go from memory (a no-op when it is not open). */
  async closeConversation(id: string): Promise<void> {
    const opening = this.#opening.get(id);
    if (!opening) return;
    const live = await opening.catch(() => null);
    this.#opening.delete(id);
    this.#live.delete(id);
    await live?.close();
  }

  /** Whether a conversation is held in memory. */
  isOpen(id: string): boolean {
    return this.#live.has(id);
  }

  /** How many conversations are held in memory (or loading). */
  get openCount(): number {
    return this.#opening.size;
  }

  // ---------------------------------------------------------------- problems

  /**
   * Files the store could not use (path relative to the data folder, and what is wrong), and
   * every rebuild of index.json since boot (`GET /api/health` shows these).
   */
  problems(): StoreProblem[] {
    return this.#distinct([...this.#unusableFiles(), ...this.#keeper.notices()]);
  }

  /** The in-memory conversation index: its size, when it was loaded, and every rebuild of index.json. */
  indexReport(): IndexReport {
    return this.#keeper.report();
  }

  /** Files that could not be used, broken index.json files moved aside included. */
  #unusableFiles(): StoreProblem[] {
    return [...this.#fileProblems.values(), ...this.#keeper.movedAside(), ...this.#scanProblems];
  }

  #distinct(problems: StoreProblem[]): StoreProblem[] {
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

  /** A path relative to the data folder, with `/` separators, as problems name files. */
  #rel(file: string): string {
    return path.relative(this.root, file).split(path.sep).join("/");
  }

  /**
   * Runs a read or update of `file`: when it turns out corrupt the file is recorded in
   * {@link problems} (so /api/health lists it without scanning anything), and when it works its
   * record is cleared. The error is rethrown either way.
   */
  async #tracked<T>(file: string, fn: () => Promise<T>): Promise<T> {
    try {
      const value = await fn();
      this.#fileProblems.delete(this.#rel(file));
      return value;
    } catch (error) {
      if (error instanceof CorruptFileError) this.#fileProblems.set(this.#rel(file), this.#problemOf(file, error));
      throw error;
    }
  }

  #problemOf(file: string, error: unknown): StoreProblem {
    if (error instanceof CorruptFileError) {
      const reason = (error.details as { reason?: unknown } | undefined)?.reason;
      return { file: this.#rel(file), message: typeof reason === "string" ? reason : error.message };
    }
    if (error instanceof NotFoundError) return { file: this.#rel(file), message: "the file is missing" };
    return { file: this.#rel(file), message: error instanceof Error ? error.message : String(error) };
  }

  // ---------------------------------------------------------------- init, locks, repair

  /**
   * Boot: creates the folders, removes the remains of interrupted deletes, loads the conversation
   * index from every metadata.json (rebuilding `conversations/index.json` when it is missing,
   * broken — moved aside first — or out of step, and reporting it in {@link problems} and
   * {@link indexReport}), and creates `state.json` when it is missing. A state.json that exists
   * but is corrupt is left as it is and recorded in {@link problems}.
   */
  async init(): Promise<void> {
    await fs.mkdir(this.root, { recursive: true });
    await fs.mkdir(rolesDir(this.root), { recursive: true });
    await fs.mkdir(conversationsDir(this.root), { recursive: true });
    await this.#removeInterruptedDeletes();
    await this.#keeper.ready();
    await this.#withRootLock(() =>
      this.#ensureDerivedFile(stateFile(this.root), StateFileSchema, () => this.#rebuildState()),
    );
  }

  async #ensureDerivedFile<S extends z.ZodType>(file: string, schema: S, build: () => Promise<z.output<S>>) {
    try {
      await readJsonFile(file, schema);
      this.#fileProblems.delete(this.#rel(file));
    } catch (error) {
      if (error instanceof NotFoundError) {
        await writeJsonAtomic(file, await build(), schema);
      } else if (error instanceof CorruptFileError) {
        this.#fileProblems.set(this.#rel(file), this.#problemOf(file, error));
      } else {
        throw error;
      }
    }
  }

  async #removeInterruptedDeletes(): Promise<void> {
    const dir = conversationsDir(this.root);
    let names: string[];
    try {
      names = await fs.readdir(dir);
    } catch {
      return;
    }
    for (const name of names) {
      if (name.startsWith(".deleting-") || name.startsWith(".importing-")) await fs.rm(path.join(dir, name), { recursive: true, force: true });
      // An overwrite cut short between its two renames: the old folder goes back if the new one is not there.
      const replaced = /^\.replaced-(conv_\d{8}_\d{6}_\d{3,6})-[0-9a-f]+$/.exec(name);
      if (replaced) {
        const target = path.join(dir, replaced[1]!);
        const there = await fs.stat(target).then(() => true, () => false);
        if (there) await fs.rm(path.join(dir, name), { recursive: true, force: true });
        else await fs.rename(path.join(dir, name), target);
      }
    }
  }

  /** The one lock under which index.json and state.json are read and written, for every conversation. */
  #withRootLock<T>(fn: () => Promise<T>): Promise<T> {
    return withFileLock(`astrion-root:${this.root}`, fn);
  }

  /** The lock of one conversation: its metadata.json path, shared with any `updateJsonFile` on it. */
  #withConversationLock<T>(id: string, fn: () => Promise<T>): Promise<T> {
    return withFileLock(path.resolve(conversationMetadataFile(this.root, id)), fn);
  }

  /**
   * Reads state.json for an update (index.json is kept in memory, see index-keeper.ts). Missing:
   * rebuilt. Corrupt: moved aside to `<name>.corrupt-<YYYYMMDDHHMMSS>`, rebuilt from the folders,
   * and recorded as a problem. Call only under the root lock.
   */
  async #loadDerived<S extends z.ZodType>(file: string, schema: S, rebuild: () => Promise<z.output<S>>) {
    try {
      const value = await readJsonFile(file, schema);
      this.#fileProblems.delete(this.#rel(file));
      return value;
    } catch (error) {
      if (error instanceof NotFoundError) return rebuild();
      if (!(error instanceof CorruptFileError)) throw error;
      const aside = await this.#moveAside(file);
      this.#fileProblems.delete(this.#rel(file));
      this.#fileProblems.set(this.#rel(aside), {
        file: this.#rel(aside),
        message:
          `${this.#rel(file)} was unusable (${this.#problemOf(file, error).message}); ` +
          `its contents were moved to this file and ${path.basename(file)} was rebuilt from the conversation folders.`,
      });
      return rebuild();
    }
  }

  /** Renames a broken file to a free `<name>.corrupt-<YYYYMMDDHHMMSS>[-N]` beside it; returns the new path. */
  async #moveAside(file: string): Promise<string> {
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

  async #rebuildState(): Promise<StateFile> {
    const { conversations, folderIds } = await this.#scan();
    let maxAgentId = 0;
    for (const meta of conversations) for (const id of meta.agent_ids) maxAgentId = Math.max(maxAgentId, id);
    // Agent folders count too, even in conversations whose metadata.json is broken.
    for (const id of folderIds) {
      let names: string[] = [];
      try {
        names = await fs.readdir(agentsDir(this.root, id));
      } catch {
        // No agents folder.
      }
      for (const name of names) if (/^[1-9]\d{0,15}$/.test(name)) maxAgentId = Math.max(maxAgentId, Number(name));
    }
    const newest = [...folderIds].sort(compareConversationIds).at(-1) ?? null;
    const now = localTimestamp();
    const oldest = conversations.map((c) => c.created_at).sort()[0];
    return {
      version: STATE_VERSION,
      last_conversation_id: newest,
      agent_id_counter: maxAgentId,
      created_at: oldest ?? now,
      updated_at: now,
    };
  }

  /** Applies `fn` to state.json under the root lock (repairing it first if needed); returns the new state. */
  async #updateState(fn: (state: StateFile) => StateFile | Promise<StateFile>): Promise<StateFile> {
    return this.#withRootLock(async () => {
      const file = stateFile(this.root);
      const current = await this.#loadDerived(file, StateFileSchema, () => this.#rebuildState());
      const next = await fn(current);
      await writeJsonAtomic(file, next, StateFileSchema);
      return next;
    });
  }

  /**
   * After a conversation's metadata.json was written: its list row, then index.json, follow. A
   * step of the engine (`soon`) that only moves `updated_at` does not wait for index.json
   * (IndexKeeper.putSoon).
   */
  async #indexed(meta: ConversationMetadata, soon = false): Promise<void> {
    const file = this.#rel(conversationMetadataFile(this.root, meta.id));
    this.#scanProblems = this.#scanProblems.filter((p) => p.file !== file);
    this.#notify({ type: "conversation", meta });
    await (soon ? this.#keeper.putSoon(meta) : this.#keeper.put(meta));
  }

  /** Writes what is due of index.json now (a clean stop). */
  flushIndex(): Promise<void> {
    return this.#keeper.flush();
  }

  /** Reads every conversation folder's metadata.json; broken ones become problems. */
  async #scan(): Promise<ScannedConversations> {
    const dir = conversationsDir(this.root);
    let names: string[];
    try {
      names = await fs.readdir(dir);
    } catch (error) {
      if (errnoCode(error) === "ENOENT") return { conversations: [], problems: [], folderIds: [] };
      throw error;
    }
    const folderIds = names.filter((n) => CONVERSATION_ID_PATTERN.test(n));
    const results = await mapLimit(folderIds, SCAN_CONCURRENCY, async (id) => {
      const file = conversationMetadataFile(this.root, id);
      try {
        const meta = await readJsonFile(file, ConversationMetadataSchema);
        if (meta.id !== id) {
          return { problem: { file: this.#rel(file), message: `its id "${meta.id}" does not match its folder name` } };
        }
        return { meta };
      } catch (error) {
        if (error instanceof NotFoundError) {
          const stat = await fs.stat(path.dirname(file)).catch(() => null);
          if (!stat?.isDirectory()) return {}; // a file named like an id, or deleted meanwhile
          if (Date.now() - stat.mtimeMs < CREATING_GRACE_MS) return {}; // being created
        }
        if (error instanceof AstrionError) return { problem: this.#problemOf(file, error) };
        throw error;
      }
    });
    const conversations: ConversationMetadata[] = [];
    const problems: StoreProblem[] = [];
    for (const r of results) {
      if (r.meta) conversations.push(r.meta);
      if (r.problem) problems.push(r.problem);
    }
    return { conversations, problems, folderIds };
  }

  // ---------------------------------------------------------------- conversations

  /**
   * Creates a conversation: claims a fresh id by creating its folder, writes metadata.json and
   * messages.json, then adds it to index.json and makes it `state.json`'s last conversation.
   * @throws ValidationError (details `[{path, message, reason?}]`) for a project folder that is
   *   refused (`reason`: see PROJECT_FOLDER_REFUSALS), or a bad title, model key or run mode.
   */
  async create(input: CreateConversationInput): Promise<ConversationMetadata> {
    const projectPath = await this.#checkProjectPath(input.project_path);
    if (input.title !== undefined && typeof input.title !== "string") {
      throw new ValidationError("Invalid title", [{ path: "title", message: "must be text" }]);
    }
    const title = input.title?.trim() || DEFAULT_CONVERSATION_TITLE;
    if (title.length > 200) {
      throw new ValidationError("Invalid title", [{ path: "title", message: "at most 200 characters" }]);
    }
    const runMode = RunModeSchema.safeParse(input.run_mode ?? "fast");
    if (!runMode.success) {
      throw new ValidationError("Invalid run mode", [{ path: "run_mode", message: "must be fast, thinking or deep" }]);
    }
    if (typeof input.model_key !== "string" || input.model_key.trim() === "") {
      throw new ValidationError("Invalid model key", [{ path: "model_key", message: "a model key is required" }]);
    }

    const now = new Date();
    await this.#keeper.ready();
    await fs.mkdir(conversationsDir(this.root), { recursive: true });
    const id = await this.#claimConversationId(now);
    const ts = localTimestamp(now);
    const meta: ConversationMetadata = {
      id,
      title,
      created_at: ts,
      updated_at: ts,
      project_path: projectPath,
      model_key: input.model_key.trim(),
      thinking_mode: runMode.data !== "fast",
      run_mode: runMode.data,
      status: "active",
      agent_count: 0,
      agent_ids: [],
      phase: "IDLE",
    };
    const messages: LeaderMessagesFile = {
      id,
      title,
      created_at: ts,
      updated_at: ts,
      messages: [],
      metadata: {},
      token_statistics: {},
    };
    try {
      await writeJsonAtomic(conversationMetadataFile(this.root, id), meta, ConversationMetadataSchema);
      await writeJsonAtomic(leaderMessagesFile(this.root, id), messages, LeaderMessagesFileSchema);
    } catch (error) {
      // Do not leave a half-made conversation behind.
      await fs.rm(conversationDir(this.root, id), { recursive: true, force: true }).catch(() => undefined);
      throw error;
    }
    await this.#indexed(meta);
    await this.#updateState((state) => ({
      ...state,
      last_conversation_id:
        state.last_conversation_id && compareConversationIds(state.last_conversation_id, id) > 0
          ? state.last_conversation_id
          : id,
      updated_at: localTimestamp(),
    }));
    return meta;
  }

  /**
   * Checks a project folder as {@link create} does (an import checks every conversation's before
   * writing any); returns the path to keep.
   * @throws ValidationError with `details[0].reason` for a refused folder.
   */
  checkProjectFolder(value: unknown): Promise<string> {
    return this.#checkProjectPath(value);
  }

  /**
   * The project folder rules (lib/workspace/project-folder.ts): an existing absolute folder,
   * judged by its real path, that is not the file-system root, a system folder, or this data
   * folder / the app folder, inside them or containing them.
   */
  async #checkProjectPath(value: unknown): Promise<string> {
    return assertProjectFolder(value, [{ kind: "data", path: this.root }]);
  }

  /**
   * Claims `conv_YYYYMMDD_HHMMSS_NNN` by creating its folder (no `recursive`, so EEXIST means the
   * id is taken, by this process or another one, and the next number is tried).
   */
  async #claimConversationId(date: Date): Promise<string> {
    const prefix = conversationIdPrefix(date);
    const hints = sequenceHints();
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
   * A conversation's metadata.json.
   * @throws ValidationError for a malformed id, NotFoundError when it does not exist,
   *   CorruptFileError when its metadata.json cannot be used.
   */
  async get(id: string): Promise<ConversationMetadata> {
    const live = this.#live.get(id);
    if (live) return structuredClone(live.metadata);
    const file = conversationMetadataFile(this.root, id);
    try {
      return await this.#tracked(file, () => readJsonFile(file, ConversationMetadataSchema));
    } catch (error) {
      if (error instanceof NotFoundError) throw new NotFoundError(`Conversation ${id} does not exist`, { id });
      throw error;
    }
  }

  /**
   * Changes a conversation: either a patch of `title`, `status`, `phase`, `agent_count`,
   * `agent_ids`, or a function from the current metadata to the new one (it may not change `id`).
   * `updated_at` is set to now; messages.json's `title`/`updated_at` and the index entry follow.
   * Updates of one conversation are applied one after another, so none is lost.
   */
  async update(
    id: string,
    patch: ConversationPatch | Mutator<ConversationMetadata>,
  ): Promise<ConversationMetadata> {
    parseConversationId(id);
    let apply: Mutator<ConversationMetadata>;
    if (typeof patch === "function") {
      apply = patch;
    } else {
      const parsed = ConversationPatchSchema.safeParse(patch);
      if (!parsed.success) throw new ValidationError("Invalid conversation change", zodIssues(parsed.error));
      const changes = Object.fromEntries(Object.entries(parsed.data).filter(([, v]) => v !== undefined));
      apply = (current) => ({ ...current, ...changes });
    }
    await this.#keeper.ready();
    const live = this.#live.get(id);
    if (live) {
      return this.#changing(id, () =>
        live.updateMetadata(async (current) => {
          const changed = await apply(structuredClone(current));
          if (changed.id !== id) throw new ValidationError("A conversation's id cannot change", [{ path: "id", message: "cannot change" }]);
          return changed;
        }),
      );
    }
    return this.#withConversationLock(id, () => this.#changing(id, async () => {
      const current = await this.get(id);
      const changed = await apply(structuredClone(current));
      if (changed.id !== id) {
        throw new ValidationError("A conversation's id cannot change", [{ path: "id", message: "cannot change" }]);
      }
      const next: ConversationMetadata = { ...changed, updated_at: localTimestamp() };
      await writeJsonAtomicUnlocked(conversationMetadataFile(this.root, id), next, ConversationMetadataSchema);
      await this.#syncLeaderHeader(next);
      await this.#indexed(next);
      return next;
    }));
  }

  /** Keeps messages.json's `title` and `updated_at` in step with metadata.json. */
  async #syncLeaderHeader(meta: ConversationMetadata): Promise<void> {
    const file = leaderMessagesFile(this.root, meta.id);
    try {
      await updateJsonFile(file, LeaderMessagesFileSchema, (m) => ({
        ...m,
        title: meta.title,
        updated_at: meta.updated_at,
      }));
      this.#fileProblems.delete(this.#rel(file));
    } catch (error) {
      // metadata.json is the source of truth and is already written; a broken or missing
      // messages.json is reported, not replaced.
      if (!(error instanceof NotFoundError || error instanceof CorruptFileError)) throw error;
      this.#fileProblems.set(this.#rel(file), this.#problemOf(file, error));
    }
  }

  /**
   * Deletes a conversation's folder (moved out of sight first, so a half-deleted folder is never
   * listed), its index entry, and points `state.last_conversation_id` at the newest remaining
   * conversation (or null) when it named this one.
   */
  async remove(id: string): Promise<void> {
    parseConversationId(id);
    await this.#keeper.ready();
    await this.closeConversation(id);
    await this.#withConversationLock(id, () => this.#changing(id, async () => {
      const dir = conversationDir(this.root, id);
      const trash = path.join(conversationsDir(this.root), `.deleting-${id}-${randomBytes(4).toString("hex")}`);
      try {
        await fs.rename(dir, trash);
      } catch (error) {
        if (errnoCode(error) === "ENOENT") throw new NotFoundError(`Conversation ${id} does not exist`, { id });
        throw error;
      }
      await fs.rm(trash, { recursive: true, force: true, maxRetries: 3 });
      this.#scanProblems = this.#scanProblems.filter((p) => !p.file.startsWith(`conversations/${id}/`));
      for (const key of this.#fileProblems.keys()) {
        if (key.startsWith(`conversations/${id}/`)) this.#fileProblems.delete(key);
      }
      await this.#keeper.remove(id);
      this.#notify({ type: "removed", convId: id });
      await this.#updateState(async (state) => {
        // Read under the root lock, so a conversation created meanwhile is seen.
        const names = await fs.readdir(conversationsDir(this.root)).catch(() => [] as string[]);
        const ids = names.filter((n) => CONVERSATION_ID_PATTERN.test(n)).sort(compareConversationIds);
        const last = state.last_conversation_id;
        if (last && last !== id && ids.includes(last)) return state;
        return { ...state, last_conversation_id: ids.at(-1) ?? null, updated_at: localTimestamp() };
      });
    }));
  }

  /**
   * The conversation list, from the in-memory index (no file is read): every conversation whose
   * metadata.json could be read at boot or was written since, so one broken conversation or a
   * broken index.json hides nothing else; broken files are reported in `problems`. Newest first
   * (by `updated_at`, then id); `q` matches the title or the project folder, case-insensitively;
   * `status` is `active` (default), `archived` or `all`.
   */
  async list(query: z.input<typeof ListConversationsQuerySchema> = {}): Promise<ConversationList> {
    const parsed = ListConversationsQuerySchema.safeParse(query);
    if (!parsed.success) throw new ValidationError("Invalid list query", zodIssues(parsed.error));
    await this.#keeper.ready();
    const { offset, limit } = parsed.data;
    const page = this.#keeper.index.query(parsed.data);
    return { ...page, offset, limit, problems: this.#distinct(this.#unusableFiles()) };
  }

  // ---------------------------------------------------------------- export and import

  /**
   * The files of a conversation's folder that `accept` takes (paths relative to the folder), read
   * once each, at one moment: the conversation is opened (what a crash left in its step log is
   * replayed), checkpointed, and its writes wait while the files are read
   * (LiveConversation.frozen). The caller holds the conversation meanwhile (lib/runtime
   * `withConversation`), which lets it go again afterwards.
   */
  async snapshotFolder(id: string, accept: (rel: string) => boolean, budget: ReadBudget): Promise<Map<string, Uint8Array>> {
    const live = await this.open(id);
    return live.frozen(() => readFolderFiles(conversationDir(this.root, id), accept, budget));
  }

  /**
   * Places a conversation folder built elsewhere (an import; its files already checked) in the
   * data folder, then lists it (index.json) and moves `state.json` on: its `agent_id_counter`
   * past the folder's agent ids, so agents created later never take one of them.
   * - `create`: under `id`, which must be free (ConflictError otherwise);
   * - `new_id`: under a freshly claimed id; `files(id)` builds the files for it;
   * - `replace`: over the existing conversation `id`, which must not be held in memory: the old
   *   folder is renamed aside, the new one renamed in, the old one deleted (a crash between the
   *   renames is undone at boot).
   * The project folder named in metadata.json must pass the same rules as a new conversation's.
   */
  async installConversation(
    id: string,
    mode: "create" | "new_id" | "replace",
    files: (id: string) => Map<string, Uint8Array>,
  ): Promise<ConversationMetadata> {
    parseConversationId(id);
    await this.#keeper.ready();
    const dirOf = (target: string) => conversationDir(this.root, target);
    const metaOf = (built: Map<string, Uint8Array>) => {
      const bytes = built.get("metadata.json");
      if (!bytes) throw new ValidationError("metadata.json is missing", [{ path: "metadata.json", message: "missing" }]);
      return ConversationMetadataSchema.parse(JSON.parse(Buffer.from(bytes).toString("utf8")));
    };
    await this.#checkProjectPath(metaOf(files(id)).project_path);
    const staging = path.join(conversationsDir(this.root), `.importing-${randomBytes(6).toString("hex")}`);
    let claimed: string | null = null;
    try {
      const target = mode === "new_id" ? (claimed = await this.#claimConversationId(new Date())) : id;
      const built = files(target);
      const meta = metaOf(built);
      if (meta.id !== target) throw new ValidationError("metadata.json names another conversation", [{ path: "metadata.json:id", message: "must be the folder's id" }]);
      await writeFolderFiles(staging, built);
      await this.#withConversationLock(target, () => this.#changing(target, async () => {
        if (mode === "create") {
          try {
            await fs.mkdir(dirOf(target));
          } catch (error) {
            if (errnoCode(error) === "EEXIST") throw new ConflictError(`Conversation ${target} exists already`, { id: target });
            throw error;
          }
          claimed = target;
        }
        if (mode === "replace") {
          if (this.#live.has(target) || this.#opening.has(target)) throw new ConflictError(`Conversation ${target} is in use; stop it and try again`, { id: target });
          const aside = path.join(conversationsDir(this.root), `.replaced-${target}-${randomBytes(4).toString("hex")}`);
          const moved = await fs.rename(dirOf(target), aside).then(() => true, (error: unknown) => {
            if (errnoCode(error) === "ENOENT") return false;
            throw error;
          });
          await fs.rename(staging, dirOf(target));
          await fsyncDir(conversationsDir(this.root));
          if (moved) await fs.rm(aside, { recursive: true, force: true, maxRetries: 3 });
        } else {
          // Renamed over the empty folder that claimed the id: the folder appears with every file.
          await fs.rename(staging, dirOf(target));
          claimed = null;
          await fsyncDir(conversationsDir(this.root));
        }
      }));
      claimed = null;
      this.#scanProblems = this.#scanProblems.filter((p) => !p.file.startsWith(`conversations/${target}/`));
      for (const key of this.#fileProblems.keys()) if (key.startsWith(`conversations/${target}/`)) this.#fileProblems.delete(key);
      await this.#indexed(meta);
      this.#notify({ type: "installed", convId: target });
      const maxAgentId = Math.max(0, ...meta.agent_ids);
      await this.#updateState((state) => ({
        ...state,
        agent_id_counter: Math.max(state.agent_id_counter ?? 0, maxAgentId),
        last_conversation_id:
          state.last_conversation_id && compareConversationIds(state.last_conversation_id, target) > 0 ? state.last_conversation_id : target,
        updated_at: localTimestamp(),
      }));
      return meta;
    } finally {
      await fs.rm(staging, { recursive: true, force: true }).catch(() => undefined);
      // An id claimed for this import whose folder never got its files: given up again.
      if (claimed) await fs.rmdir(dirOf(claimed)).catch(() => undefined);
    }
  }

  // ---------------------------------------------------------------- timeline, context reports, journal

  /**
   * Appends `line` to one of a conversation's JSON Lines files (timeline.jsonl, context.jsonl,
   * actions.jsonl) and resolves once it is durable: through the step log when the conversation is
   * open (lib/store/logged-lines.ts), with an fsync of its own otherwise. The conversation's folder
   * must exist (a deleted conversation is not recreated).
   */
  async appendLine(id: string, name: LoggedLineFile, line: string): Promise<void> {
    parseConversationId(id);
    const live = this.#live.get(id);
    if (live) return live.appendLine(name, line);
    await appendJsonLine(path.join(conversationDir(this.root, id), name), line);
  }

  // ---------------------------------------------------------------- leader messages

  /** The Team Leader's conversation (messages.json). */
  async readLeaderMessages(id: string): Promise<LeaderMessagesFile> {
    const live = this.#live.get(id);
    if (live) return live.leader;
    const file = leaderMessagesFile(this.root, id);
    try {
      return await this.#tracked(file, () => readJsonFile(file, LeaderMessagesFileSchema));
    } catch (error) {
      if (error instanceof NotFoundError) {
        await this.get(id); // says "conversation does not exist" when that is the reason
        throw new NotFoundError(`Conversation ${id} has no messages.json`, { id, file: this.#rel(file) });
      }
      throw error;
    }
  }

  /**
   * Read-modify-write of the Team Leader's messages.json. `id` and `title` stay those of the
   * conversation; `updated_at` becomes now and, unless `touch` is false, the conversation's
   * metadata.json and index entry get the same `updated_at` (so the list shows recent activity first).
   */
  async updateLeaderMessages(
    id: string,
    fn: Mutator<LeaderMessagesFile>,
    opts: { touch?: boolean } = {},
  ): Promise<LeaderMessagesFile> {
    parseConversationId(id);
    await this.#keeper.ready();
    const live = this.#live.get(id);
    if (live) return this.#changing(id, () => live.updateLeader(fn, opts));
    return this.#withConversationLock(id, () => this.#changing(id, async () => {
      const meta = await this.get(id);
      const now = localTimestamp();
      const file = leaderMessagesFile(this.root, id);
      let next: LeaderMessagesFile;
      let at = 0;
      try {
        next = await this.#tracked(file, () =>
          updateJsonFile(file, LeaderMessagesFileSchema, async (current) => {
            const changed = await fn(current);
            at = messagesDelta(current.messages, changed.messages).at;
            return { ...changed, id, title: meta.title, updated_at: now };
          }),
        );
        this.#notify({ type: "messages", convId: id, agentId: null, at });
      } catch (error) {
        if (error instanceof NotFoundError) {
          throw new NotFoundError(`Conversation ${id} has no messages.json`, { id, file: this.#rel(file) });
        }
        throw error;
      }
      if (opts.touch !== false) {
        const touched: ConversationMetadata = { ...meta, updated_at: now };
        await writeJsonAtomicUnlocked(conversationMetadataFile(this.root, id), touched, ConversationMetadataSchema);
        await this.#indexed(touched);
      }
      return next;
    }));
  }

  // ---------------------------------------------------------------- sub-agents

  /**
   * Creates a sub-agent in a conversation: takes the next global agent id from state.json's
   * `agent_id_counter`, writes `agents/<agent_id>/metadata.json` and `messages.json`, and adds
   * the id to the conversation's `agent_ids` / `agent_count` (and the index's `agent_count`).
   */
  async createAgent(convId: string, input: CreateAgentInput): Promise<AgentMetadata> {
    const roleId = typeof input.role_id === "string" ? input.role_id.trim() : "";
    const roleName = typeof input.role_name === "string" ? input.role_name.trim() : "";
    if (!roleId) throw new ValidationError("Invalid role", [{ path: "role_id", message: "a role id is required" }]);
    if (!roleName) throw new ValidationError("Invalid role", [{ path: "role_name", message: "a role name is required" }]);
    const conv = await this.get(convId);

    const parent = agentsDir(this.root, convId);
    try {
      await fs.mkdir(parent);
    } catch (error) {
      const code = errnoCode(error);
      if (code === "ENOENT") throw new NotFoundError(`Conversation ${convId} does not exist`, { id: convId });
      if (code !== "EEXIST") throw error;
    }

    let agentId = 0;
    for (;;) {
      const state = await this.#updateState((s) => ({
        ...s,
        agent_id_counter: (s.agent_id_counter ?? 0) + 1,
        updated_at: localTimestamp(),
      }));
      agentId = state.agent_id_counter ?? 1;
      try {
        await fs.mkdir(agentDir(this.root, convId, agentId));
        break;
      } catch (error) {
        // Taken already (the counter was behind, e.g. state.json restored from a backup): next one.
        if (errnoCode(error) !== "EEXIST") throw error;
      }
    }

    const now = localTimestamp();
    const displayName = `${roleName}_${agentId}`;
    const meta: AgentMetadata = {
      agent_id: agentId,
      role_id: roleId,
      display_name: displayName,
      status: "running",
      created_at: now,
      updated_at: now,
      task_summary: input.task_summary ?? "",
      model_key: input.model_key ?? conv.model_key,
      thinking_mode: input.thinking_mode ?? (conv.run_mode === "fast" ? "fast" : "thinking"),
      pending_messages: [],
      pending_tool_calls: [],
    };
    const messages: AgentMessagesFile = {
      agent_id: agentId,
      role_id: roleId,
      display_name: displayName,
      created_at: now,
      updated_at: now,
      messages: [],
    };
    await this.#changing(convId, async () => {
      // Both files appear at once: they are written into a folder of their own, which is then
      // renamed over the (empty) folder that claimed the id. A crash leaves an empty folder or
      // a whole agent, never an agent with one file.
      const final = agentDir(this.root, convId, agentId);
      const staging = path.join(agentsDir(this.root, convId), `.creating-${agentId}-${randomBytes(4).toString("hex")}`);
      await fs.mkdir(staging);
      try {
        await writeJsonAtomic(path.join(staging, "metadata.json"), meta, AgentMetadataSchema);
        await writeJsonAtomic(path.join(staging, "messages.json"), messages, AgentMessagesFileSchema);
        await fs.rename(staging, final);
      } catch (error) {
        await fs.rm(staging, { recursive: true, force: true }).catch(() => undefined);
        throw error;
      }
      await fsyncDir(agentsDir(this.root, convId));
    });
    this.#live.get(convId)?.addAgent(meta, messages);
    this.#notify({ type: "agent", convId, meta });
    await this.update(convId, (m) => {
      const ids = [...new Set([...m.agent_ids, agentId])].sort((a, b) => a - b);
      return { ...m, agent_ids: ids, agent_count: ids.length };
    });
    return meta;
  }

  #agentNotFound(convId: string, agentId: unknown): NotFoundError {
    return new NotFoundError(`Agent ${String(agentId)} of conversation ${convId} does not exist`, {
      id: convId,
      agent_id: agentId,
    });
  }

  /** A sub-agent's metadata.json. */
  async readAgentMetadata(convId: string, agentId: number | string): Promise<AgentMetadata> {
    const live = this.#live.get(convId);
    if (live) return live.agentMetadata(parseAgentId(agentId));
    try {
      const file = agentMetadataFile(this.root, convId, agentId);
      return await this.#tracked(file, () => readJsonFile(file, AgentMetadataSchema));
    } catch (error) {
      if (error instanceof NotFoundError) throw this.#agentNotFound(convId, agentId);
      throw error;
    }
  }

  /** Read-modify-write of a sub-agent's metadata.json (`agent_id` fixed, `updated_at` set to now). */
  async updateAgentMetadata(
    convId: string,
    agentId: number | string,
    fn: Mutator<AgentMetadata>,
  ): Promise<AgentMetadata> {
    const n = parseAgentId(agentId);
    const live = this.#live.get(convId);
    if (live) return this.#changing(convId, () => live.updateAgentMetadata(n, fn));
    try {
      const file = agentMetadataFile(this.root, convId, n);
      const next = await this.#changing(convId, () => this.#tracked(file, () =>
        updateJsonFile(file, AgentMetadataSchema, async (current) => ({
          ...(await fn(current)),
          agent_id: n,
          updated_at: localTimestamp(),
        })),
      ));
      this.#notify({ type: "agent", convId, meta: next });
      return next;
    } catch (error) {
      if (error instanceof NotFoundError) throw this.#agentNotFound(convId, agentId);
      throw error;
    }
  }

  /** A sub-agent's full conversation (messages.json). */
  async readAgentMessages(convId: string, agentId: number | string): Promise<AgentMessagesFile> {
    const live = this.#live.get(convId);
    if (live) return live.agentMessages(parseAgentId(agentId));
    try {
      const file = agentMessagesFile(this.root, convId, agentId);
      return await this.#tracked(file, () => readJsonFile(file, AgentMessagesFileSchema));
    } catch (error) {
      if (error instanceof NotFoundError) throw this.#agentNotFound(convId, agentId);
      throw error;
    }
  }

  /** Read-modify-write of a sub-agent's messages.json (`agent_id` fixed, `updated_at` set to now). */
  async updateAgentMessages(
    convId: string,
    agentId: number | string,
    fn: Mutator<AgentMessagesFile>,
  ): Promise<AgentMessagesFile> {
    const n = parseAgentId(agentId);
    const live = this.#live.get(convId);
    if (live) return this.#changing(convId, () => live.updateAgentMessages(n, fn));
    try {
      const file = agentMessagesFile(this.root, convId, n);
      let at = 0;
      const next = await this.#changing(convId, () => this.#tracked(file, () =>
        updateJsonFile(file, AgentMessagesFileSchema, async (current) => {
          const changed = await fn(current);
          at = messagesDelta(current.messages, changed.messages).at;
          return { ...changed, agent_id: n, updated_at: localTimestamp() };
        }),
      ));
      this.#notify({ type: "messages", convId, agentId: n, at });
      return next;
    } catch (error) {
      if (error instanceof NotFoundError) throw this.#agentNotFound(convId, agentId);
      throw error;
    }
  }

  /**
   * Every sub-agent of a conversation, by agent id. An agent whose metadata.json cannot be read,
   * or that the conversation lists but has no folder, is reported in `problems`, not thrown.
   */
  async listAgents(convId: string): Promise<AgentList> {
    const live = this.#live.get(convId);
    if (live) {
      const prefix = `conversations/${convId}/agents/`;
      return { agents: live.agents(), problems: this.problems().filter((p) => p.file.startsWith(prefix)) };
    }
    const conv = await this.get(convId).catch((error: unknown) => {
      if (error instanceof CorruptFileError) return null; // the agents can still be listed
      throw error;
    });
    const problems: StoreProblem[] = [];
    let names: string[] = [];
    try {
      names = await fs.readdir(agentsDir(this.root, convId));
    } catch (error) {
      if (errnoCode(error) !== "ENOENT") throw error;
    }
    const ids = names.filter((n) => /^[1-9]\d{0,15}$/.test(n)).map(Number);
    const read = await mapLimit(ids, SCAN_CONCURRENCY, async (agentId) => {
      const file = agentMetadataFile(this.root, convId, agentId);
      try {
        const meta = await this.#tracked(file, () => readJsonFile(file, AgentMetadataSchema));
        if (meta.agent_id !== agentId) {
          problems.push({ file: this.#rel(file), message: `its agent_id ${meta.agent_id} does not match its folder name` });
          return null;
        }
        return meta;
      } catch (error) {
        if (!(error instanceof AstrionError)) throw error;
        problems.push(this.#problemOf(file, error));
        return null;
      }
    });
    for (const listed of conv?.agent_ids ?? []) {
      if (!ids.includes(listed)) {
        problems.push({
          file: this.#rel(conversationMetadataFile(this.root, convId)),
          message: `lists agent ${listed}, whose folder agents/${listed} is missing`,
        });
      }
    }
    const agents = read.filter((m): m is AgentMetadata => m !== null).sort((a, b) => a.agent_id - b.agent_id);
    problems.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
    return { agents, problems };
  }
}

/**
 * The store of a data folder (default: {@link resolveDataRoot}), one per folder per process (kept
 * on globalThis so every bundle of this module shares it). Call `init()` once at start-up, after
 * `acquireDataRootLock`.
 */
export function getConversationStore(root: string = resolveDataRoot()): ConversationStore {
  const key = Symbol.for("astrion.store.conversationStores");
  const g = globalThis as unknown as Record<symbol, Map<string, ConversationStore> | undefined>;
  const stores = (g[key] ??= new Map());
  const abs = path.resolve(root);
  let store = stores.get(abs);
  if (!store) {
    store = new ConversationStore(abs);
    stores.set(abs, store);
  }
  return store;
}
