import "server-only";
/**
 * One conversation's files held in memory by their single writer (the conversation engine),
 * loaded once and made durable through one write path (the JSON Lines files beside them, the
 * timeline, context reports and action journal, go through it too: lib/store/logged-lines.ts):
 *
 * 1. A change is applied in memory, then recorded in the conversation's step log
 *    (`steps.jsonl`, an addition to the seed's layout) — one fsync per tick for every change made
 *    in it, whichever agent made it ({@link StepLog}).
 * 2. Once the record is durable, the change is acknowledged (an `eager` change resolves as soon as
 *    it is queued, and its writer waits with {@link LiveConversation.whenDurable} before it shows
 *    it to anyone), and the seed files it touched are
 *    rewritten from memory in the background, atomically (temp file + rename) but without their
 *    own fsync: the log already holds the change. A burst of changes costs one rewrite per file.
 * 3. When the log grows past {@link CHECKPOINT_BYTES}, and when the conversation is closed, every
 *    seed file is written durably and the log is emptied (a checkpoint).
 *
 * Recovery ({@link LiveConversation.load}) reads the seed files and replays the log over them.
 * Every record is idempotent: metadata records carry the whole (small) file, messages records
 * carry the messages from a position on (`at`), so a record applied to a file that already holds
 * it changes nothing. The seed files on disk are always complete, valid JSON in the seed's
 * format; after a crash they are at most a few records behind the log, and a load catches up.
 *
 * A change whose mutator hands back the very object it was given changes nothing and writes
 * nothing (not even `updated_at`).
 *
 * Reads never touch the disk. Writes validate only what changed (the new messages, the small
 * metadata), so a step costs O(what it adds) plus the seed's whole-file rewrite of messages.json.
 */
import path from "node:path";
import { NotFoundError, ValidationError } from "@/lib/contracts/errors";
import { readJsonFile } from "./files";
import { toPythonJson } from "./json";
import { MessagesFileText } from "./messages-json";
import { conversationDir, conversationMetadataFile, leaderMessagesFile } from "./paths";
import {
  AgentMessagesFileSchema,
  AgentMetadataSchema,
  ConversationMetadataSchema,
  LeaderMessagesFileSchema,
  type AgentMessagesFile,
  type AgentMetadata,
  type ConversationMetadata,
  type LeaderMessagesFile,
} from "@/lib/contracts/on-disk";
import { ChangeQueues } from "./change-queues";
import { SeedWriter } from "./seed-writer";
import { openStepLog, type StepLog } from "./step-log";
import type { JsonLineFiles } from "./jsonl";
import { LineFiles, restoreLines } from "./logged-lines";
import { readAgentFolders, replayLog, type AgentFiles } from "./live-load";
import { CHECKPOINT_BYTES, seedFilePath, seedKeys, STEP_LOG_FILE, type ChangeOptions, type Durability, type FileKey, type LeaderChangeOptions, type LiveHooks, type LoadReport, type Mutator } from "./live-contract";
import { checked, checkedChange, checkedMessagesChange, headOf, messagesDelta, rebased, type LoggedLineFile, type StepRecord } from "./step-records";
import { localTimestamp } from "./time";

export { messagesDelta, type StepRecord } from "./step-records";
export { STEP_LOG_FILE, type ChangeOptions, type Durability, type LeaderChangeOptions, type LiveHooks, type LoadReport, type Mutator } from "./live-contract";

/** A conversation's files in memory, with their one durable write path. */
export class LiveConversation implements Durability {
  readonly root: string;
  readonly id: string;
  #meta: ConversationMetadata;
  #leader: LeaderMessagesFile;
  readonly #agents = new Map<number, AgentFiles>();
  readonly #log: StepLog;
  readonly #hooks: LiveHooks;
  /** Rewrites the seed files from memory once the log holds their changes. */
  readonly #seed: SeedWriter<FileKey>;
  /** The timeline, context reports and journal beside the seed files, made durable by the log. */
  readonly #lines: LineFiles;
  /** Per-file queues and the count of changes under way (./change-queues.ts). */
  readonly #changes = new ChangeQueues();
  readonly #messagesText = new MessagesFileText(); // each message's bytes kept for the next rewrite
  #checkpointing: Promise<void> | null = null;
  #closed = false;

  private constructor(root: string, id: string, meta: ConversationMetadata, leader: LeaderMessagesFile, log: StepLog, lines: JsonLineFiles, hooks: LiveHooks) {
    this.root = root;
    this.id = id;
    this.#seed = new SeedWriter({ path: (key) => seedFilePath(root, id, key), text: (key) => this.#textOf(key) }, `conversation ${id}`);
    this.#lines = new LineFiles(conversationDir(root, id), lines);
    this.#meta = meta;
    this.#leader = leader;
    this.#log = log;
    this.#hooks = hooks;
  }

  /**
   * Loads a conversation: its seed files, then the step log replayed over them. When records were
   * replayed, the seed files are rewritten durably and the log emptied. Its JSON Lines files are
   * written through `jsonLines`, the process's (the store's).
   * @throws NotFoundError when the conversation does not exist; CorruptFileError for a broken file.
   */
  static async load(root: string, id: string, jsonLines: JsonLineFiles, hooks: LiveHooks = {}): Promise<{ live: LiveConversation; report: LoadReport }> {
    const meta = await readJsonFile(conversationMetadataFile(root, id), ConversationMetadataSchema).catch((error: unknown) => {
      if (error instanceof NotFoundError) throw new NotFoundError(`Conversation ${id} does not exist`, { id });
      throw error;
    });
    const leader = await readJsonFile(leaderMessagesFile(root, id), LeaderMessagesFileSchema);
    const { log, records, repairedBytes } = await openStepLog(path.join(conversationDir(root, id), STEP_LOG_FILE));
    const live = new LiveConversation(root, id, meta, leader, log, jsonLines, hooks);
    let broken: LoadReport["broken"] = [];
    try {
      const found = await readAgentFolders(root, id);
      const files = { meta, leader, agents: found.agents };
      const replayed = replayLog(files, records, found.broken);
      const lines = replayed.lines;
      broken = replayed.broken;
      live.#meta = files.meta;
      live.#leader = files.leader;
      for (const [agentId, agent] of files.agents) live.#agents.set(agentId, agent);
      if (lines.length) await restoreLines(jsonLines, conversationDir(root, id), lines);
      if (records.length) {
        // The replay changed memory, not the files: every file is written from it, durably.
        live.#seed.mark(seedKeys(live.agentIds()));
        await live.checkpoint();
      }
    } catch (error) {
      await log.close();
      throw error;
    }
    return { live, report: { replayed: records.length, repairedBytes, broken } };
  }

  // ---------------------------------------------------------------- reads (memory only)

  /** metadata.json. */
  get metadata(): ConversationMetadata {
    return this.#meta;
  }

  /** The Team Leader's messages.json. */
  get leader(): LeaderMessagesFile {
    return this.#leader;
  }

  /** The step log's counters (records committed, syncs). */
  get logStats(): { records: number; syncs: number; bytes: number } {
    return { ...this.#log.stats };
  }

  /** Ids of the sub-agents, ascending. */
  agentIds(): number[] {
    return [...this.#agents.keys()].sort((a, b) => a - b);
  }

  #agent(agentId: number): AgentFiles {
    const files = this.#agents.get(agentId);
    if (!files) throw new NotFoundError(`Agent ${agentId} of conversation ${this.id} does not exist`, { id: this.id, agent_id: agentId });
    return files;
  }

  /** A sub-agent's metadata.json. */
  agentMetadata(agentId: number): AgentMetadata {
    return this.#agent(agentId).meta;
  }

  /** A sub-agent's messages.json. */
  agentMessages(agentId: number): AgentMessagesFile {
    return this.#agent(agentId).messages;
  }

  /** Every sub-agent's metadata, by id. */
  agents(): AgentMetadata[] {
    return this.agentIds().map((id) => this.#agents.get(id)!.meta);
  }

  // ---------------------------------------------------------------- writes

  /** Changes metadata.json (`id` fixed, `updated_at` now); resolves once durable (see {@link ChangeOptions}). */
  updateMetadata(fn: Mutator<ConversationMetadata>, opts: ChangeOptions = {}): Promise<ConversationMetadata> {
    return this.#changes.serial("meta", async () => {
      this.#assertOpen();
      const base = this.#meta;
      const changed = await fn(base);
      return changed === base ? changed : this.#applyMetadata(rebased(base, changed, this.#meta), opts);
    });
  }

  async #applyMetadata(changed: ConversationMetadata, opts: ChangeOptions): Promise<ConversationMetadata> {
    const next = checkedChange(ConversationMetadataSchema, this.#meta, { ...changed, id: this.id, updated_at: localTimestamp() }, "metadata.json");
    this.#meta = next;
    const leader = this.#syncLeaderHeader();
    await this.#commit(leader ? [{ k: "conv", v: next }, leader] : [{ k: "conv", v: next }], leader ? ["meta", "leader"] : ["meta"], opts, () => this.#hooks.onMetadata?.(next));
    return next;
  }

  /**
   * messages.json keeps the conversation's title. Its `updated_at` moves with its own messages:
   * a metadata change (a seed id counter, the phase) does not rewrite the leader's whole transcript.
   */
  #syncLeaderHeader(): StepRecord | null {
    if (this.#leader.title === this.#meta.title) return null;
    this.#leader = { ...this.#leader, title: this.#meta.title, updated_at: this.#meta.updated_at };
    return { k: "leader", at: this.#leader.messages.length, add: [], head: headOf(this.#leader) };
  }

  /**
   * Changes the Team Leader's messages.json (`id`, `title` kept, `updated_at` now); metadata.json
   * gets the same `updated_at` unless `touch` is false, and `metadata`'s fields. Resolves once durable.
   */
  updateLeader(fn: Mutator<LeaderMessagesFile>, opts: LeaderChangeOptions & ChangeOptions = {}): Promise<LeaderMessagesFile> {
    return this.#changes.serial("leader", async () => {
      this.#assertOpen();
      const changed = await fn(this.#leader);
      return changed === this.#leader ? changed : this.#applyLeader(this.#leader, changed, opts);
    });
  }

  async #applyLeader(prev: LeaderMessagesFile, changed: LeaderMessagesFile, opts: LeaderChangeOptions & ChangeOptions): Promise<LeaderMessagesFile> {
    const now = localTimestamp();
    const next = { ...changed, id: this.id, title: this.#meta.title, updated_at: now };
    const { at, add } = messagesDelta(prev.messages, next.messages);
    checkedMessagesChange(LeaderMessagesFileSchema, prev, next, add, "messages.json");
    const touch = opts.touch !== false;
    const fields = opts.metadata?.(next);
    // Checked before anything is applied, so a refused field leaves both files as they were.
    const meta = touch || fields ? checkedChange(ConversationMetadataSchema, this.#meta, { ...this.#meta, ...fields, id: this.id, updated_at: touch ? now : this.#meta.updated_at }, "metadata.json") : this.#meta;
    const metaChanged = meta !== this.#meta;
    this.#leader = next;
    this.#meta = meta;
    const leader: StepRecord = { k: "leader", at, add, head: headOf(next) };
    await this.#commit(metaChanged ? [leader, { k: "conv", v: meta }] : [leader], metaChanged ? ["leader", "meta"] : ["leader"], opts, async () => {
      this.#hooks.onMessages?.(null, at);
      if (metaChanged) await this.#hooks.onMetadata?.(meta);
    });
    return next;
  }

  /**
   * Adds a sub-agent: both of its files in one record of the step log, its folder written from
   * memory like every seed file (created by the writer). Resolves once durable (see {@link ChangeOptions}).
   */
  createAgent(meta: AgentMetadata, messages: AgentMessagesFile, opts: ChangeOptions = {}): Promise<void> {
    const agentId = meta.agent_id;
    if (this.#agents.has(agentId)) throw new ValidationError(`Agent ${agentId} of conversation ${this.id} exists already`, [{ path: "agent_id", message: "taken" }]);
    checked(AgentMetadataSchema, meta, `agent ${agentId}'s metadata.json`);
    checked(AgentMessagesFileSchema, messages, `agent ${agentId}'s messages.json`);
    this.#agents.set(agentId, { meta, messages });
    return this.#commit([{ k: "agent_new", id: agentId, v: meta, messages }], [`agent:${agentId}`, `agent_messages:${agentId}`], opts, () => this.#hooks.onAgent?.(meta));
  }

  /** Changes a sub-agent's metadata.json (`agent_id` fixed, `updated_at` now); resolves once durable (see {@link ChangeOptions}). */
  updateAgentMetadata(agentId: number, fn: Mutator<AgentMetadata>, opts: ChangeOptions = {}): Promise<AgentMetadata> {
    const files = this.#agent(agentId);
    return this.#changes.serial(`agent:${agentId}`, async () => {
      this.#assertOpen();
      const changed = await fn(files.meta);
      if (changed === files.meta) return changed;
      const next = checkedChange(AgentMetadataSchema, files.meta, { ...changed, agent_id: agentId, updated_at: localTimestamp() }, `agent ${agentId}'s metadata.json`);
      files.meta = next;
      await this.#commit([{ k: "agent", id: agentId, v: next }], [`agent:${agentId}`], opts, () => this.#hooks.onAgent?.(next));
      return next;
    });
  }

  /** Changes a sub-agent's messages.json (`agent_id` fixed, `updated_at` now); resolves once durable (see {@link ChangeOptions}). */
  updateAgentMessages(agentId: number, fn: Mutator<AgentMessagesFile>, opts: ChangeOptions = {}): Promise<AgentMessagesFile> {
    const files = this.#agent(agentId);
    return this.#changes.serial(`agent_messages:${agentId}`, async () => {
      this.#assertOpen();
      const changed = await fn(files.messages);
      return changed === files.messages ? changed : this.#applyAgentMessages(agentId, files, changed, opts);
    });
  }

  async #applyAgentMessages(agentId: number, files: AgentFiles, changed: AgentMessagesFile, opts: ChangeOptions): Promise<AgentMessagesFile> {
    const prev = files.messages;
    const next = { ...changed, agent_id: agentId, updated_at: localTimestamp() };
    const { at, add } = messagesDelta(prev.messages, next.messages);
    checkedMessagesChange(AgentMessagesFileSchema, prev, next, add, `agent ${agentId}'s messages.json`);
    files.messages = next;
    await this.#commit([{ k: "agent_messages", id: agentId, at, add, head: headOf(next) }], [`agent_messages:${agentId}`], opts, () => this.#hooks.onMessages?.(agentId, at));
    return next;
  }

  /**
   * Appends `line` to one of the JSON Lines files beside the seed files (timeline, context
   * reports, action journal): recorded in the step log with the tick's other changes and written
   * to its file in the same tick; resolves once both are done (durable through the log), or with
   * `eager` once both are queued.
   */
  appendLine(name: LoggedLineFile, line: string, opts: ChangeOptions = {}): Promise<void> {
    this.#assertOpen();
    return this.#changes.track(
      (async () => {
        while (this.#checkpointing) await this.#checkpointing;
        this.#assertDurable();
        const written = Promise.all([this.#log.append({ k: "line", f: name, line }), this.#lines.write(name, line)]).then(async () => {
          if (this.#log.size > CHECKPOINT_BYTES && !this.#checkpointing) await this.checkpoint();
        });
        if (opts.eager) this.#background(written);
        else await written;
      })(),
    );
  }

  // ---------------------------------------------------------------- durability

  #assertOpen(): void {
    if (this.#closed) throw new Error(`conversation ${this.id} was closed`);
  }

  /** A change cannot be made once the log failed: nothing after it could become durable. */
  #assertDurable(): void {
    const failed = this.#log.failed;
    if (failed) throw new Error(`conversation ${this.id} cannot save changes: its step log failed (${failed.message})`);
  }

  /** An eager change's write, counted as under way until it settles (close waits for it); its failure poisons the log, which later changes and waiters see. */
  #background(write: Promise<void>): void {
    this.#changes.track(write).catch(() => undefined);
  }

  /**
   * Records a change in the step log; `durable` runs once it is durable (the store's hooks: the
   * index and the history search learn only of changes a crash cannot take back).
   */
  async #commit(records: StepRecord[], keys: FileKey[], opts: ChangeOptions, durable?: () => unknown): Promise<void> {
    this.#assertOpen();
    while (this.#checkpointing) await this.#checkpointing;
    this.#assertDurable();
    this.#seed.mark(keys);
    const logged = Promise.all(records.map((r) => this.#log.append(r))).then(async () => {
      // Durable now (the log). The seed files follow in the background (lib/store/seed-writer.ts).
      this.#seed.soon();
      if (this.#log.size > CHECKPOINT_BYTES && !this.#checkpointing) await this.checkpoint();
      await durable?.();
    });
    if (opts.eager) this.#background(logged);
    else await logged;
  }

  /** A position in the step log: every change made so far is durable once {@link isDurable} says so for it. */
  get durableMark(): number {
    return this.#log.mark;
  }

  /** Whether every change made before `mark` is durable. */
  isDurable(mark: number): boolean {
    return this.#log.isDurable(mark);
  }

  /** Resolves once every change made before `mark` (default: now) is durable; rejects when the log failed. */
  whenDurable(mark?: number): Promise<void> {
    return this.#log.whenDurable(mark);
  }

  /** Resolves once the seed files on disk show every change made so far (readers of the files, tests). */
  async flushed(): Promise<void> {
    await this.#seed.all();
  }

  #textOf(key: FileKey): string | Uint8Array {
    if (key === "meta") return toPythonJson(this.#meta);
    if (key === "leader") return this.#messagesText.bytes(this.#leader);
    const [kind, raw] = key.split(":") as [string, string], files = this.#agent(Number(raw));
    return kind === "agent" ? toPythonJson(files.meta) : this.#messagesText.bytes(files.messages);
  }

  async #writeCheckpoint(): Promise<void> {
    await this.#log.drain();
    await this.#seed.all(true);
    await this.#lines.sync();
    await this.#log.truncate();
  }

  /**
   * Makes every seed file durable and empties the log. New changes wait until it is done. A file
   * is rewritten only when it changed since it was last written (one a background pass wrote is
   * synced in place), so a checkpoint costs what changed, not the whole conversation.
   */
  async checkpoint(): Promise<void> {
    if (this.#checkpointing) return this.#checkpointing;
    this.#checkpointing = this.#writeCheckpoint();
    try {
      await this.#checkpointing;
    } finally {
      this.#checkpointing = null;
    }
  }

  /**
   * Checkpoints, then runs `fn` before any new change reaches the disk: while `fn` runs, every
   * file of the folder shows the same moment (all that was acknowledged, nothing torn, the log
   * empty), so a reader (an export) sees what a person was shown. Changes wait meanwhile, as they
   * wait for a checkpoint; keep `fn` short (read files, no network).
   */
  async frozen<T>(fn: () => Promise<T>): Promise<T> {
    while (this.#checkpointing) await this.#checkpointing.catch(() => undefined);
    this.#assertOpen();
    const run = (async () => {
      await this.#writeCheckpoint();
      return fn();
    })();
    // Changes wait on this promise as they wait on a checkpoint (it never rejects for them).
    this.#checkpointing = run.then(
      () => undefined,
      () => undefined,
    );
    try {
      return await run;
    } finally {
      this.#checkpointing = null;
    }
  }

  /** Closes the log without a checkpoint, as a crash would (it replays at the next load): a failed disk, tests. */
  async detach(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#seed.stop();
    await this.#log.close().catch(() => undefined);
  }

  /**
   * Checkpoints and closes the log; the object can no longer change. A conversation that did not
   * change since its load or last checkpoint (an empty log) has its seed files complete and
   * durable already: nothing is rewritten, so letting go of one that was only viewed costs no write.
   * `onClosed` runs at the moment changes stop being accepted (in the same tick), so a holder can
   * stop routing changes here exactly then: until that moment this object takes them, and after it
   * the files on disk are complete. One close however many ask (an idle release and a shutdown
   * can overlap): a later caller's promise resolves, and its `onClosed` runs, once it is done.
   */
  close(onClosed?: () => void): Promise<void> {
    if (this.#closing) return this.#closing.then(() => onClosed?.());
    return (this.#closing = this.#close(onClosed));
  }

  #closing: Promise<void> | null = null;

  async #close(onClosed?: () => void): Promise<void> {
    if (this.#closed) return;
    // Every change a caller began before the close (queued behind another change of its file, or
    // waiting for a checkpoint) is made and checkpointed, not refused: a loop's step that was under
    // way when the conversation was let go (a clean shutdown, an idle release) is never lost, and
    // never left in the log for a replay to apply over files that may have been edited since.
    for (;;) {
      await this.#changes.settled();
      await this.#log.drain();
      if (this.#log.size > 0 || this.#seed.pending || this.#checkpointing) await this.checkpoint();
      if (this.#changes.busy === 0 && this.#log.size === 0 && !this.#seed.pending) break;
    }
    this.#closed = true;
    onClosed?.();
    await this.#seed.stop();
    await this.#log.close();
  }
}
