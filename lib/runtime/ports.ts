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
import { getBus, type Bus } from "@/lib/bus";
import { TIMELINE_FILE_NAME, timelineLine, type TimelineRecord } from "@/lib/protocol";
import type { ConversationStore } from "@/lib/store";
import { ActionJournal, JOURNAL_FILE_NAME, type JournalState } from "./journal";

/** Per-call context reports of a conversation (an addition to the seed's layout). */
export const CONTEXT_FILE_NAME = "context.jsonl";

/**
 * One conversation's files as the engine reads and changes them. Reads of an open conversation
 * must be served from memory (the engine is its single writer); a change resolves once it is
 * durable, and changes to one file are applied in order.
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

/** The action journal of one conversation: a key is durably `started` before its effect runs, `done` with its result after. */
export interface EffectJournal {
  state(key: string): Promise<JournalState>;
  started(key: string): Promise<void>;
  done(key: string, result: string): Promise<void>;
}

/** Storage of the engine. */
export interface EngineStorage {
  /** The conversations' seed files (metadata, messages, agents). */
  readonly conversations: ConversationFiles;
  /** Appends a record to a conversation's timeline; resolves once it is durable (it is published only then). */
  appendTimeline(convId: string, record: TimelineRecord): Promise<void>;
  /** Appends one call's context report (a JSON line) to a conversation's reports; resolves once durable. */
  appendContextReport(convId: string, line: string): Promise<void>;
  /** The action journal of a conversation (one object per conversation, kept while the run lives). */
  journal(convId: string): EffectJournal;
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
    conversations: store,
    appendTimeline: (convId, record) => store.appendLine(convId, TIMELINE_FILE_NAME, timelineLine(record)),
    appendContextReport: (convId, line) => store.appendLine(convId, CONTEXT_FILE_NAME, line),
    journal: (convId) => new ActionJournal(dirOf(convId), (line) => store.appendLine(convId, JOURNAL_FILE_NAME, line)),
  };
}

/** The default bus: the process's bus (lib/bus `getBus()`, the in-process implementation). */
export function processBus(): EngineBus {
  return getBus();
}
