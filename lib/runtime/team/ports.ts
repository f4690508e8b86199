import "server-only";
/**
 * The engine's ports: the only storage and messaging it knows. The team run (lib/runtime/team/*)
 * reaches its conversation's state only through {@link EngineStorage} and talks to viewers and to
 * its own loops only through {@link EngineBus} (it imports types, schemas and pure helpers such as
 * topic names from lib/store and lib/bus, never their I/O). The role library is outside these
 * ports (a folder of the data root, read through its module); the shared context is a file of the
 * conversation like the others ({@link ConversationFiles.updateSharedContext}).
 *
 * The composition root (lib/server/app.ts) chooses the implementations: today the file store (the
 * seed's JSON files, made durable through the conversation's step log: lib/store, adapted in
 * lib/server/file-storage.ts) and the in-process bus (lib/bus). Another backend (a PostgreSQL
 * store, a Redis bus) implements these interfaces and is handed to the engine instead; the engine
 * does not change, and names no implementation. What an implementation must guarantee is written
 * on each member.
 */
import type { Bus } from "@/lib/bus";
import type { TimelineRecord } from "@/lib/protocol";
import type { AgentMessagesFile, AgentMetadata, ConversationMetadata, LeaderMessagesFile } from "@/lib/contracts/on-disk";
import type { AgentList, ConversationPatch, CreateAgentInput, Durability, LeaderChangeOptions, LoggedLineFile, Mutator } from "@/lib/store";
import type { JournalState } from "@/lib/contracts/journal";
import type { SharedContextFile } from "@/lib/shared-context/schema";

/** Per-call context reports of a conversation (an addition to the seed's layout). */
export const CONTEXT_FILE_NAME = "context.jsonl";

/**
 * One conversation's files as the engine reads and changes them: the seed's metadata.json, the
 * Team Leader's messages.json, each sub-agent's metadata.json and messages.json (the types
 * are the on-disk contract's, lib/contracts/on-disk.ts), and the shared context
 * (shared_context.json, lib/shared-context/schema.ts). The file store implements it through
 * lib/server/file-storage.ts; another backend writes out every member with the same guarantees
 * (test/conformance states them as tests, which every implementation must pass unchanged).
 *
 * What holds for every member:
 * - Ids: a conversation id must look like `conv_YYYYMMDD_HHMMSS_NNN` (`ValidationError`
 *   otherwise); a well-formed id of a conversation the storage does not hold, or an agent id the
 *   conversation does not have, rejects with `NotFoundError` (lib/contracts/errors.ts).
 * - Reads of an open conversation are served from memory (the engine is its single writer), and a
 *   read after a change has resolved sees that change, durable or not.
 * - Changes of one file are applied one at a time, in the order they were asked for: a mutator
 *   sees the result of every change asked for before it, so none is lost. A mutator must not
 *   change the value it is given; it returns the new one (it may be async). A change that would
 *   make a file invalid for its schema rejects with `ValidationError` and changes nothing.
 * - A change resolves once it is applied and ordered for durability, not once it is durable: the
 *   engine computes ahead while the storage commits, and waits on
 *   {@link EngineStorage.durability} before it publishes, acknowledges or runs a side effect.
 *   Changes become durable in the order they were made, across all of a conversation's files
 *   and lines ({@link EngineStorage.durability}), and a crash keeps every change that was durable.
 * - `updated_at` is set to now (`localTimestamp()`, lib/store/time.ts: ISO local time with
 *   seconds, no zone) on every file a change writes; the ids in a file (`id`, `agent_id`) cannot
 *   be changed by it. A mutator that hands back the very object it was given may be taken as no
 *   change at all (nothing written, `updated_at` kept).
 */
export interface ConversationFiles {
  /** The conversation's metadata.json. */
  get(id: string): Promise<ConversationMetadata>;
  /**
   * Changes metadata.json by a patch (checked against `ConversationPatchSchema`: a bad one rejects
   * with `ValidationError`) or a mutator, which gets a copy of the current metadata and may not
   * change `id` (`ValidationError`). `updated_at` becomes now; messages.json's `title` follows
   * the new title. Resolves with the new metadata.
   */
  update(id: string, patch: ConversationPatch | Mutator<ConversationMetadata>): Promise<ConversationMetadata>;
  /** The Team Leader's messages.json. */
  readLeaderMessages(id: string): Promise<LeaderMessagesFile>;
  /**
   * Changes the Team Leader's messages.json: its `id` and `title` stay the conversation's whatever
   * the mutator returns, `updated_at` becomes now and, unless `touch` is false, metadata.json's
   * `updated_at` becomes the same (so the list shows recent activity first). `metadata` gives
   * fields of metadata.json worked out from the new file, set in the same change (its `updated_at`
   * moves only when touched). Resolves with the new file.
   */
  updateLeaderMessages(id: string, fn: Mutator<LeaderMessagesFile>, opts?: LeaderChangeOptions): Promise<LeaderMessagesFile>;
  /**
   * Adds a sub-agent: takes the conversation's next agent id (agents are numbered within their
   * conversation: one past its highest id, 1 for its first; never handed out twice in it, a
   * reopen or a crash included), makes its metadata.json (`status` running, `display_name`
   * `<role_name>_<agent_id>`, `model_key` by default the conversation's, `thinking_mode` by
   * default `fast` for a conversation that runs fast and `thinking` otherwise, no pending
   * messages or tool calls) and an empty messages.json, and adds the id to the conversation's
   * `agent_ids` (ascending) and `agent_count`, all as changes made together. A blank `role_id`
   * or `role_name` rejects with `ValidationError`. Resolves with the agent's metadata.
   */
  createAgent(convId: string, input: CreateAgentInput): Promise<AgentMetadata>;
  /** A sub-agent's metadata.json. */
  readAgentMetadata(convId: string, agentId: number): Promise<AgentMetadata>;
  /** Changes a sub-agent's metadata.json (`agent_id` fixed, `updated_at` now); resolves with the new file. */
  updateAgentMetadata(convId: string, agentId: number, fn: Mutator<AgentMetadata>): Promise<AgentMetadata>;
  /** A sub-agent's messages.json. */
  readAgentMessages(convId: string, agentId: number): Promise<AgentMessagesFile>;
  /** Changes a sub-agent's messages.json (`agent_id` fixed, `updated_at` now); resolves with the new file. */
  updateAgentMessages(convId: string, agentId: number, fn: Mutator<AgentMessagesFile>): Promise<AgentMessagesFile>;
  /**
   * Every sub-agent of the conversation, ascending by agent id; an agent that cannot be read is
   * left out and reported in `problems` (a storage that cannot have such an agent reports none).
   */
  listAgents(convId: string): Promise<AgentList>;
  /**
   * Appends `line` to one of the conversation's JSON Lines files (timeline, context reports,
   * action journal), ordered and made durable with the conversation's other changes.
   */
  appendLine(convId: string, name: LoggedLineFile, line: string): Promise<void>;
  /**
   * The conversation's shared context (its entries, the writes waiting for a person, recent
   * resolutions); an empty one (`emptySharedContext()`) when nothing was written yet.
   * @throws CorruptFileError when what is stored does not fit its schema.
   */
  readSharedContext(convId: string): Promise<SharedContextFile>;
  /**
   * Changes the shared context by a mutator (arbitration is the mutator's: lib/shared-context
   * `applyWrite` / `applyDecision`), with the guarantees of every change above: one at a time in
   * the order asked, each mutator seeing the result of the ones before (no update lost); a
   * result that does not fit `SharedContextFileSchema` rejects with `ValidationError` and changes
   * nothing; it resolves once applied and ordered for durability with the conversation's other
   * changes. Resolves with the new document. A storage with leases refuses it like any other
   * write when its lease is lost.
   */
  updateSharedContext(convId: string, fn: Mutator<SharedContextFile>): Promise<SharedContextFile>;
}

/**
 * The action journal of one conversation: a key is durably `started` before its effect runs (the
 * call resolves once durable), `done` with its result after (resolves once ordered after it; a
 * crash that loses it leaves the key `started`, reported as interrupted). Its records are lines
 * of the conversation (`actions.jsonl` in the file store), ordered and made durable with its
 * other changes, so a journal got after a reopen knows every key whose record was durable.
 */
export interface EffectJournal {
  /**
   * What is known of `key`: `none` before any record, `started` after a `started` with no `done`
   * (across a reopen or a crash too), `done` with its result after a `done` (a later `started` of
   * the same key does not take it back).
   */
  state(key: string): Promise<JournalState>;
  /**
   * Records that the action under `key` is about to run; resolves once the record is durable, or
   * with `ordered` once it is ordered with the conversation's changes (for an action made only of
   * changes ordered after it: a crash that loses the record loses them too).
   */
  started(key: string, options?: { ordered?: boolean }): Promise<void>;
  /** Records the action's result; resolves once the record is ordered after the ones before it (durable later, in order). */
  done(key: string, result: string): Promise<void>;
}

/** Storage of the engine. What each member must guarantee is written on it; test/conformance checks it. */
export interface EngineStorage {
  /** The conversations' seed files (metadata, messages, agents). */
  readonly conversations: ConversationFiles;
  /**
   * Appends a record to a conversation's timeline, in call order, ordered with the conversation's
   * changes and made durable like them (it resolves once ordered, as a change does).
   */
  appendTimeline(convId: string, record: TimelineRecord): Promise<void>;
  /** Appends one call's context report (a JSON line) to a conversation's reports, ordered like the timeline. */
  appendContextReport(convId: string, line: string): Promise<void>;
  /** The action journal of a conversation (one object per conversation, kept while the run lives). */
  journal(convId: string): EffectJournal;
  /**
   * Where a conversation's changes stand (its changes, timeline, reports and journal records): a
   * mark of every change made so far (`durableMark`, never smaller than an earlier one), whether
   * the changes before a mark are durable (once true, true for good), and a wait for them
   * (`whenDurable(mark)`, default: every change made so far; it resolves once they are durable,
   * and rejects when they can no longer become durable). Durability follows the order of changes:
   * a later change is never durable before an earlier one. Null when every change is durable as
   * it is made.
   */
  durability(convId: string): Durability | null;
  /**
   * Called after background work that may have appended to a conversation once its run was let
   * go (memory distillation's timeline event): a storage that holds something open per
   * conversation lets go of it unless the conversation is held again (the file store closes its
   * JSON Lines files). Leave it out when there is nothing to let go of. Never rejects.
   */
  letGo?(convId: string): Promise<void>;
}

/**
 * Messages of the engine: the publish and subscribe of the bus port (lib/bus/port.ts, which says
 * what an implementation must do): events for a conversation's viewers (`conv:<id>` topics,
 * which a viewer may replay from an event id) and wake-ups of an agent's loop
 * (`conv:<id>:agent:<n>` topics). Delivery to the subscribers of one topic keeps the order of
 * publication.
 */
export type EngineBus = Pick<Bus, "publish" | "subscribe">;

/**
 * How the engine holds conversations in a storage (lib/runtime/engine.ts): a conversation is
 * opened for its single writer (the engine) before a run uses it, let go when nothing holds it,
 * and found again at boot. A storage with nothing to open or close does nothing in `open` and `close`.
 */
export interface ConversationLifecycle {
  /** Opens a conversation for writing (the file store loads it and replays its step log). Rejects with `NotFoundError` for one it does not hold. */
  open(convId: string): Promise<void>;
  /** Lets a conversation go: every change durable and in its seed files, nothing held open for it. */
  close(convId: string): Promise<void>;
  /** Lets every open conversation go (a clean shutdown). */
  closeAll(): Promise<void>;
  /** The active conversations' ids, a page at a time in a stable order, and how many there are. */
  listActive(page: { offset: number; limit: number }): Promise<{ ids: string[]; total: number }>;
  /**
   * Tells `listener` when a conversation open here can no longer be written (another instance
   * took its lease over, its commits are lost): the engine stops its run at once. Returns the
   * removal. Absent: a storage whose writes are never refused (the data folder).
   */
  watchFailures?(listener: (convId: string, error: Error) => void): () => void;
  /**
   * Active conversations whose lease expired without being released (the instance that ran them
   * died), not open here, at most `limit`: what a takeover resumes. Absent: a storage without
   * leases (the data folder has one server).
   */
  orphaned?(limit: number): Promise<Array<{ id: string; owner: string; expiredAt: Date }>>;
  /**
   * After `open`: whether opening it took it from another instance (one that never let it go: it
   * died mid-run; or one that let it go, having run it last) and its run was not taken up yet;
   * true once. The engine then resumes the run, whatever request opened it, so its loops go on
   * and its agents get their tokens on this instance. Absent: a storage that never takes a
   * conversation from another instance.
   */
  takeOrphan?(convId: string): boolean;
}
