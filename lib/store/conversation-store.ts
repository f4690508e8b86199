/**
 * The multi-agent conversation store (seed 000: `MultiAgentConversationStore`): conversations,
 * the Team Leader's messages, sub-agents, `conversations/index.json` and `state.json`. This class
 * is the store's one public face; its parts are modules of their own over one shared core
 * (store-core.ts): a conversation's record (conversation-files.ts), the leader's files
 * (leader-files.ts), sub-agents (agent-files.ts), imports (conversation-install.ts) and the boot
 * scan (store-scan.ts).
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
 * A conversation held in memory by its engine ({@link ConversationStore.open}) is read from
 * memory and written through its step log; any other is read from and written to its files.
 */
import "server-only";
import { promises as fs } from "node:fs";
import type { z } from "zod";
import { ListConversationsQuerySchema, type ConversationList, type StoreProblem } from "@/lib/contracts/http";
import { ValidationError, zodIssues } from "@/lib/contracts/errors";
import * as agents from "./agent-files";
import type { AgentList, CreateAgentInput } from "./agent-files";
import type { IndexReport } from "@/lib/contracts/index-report";
import * as conversations from "./conversation-files";
import type { ConversationPatch, CreateConversationInput } from "./conversation-files";
import type { FileQueues } from "./atomic";
import type { JsonLineFiles } from "./jsonl";
import { installConversation } from "./conversation-install";
import { readFolderFiles, type ReadBudget } from "./folder-files";
import * as leader from "./leader-files";
import { LiveConversation, type ChangeOptions, type Durability, type LeaderChangeOptions, type LoadReport } from "./live-conversation";
import { conversationDir, conversationsDir, leaderMessagesFile, parseConversationId, rolesDir } from "./paths";
import type { AgentMessagesFile, AgentMetadata, ConversationMetadata, LeaderMessagesFile } from "@/lib/contracts/on-disk";
import type { LoggedLineFile } from "./step-records";
import { StoreCore, type Mutator, type ProjectFolderGate, type StoreObserver } from "./store-core";
import type { ConversationCatalog, InstallMode } from "./catalog";

export { ConversationPatchSchema, type ConversationPatch, type CreateConversationInput } from "./conversation-files";
export type { AgentList, CreateAgentInput } from "./agent-files";
export type { StoreChange, StoreObserver } from "./store-core";

/** What a store is given by its creator. */
export interface ConversationStoreOptions {
  /** Checks a project folder; returns the path to keep (see {@link ProjectFolderGate}). */
  checkProjectFolder: ProjectFolderGate;
  /**
   * The per-file write queues of the process (./atomic.ts): the same instance every other writer
   * of the data folder is given, so no two writes of one file interleave.
   */
  queues: FileQueues;
  /**
   * The process's JSON Lines files (./jsonl.ts): the same instance everything that appends to a
   * conversation's timeline, context reports or journal is given.
   */
  lines: JsonLineFiles;
}

/**
 * Conversations, leader messages and sub-agents of one data folder. All writes are atomic,
 * validated against their schema and written as Python-style JSON.
 */
export class ConversationStore implements ConversationCatalog {
  /** The data folder (absolute). */
  readonly root: string;
  readonly #core: StoreCore;

  /**
   * @param options.checkProjectFolder the project folder rules, run when a conversation is
   *   created or imported (the server gives its workspace's `projectFolderCheckFor(root)`).
   */
  constructor(root: string, options: ConversationStoreOptions) {
    this.#core = new StoreCore(root, options);
    this.root = this.#core.root;
  }

  /** Adds an observer of every change this store makes; returns its removal. */
  observe(observer: StoreObserver): () => void {
    return this.#core.observe(observer);
  }

  /**
   * A number that changes whenever this store writes one of the conversation's files (metadata,
   * messages, agents), so a cache of something built from them (the SSE snapshot) knows it is stale
   * even when the write published no event (a rename, an archive).
   */
  version(id: string): number {
    return this.#core.version(id);
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
    const core = this.#core;
    let opening = core.opening.get(id);
    if (!opening) {
      opening = core.withConversationLock(id, async () => {
        const { live, report } = await core.tracked(leaderMessagesFile(this.root, id), () =>
          LiveConversation.load(this.root, id, core.lines, {
            onMetadata: (meta) => core.indexed(meta, true),
            onMessages: (agentId, at) => core.notify({ type: "messages", convId: id, agentId, at }),
            onAgent: (meta) => core.notify({ type: "agent", convId: id, meta }),
          }),
        );
        core.live.set(id, live);
        core.notify({ type: "opened", live });
        for (const { file, error } of report.broken) core.fileProblems.set(core.rel(file), core.problemOf(file, error));
        onLoad?.(report);
        return live;
      });
      core.opening.set(id, opening);
      opening.catch(() => core.opening.delete(id));
    }
    return opening;
  }

  /** Checkpoints an open conversation and lets it go from memory (a no-op when it is not open). */
  async closeConversation(id: string): Promise<void> {
    const opening = this.#core.opening.get(id);
    if (!opening) return;
    const live = await opening.catch(() => null);
    const forget = () => {
      if (this.#core.opening.get(id) === opening) this.#core.opening.delete(id);
      if (this.#core.live.get(id) === live) this.#core.live.delete(id);
    };
    // Held until the checkpoint is done: a change made meanwhile still goes through the step log and
    // is in the checkpoint, instead of racing it with a write of the files on disk.
    if (live) await live.close(forget);
    else forget();
  }

  /**
   * Commits what is queued for a conversation's JSON Lines files (timeline, context reports,
   * journal) and closes them, as the engine does when it lets the conversation go; a later append
   * opens them again.
   */
  async closeLineFiles(id: string): Promise<void> {
    await this.#core.lines.close(conversationDir(this.root, parseConversationId(id)));
  }

  /**
   * Checkpoints and lets go of every conversation held in memory, those whose close is under way
   * included (a clean shutdown waits for an idle release that began before it).
   */
  async closeAll(): Promise<void> {
    await Promise.all([...this.#core.opening.keys()].map((id) => this.closeConversation(id)));
  }

  /** Whether a conversation is held in memory. */
  isOpen(id: string): boolean {
    return this.#core.live.has(id);
  }

  /** How many conversations are held in memory (or loading). */
  get openCount(): number {
    return this.#core.opening.size;
  }

  // ---------------------------------------------------------------- problems, boot

  /**
   * Files the store could not use (path relative to the data folder, and what is wrong), and
   * every rebuild of index.json since boot (`GET /api/health` shows these).
   */
  problems(): StoreProblem[] {
    return this.#core.problems();
  }

  /** The in-memory conversation index: its size, when it was loaded, and every rebuild of index.json. */
  indexReport(): IndexReport {
    return this.#core.keeper.report();
  }

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
    await conversations.removeInterruptedDeletes(this.#core);
    await this.#core.keeper.ready();
    await this.#core.ensureState();
  }

  /** Writes what is due of index.json now (a clean stop). */
  flushIndex(): Promise<void> {
    return this.#core.keeper.flush();
  }

  // ---------------------------------------------------------------- conversations

  /**
   * Creates a conversation: claims a fresh id by creating its folder, writes metadata.json and
   * messages.json, then adds it to index.json and makes it `state.json`'s last conversation.
   * @throws ValidationError (details `[{path, message, reason?}]`) for a project folder that is
   *   refused (`reason`: see PROJECT_FOLDER_REFUSALS), or a bad title, model key or run mode.
   */
  create(input: CreateConversationInput): Promise<ConversationMetadata> {
    return conversations.createConversation(this.#core, input);
  }

  /**
   * Checks a project folder as {@link create} does (an import checks every conversation's before
   * writing any); returns the path to keep.
   * @throws ValidationError with `details[0].reason` for a refused folder.
   */
  checkProjectFolder(value: unknown): Promise<string> {
    return this.#core.checkProjectPath(value);
  }

  /**
   * A conversation's metadata.json.
   * @throws ValidationError for a malformed id, NotFoundError when it does not exist,
   *   CorruptFileError when its metadata.json cannot be used.
   */
  get(id: string, opts: ChangeOptions = {}): Promise<ConversationMetadata> {
    return this.#shown(id, opts, () => conversations.getConversation(this.#core, id));
  }

  /**
   * What a read of a held conversation gives is shown to someone: unless `eager` (the engine
   * reading its own state), it is answered once every change it may include is durable, so a
   * crash cannot take back what a person was shown (the engine makes its changes ahead of the
   * disk: ./live-conversation.ts `ChangeOptions`).
   */
  #shown<T>(id: string, opts: ChangeOptions, read: () => Promise<T>): Promise<T> {
    // The engine's own reads (every step makes several) take no extra turn through here.
    if (opts.eager) return read();
    return this.#shownDurably(id, read);
  }

  async #shownDurably<T>(id: string, read: () => Promise<T>): Promise<T> {
    const value = await read();
    const live = this.#core.live.get(id);
    if (live && !live.isDurable(live.durableMark)) await live.whenDurable();
    return value;
  }

  /**
   * Changes a conversation: either a patch of `title`, `status`, `phase`, `agent_count`,
   * `agent_ids`, or a function from the current metadata to the new one (it may not change `id`).
   * `updated_at` is set to now; messages.json's `title`/`updated_at` and the index entry follow.
   * Updates of one conversation are applied one after another, so none is lost.
   */
  update(id: string, patch: ConversationPatch | Mutator<ConversationMetadata>, opts: ChangeOptions = {}): Promise<ConversationMetadata> {
    return conversations.updateConversation(this.#core, id, patch, opts);
  }

  /**
   * Deletes a conversation's folder (moved out of sight first, so a half-deleted folder is never
   * listed), its index entry, and points `state.last_conversation_id` at the newest remaining
   * conversation (or null) when it named this one.
   */
  async remove(id: string): Promise<void> {
    parseConversationId(id);
    await this.#core.keeper.ready();
    await this.closeConversation(id);
    await conversations.removeConversation(this.#core, id);
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
    await this.#core.keeper.ready();
    const { offset, limit } = parsed.data;
    const page = this.#core.keeper.index.query(parsed.data);
    return { ...page, offset, limit, problems: this.#core.distinct(this.#core.unusableFiles()) };
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
   * data folder: `create` under a free `id`, `new_id` under a freshly claimed one, `replace` over
   * an existing conversation that is not held in memory (see conversation-install.ts).
   */
  installConversation(id: string, mode: InstallMode, files: (id: string) => Map<string, Uint8Array>): Promise<ConversationMetadata> {
    return installConversation(this.#core, id, mode, files);
  }

  // ---------------------------------------------------------------- timeline, context reports, journal

  /**
   * Appends `line` to one of a conversation's JSON Lines files (timeline.jsonl, context.jsonl,
   * actions.jsonl) and resolves once it is durable (see {@link ChangeOptions} for `eager`).
   */
  appendLine(id: string, name: LoggedLineFile, line: string, opts: ChangeOptions = {}): Promise<void> {
    return leader.appendLine(this.#core, id, name, line, opts);
  }

  /**
   * Where a conversation held in memory stands in its step log: a mark of every change made so
   * far, whether the changes before a mark are durable, and a wait for them (for a writer that
   * makes changes `eager`ly). Null when the conversation is not held: its changes are durable as made.
   */
  durability(id: string): Durability | null {
    return this.#core.live.get(id) ?? null;
  }

  // ---------------------------------------------------------------- leader messages

  /** The Team Leader's conversation (messages.json). */
  readLeaderMessages(id: string, opts: ChangeOptions = {}): Promise<LeaderMessagesFile> {
    return this.#shown(id, opts, () => leader.readLeaderMessages(this.#core, id));
  }

  /**
   * Read-modify-write of the Team Leader's messages.json. `id` and `title` stay those of the
   * conversation; `updated_at` becomes now and, unless `touch` is false, the conversation's
   * metadata.json and index entry get the same `updated_at` (so the list shows recent activity first).
   */
  updateLeaderMessages(id: string, fn: Mutator<LeaderMessagesFile>, opts: LeaderChangeOptions & ChangeOptions = {}): Promise<LeaderMessagesFile> {
    return leader.updateLeaderMessages(this.#core, id, fn, opts);
  }

  // ---------------------------------------------------------------- sub-agents

  /**
   * Creates a sub-agent in a conversation: takes the conversation's next agent id (one past every
   * id it has: its first agent is 1), counts it in state.json's `agent_id_counter` (the data
   * folder's count of agent instances, reserved in blocks), writes `agents/<agent_id>/metadata.json`
   * and `messages.json`, and adds the id to the conversation's `agent_ids` / `agent_count` (and the
   * index's `agent_count`). Resolves once durable, or with `eager` once made (see {@link ChangeOptions}).
   */
  createAgent(convId: string, input: CreateAgentInput, opts: ChangeOptions = {}): Promise<AgentMetadata> {
    return agents.createAgent(this.#core, convId, input, opts);
  }

  /** A sub-agent's metadata.json. */
  readAgentMetadata(convId: string, agentId: number | string, opts: ChangeOptions = {}): Promise<AgentMetadata> {
    return this.#shown(convId, opts, () => agents.readAgentMetadata(this.#core, convId, agentId));
  }

  /** Read-modify-write of a sub-agent's metadata.json (`agent_id` fixed, `updated_at` set to now). */
  updateAgentMetadata(convId: string, agentId: number | string, fn: Mutator<AgentMetadata>, opts: ChangeOptions = {}): Promise<AgentMetadata> {
    return agents.updateAgentMetadata(this.#core, convId, agentId, fn, opts);
  }

  /** A sub-agent's full conversation (messages.json). */
  readAgentMessages(convId: string, agentId: number | string, opts: ChangeOptions = {}): Promise<AgentMessagesFile> {
    return this.#shown(convId, opts, () => agents.readAgentMessages(this.#core, convId, agentId));
  }

  /** Read-modify-write of a sub-agent's messages.json (`agent_id` fixed, `updated_at` set to now). */
  updateAgentMessages(convId: string, agentId: number | string, fn: Mutator<AgentMessagesFile>, opts: ChangeOptions = {}): Promise<AgentMessagesFile> {
    return agents.updateAgentMessages(this.#core, convId, agentId, fn, opts);
  }

  /**
   * Every sub-agent of a conversation, by agent id. An agent whose metadata.json cannot be read,
   * or that the conversation lists but has no folder, is reported in `problems`, not thrown.
   */
  listAgents(convId: string, opts: ChangeOptions = {}): Promise<AgentList> {
    return this.#shown(convId, opts, () => agents.listAgents(this.#core, convId));
  }
}
