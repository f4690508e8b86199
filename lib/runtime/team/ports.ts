import "server-only";
/**
 * The engine's ports: the only storage and messaging it knows. The team run (lib/runtime/team/*)
 * reaches its conversation's state only through {@link EngineStorage} and talks to viewers and to
 * its own loops only through {@link EngineBus} (it imports types, schemas and pure helpers such as
 * topic names from lib/store and lib/bus, never their I/O). The role library and the shared
 * context are outside these ports (they are folders of the data root, read through their modules).
 *
 * The defaults are the file store (the seed's JSON files, made durable through the conversation's
 * step log: lib/store) and the in-process bus (lib/bus). Another backend (a PostgreSQL store, a
 * Redis bus) implements these interfaces and is handed to the runtime instead; the engine does not
 * change. What an implementation must guarantee is written on each member.
 */
import path from "node:path";
import type { Bus } from "@/lib/bus";
import { TIMELINE_FILE_NAME, timelineLine, type TimelineRecord } from "@/lib/protocol";
import type { ConversationStore, Durability } from "@/lib/store";
import { ActionJournal, JOURNAL_FILE_NAME, type JournalState } from "./journal";

/** Per-call context reports of a conversation (an addition to the seed's layout). */
export const CONTEXT_FILE_NAME = "context.jsonl";

/**
 * One conversation's files as the engine reads and changes them. Reads of an open conversation
 * must be served from memory (the engine is its single writer); changes to one file are applied
 * in order. A change resolves once it is applied and ordered for durability, not once it is
 * durable: the engine computes ahead while the storage commits, and waits on
 * {@link EngineStorage.durability} before it publishes, acknowledges or runs a side effect.
 */
export type ConversationFiles = Pick<
  ConversationStore,
  | "get"
  | "update"
  | "readLeaderMessages"
  | "updateLeaderMessages"
  | "createAgent"
  | "readAgentMetadata"
  | "updateAgentMetadata"
  | "readAgentMessages"
  | "updateAgentMessages"
  | "listAgents"
  | "appendLine"
>;

/**
 * The action journal of one conversation: a key is durably `started` before its effect runs (the
 * call resolves once durable), `done` with its result after (resolves once ordered after it; a
 * crash that loses it leaves the key `started`, reported as interrupted).
 */
export interface EffectJournal {
  state(key: string): Promise<JournalState>;
  started(key: string, options?: { ordered?: boolean }): Promise<void>;
  done(key: string, result: string): Promise<void>;
}

/** Storage of the engine. */
export interface EngineStorage {
  /** The conversations' seed files (metadata, messages, agents). */
  readonly conversations: ConversationFiles;
  /** Appends a record to a conversation's timeline, ordered with the conversation's changes (durable like them). */
  appendTimeline(convId: string, record: TimelineRecord): Promise<void>;
  /** Appends one call's context report (a JSON line) to a conversation's reports, ordered like the timeline. */
  appendContextReport(convId: string, line: string): Promise<void>;
  /** The action journal of a conversation (one object per conversation, kept while the run lives); its records resolve once durable. */
  journal(convId: string): EffectJournal;
  /**
   * Where a conversation's changes stand: a mark of every change made so far, whether the changes
   * before a mark are durable, and a wait for them; durability must follow the order of changes
   * (a later change is never durable before an earlier one). Null when every change is durable
   * as it is made.
   */
  durability(convId: string): Durability | null;
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
 * The default storage: the file store of a data folder, with the timeline, context reports and
 * journal beside each conversation's files, appended through the store (so an open
 * conversation's step log makes them durable with its other changes of the tick).
 */
export function fileStorage(root: string, store: ConversationStore): EngineStorage {
  const dirOf = (convId: string) => path.join(root, "conversations", convId);
  return {
    conversations: eagerFiles(store),
    appendTimeline: (convId, record) => store.appendLine(convId, TIMELINE_FILE_NAME, timelineLine(record), EAGER),
    appendContextReport: (convId, line) => store.appendLine(convId, CONTEXT_FILE_NAME, line, EAGER),
    // `started` is durable before it resolves: a side effect runs only once it is on disk. `done` is
    // ordered after it (lib/runtime/journal.ts says why it need not wait for the disk).
    journal: (convId) =>
      new ActionJournal(
        dirOf(convId),
        (line) => store.appendLine(convId, JOURNAL_FILE_NAME, line),
        (line) => store.appendLine(convId, JOURNAL_FILE_NAME, line, EAGER),
      ),
    durability: (convId) => store.durability(convId),
  };
}

const EAGER = { eager: true } as const;

/** The store's conversation files with every change made eagerly (see {@link ConversationFiles}). */
function eagerFiles(store: ConversationStore): ConversationFiles {
  return {
    get: (id) => store.get(id, EAGER),
    update: (id, patch) => store.update(id, patch, EAGER),
    readLeaderMessages: (id) => store.readLeaderMessages(id, EAGER),
    updateLeaderMessages: (id, fn, opts) => store.updateLeaderMessages(id, fn, { ...opts, ...EAGER }),
    createAgent: (convId, input) => store.createAgent(convId, input, EAGER),
    readAgentMetadata: (convId, agentId) => store.readAgentMetadata(convId, agentId, EAGER),
    updateAgentMetadata: (convId, agentId, fn) => store.updateAgentMetadata(convId, agentId, fn, EAGER),
    readAgentMessages: (convId, agentId) => store.readAgentMessages(convId, agentId, EAGER),
    updateAgentMessages: (convId, agentId, fn) => store.updateAgentMessages(convId, agentId, fn, EAGER),
    listAgents: (convId) => store.listAgents(convId, EAGER),
    appendLine: (id, name, line) => store.appendLine(id, name, line, EAGER),
  };
}


