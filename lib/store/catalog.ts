/**
 * The conversation catalog port: what the HTTP routes and the services beside the engine (history
 * search, export and import, knowledge) read and change of conversations, whatever holds them.
 * The engine itself goes through its own ports (lib/runtime/team/ports.ts); this is the rest.
 * The file store ({@link ConversationStore}, the seed's folders) implements it; a PostgreSQL store
 * implements the same members with the same guarantees, and the composition root
 * (lib/server/app.ts) is the one place that chooses. Types only.
 *
 * What holds for every member: ids as the engine storage port says (a malformed conversation id
 * rejects with `ValidationError`, an unknown one with `NotFoundError`); what a read shows a person
 * is durable (a crash cannot take it back); changes of one conversation apply one at a time, in
 * the order asked for.
 */
import type { z } from "zod";
import type { ConversationList, ListConversationsQuerySchema, StoreProblem } from "@/lib/contracts/http";
import type { IndexReport } from "@/lib/contracts/index-report";
import type { AgentMessagesFile, AgentMetadata, ConversationMetadata, LeaderMessagesFile } from "@/lib/contracts/on-disk";
import type { AgentList } from "./agent-files";
import type { ConversationPatch, CreateConversationInput } from "./conversation-files";
import type { ReadBudget } from "./folder-files";
import type { Mutator } from "./live-contract";
import type { StoreObserver } from "./store-core";

/** How an imported conversation is placed: under its own free id, under a new one, or over an existing one. */
export type InstallMode = "create" | "new_id" | "replace";

/** Conversations as the routes and services see them (implemented by the file store and by a PostgreSQL store). */
export interface ConversationCatalog {
  /**
   * Creates a conversation (a fresh id, its metadata and the leader's empty messages) and makes it
   * the last conversation. A refused project folder, a bad title, model key or run mode rejects
   * with `ValidationError` (details `[{path, message, reason?}]`).
   */
  create(input: CreateConversationInput): Promise<ConversationMetadata>;
  /** Checks a project folder as {@link create} does; resolves with the path to keep. */
  checkProjectFolder(value: unknown): Promise<string>;
  /** A conversation's metadata. */
  get(id: string): Promise<ConversationMetadata>;
  /** Changes a conversation by a patch or a mutator (which may not change `id`); `updated_at` becomes now. */
  update(id: string, patch: ConversationPatch | Mutator<ConversationMetadata>): Promise<ConversationMetadata>;
  /** Deletes a conversation and everything of it; it is never listed half-deleted. */
  remove(id: string): Promise<void>;
  /**
   * A page of the list, newest first (by `updated_at`, then id), without reading any
   * conversation's messages: `q` matches the title or the project folder case-insensitively,
   * `status` is `active` (default), `archived` or `all`; `problems` names what could not be read.
   */
  list(query?: z.input<typeof ListConversationsQuerySchema>): Promise<ConversationList>;
  /** The Team Leader's messages of a conversation. */
  readLeaderMessages(id: string): Promise<LeaderMessagesFile>;
  /** A sub-agent's metadata. */
  readAgentMetadata(convId: string, agentId: number | string): Promise<AgentMetadata>;
  /** A sub-agent's messages. */
  readAgentMessages(convId: string, agentId: number | string): Promise<AgentMessagesFile>;
  /** Every sub-agent of a conversation, ascending by id; one that cannot be read is reported in `problems`. */
  listAgents(convId: string): Promise<AgentList>;
  /**
   * A conversation as the seed's folder (paths relative to it → bytes), every file `accept` takes,
   * all read at one moment (no change lands between two of them), within `budget`: what an export
   * packs. The caller holds the conversation meanwhile (the engine's `withConversation`).
   */
  snapshotFolder(id: string, accept: (rel: string) => boolean, budget: ReadBudget): Promise<Map<string, Uint8Array>>;
  /**
   * Places a conversation given as the seed's folder (an import; its files already checked):
   * `create` under its own id when free, `new_id` under a fresh one (`files` is asked for the
   * folder under the id it gets), `replace` over an existing one that no run holds.
   */
  installConversation(id: string, mode: InstallMode, files: (id: string) => Map<string, Uint8Array>): Promise<ConversationMetadata>;
  /** Calls `observer` after every change of a conversation, its messages or its agents (the history search follows them); returns the unsubscribe. */
  observe(observer: StoreObserver): () => void;
  /** Records the catalog could not use (path or key, and what is wrong), for `GET /api/health`. */
  problems(): StoreProblem[];
  /** The list's index: its size, when it was loaded, and every rebuild since boot. */
  indexReport(): IndexReport;
  /** Writes out what is due of the list's index now (a clean stop). */
  flushIndex(): Promise<void>;
  /**
   * A number that changes whenever a conversation's metadata, messages or agents change here, so a
   * cache built from them (the SSE snapshot) knows it is stale even when no event was published.
   */
  version(id: string): number;
  /** How many conversations are held in memory by runs now. */
  readonly openCount: number;
}
