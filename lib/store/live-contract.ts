/**
 * What a held conversation (./live-conversation.ts) promises its store and its writers: how a
 * change resolves, where its changes stand on the way to the disk, what a load reports, the
 * store's hooks, and which seed files it keeps and where they are. Types and pure path helpers.
 */
import { agentMessagesFile, agentMetadataFile, conversationMetadataFile, leaderMessagesFile } from "./paths";
import type { AgentMetadata, ConversationMetadata, LeaderMessagesFile } from "@/lib/contracts/on-disk";

/** A file that could not be used, and why. */
export interface BrokenFile {
  file: string;
  error: unknown;
}

/** File name of a conversation's step log. */
export const STEP_LOG_FILE = "steps.jsonl";

/** Log size past which a checkpoint writes the seed files durably and empties the log. */
export const CHECKPOINT_BYTES = 4 * 1024 * 1024;

/** A seed file of a held conversation: its metadata, the leader's messages, an agent's metadata or messages. */
export type FileKey = "meta" | "leader" | `agent:${number}` | `agent_messages:${number}`;

/** A change to one file: the current value in, the new value out (it may be async). */
export type Mutator<T> = (current: T) => T | Promise<T>;

/**
 * How a change resolves: by default once it is durable. `eager`: once it is applied in memory and
 * queued for the step log, for a writer (the conversation engine) that goes on computing while the
 * log commits, and that waits (`LiveConversation.whenDurable`) before it shows or
 * acknowledges the change, or runs a side effect that depends on it. For the store's reads:
 * by default a read of a held conversation is answered once the changes it may include are
 * durable (it is shown to someone); `eager` answers from memory at once (the engine's own reads).
 */
export interface ChangeOptions {
  eager?: boolean;
}

/**
 * A change of the Team Leader's messages.json. Unless `touch` is false, metadata.json's
 * `updated_at` becomes the file's. `metadata`: fields of metadata.json worked out from the new
 * file (the conversation's token totals from its `token_statistics`), set in the same change —
 * one record of the step log with the file's — without moving `updated_at` unless it is touched.
 */
export interface LeaderChangeOptions {
  touch?: boolean;
  metadata?: (file: LeaderMessagesFile) => Partial<ConversationMetadata>;
}

/** Where a conversation's changes stand: a mark of all made so far, and whether (when) they are durable. */
export interface Durability {
  readonly durableMark: number;
  isDurable(mark: number): boolean;
  whenDurable(mark?: number): Promise<void>;
}

/** What a load found and did, for logs and health. */
export interface LoadReport {
  /** Log records replayed over the seed files. */
  replayed: number;
  /** Bytes of a torn last log line that were cut off. */
  repairedBytes: number;
  /** Sub-agent files that could not be used (the agent is left out; the store reports them). */
  broken: BrokenFile[];
}

/** Hooks of the store that owns the live conversation. */
export interface LiveHooks {
  /** Called after a durable change of metadata.json (the store keeps its index in step). */
  onMetadata?: (meta: ConversationMetadata) => void | Promise<void>;
  /** Called after a durable change of a messages.json (`null`: the leader's); messages from `at` on are new or changed. */
  onMessages?: (agentId: number | null, at: number) => void;
  /** Called after a durable change of a sub-agent's metadata.json. */
  onAgent?: (meta: AgentMetadata) => void;
}

/** Where a seed file of conversation `id` is. */
export function seedFilePath(root: string, id: string, key: FileKey): string {
  if (key === "meta") return conversationMetadataFile(root, id);
  if (key === "leader") return leaderMessagesFile(root, id);
  const [kind, raw] = key.split(":") as [string, string];
  const agentId = Number(raw);
  return kind === "agent" ? agentMetadataFile(root, id, agentId) : agentMessagesFile(root, id, agentId);
}

/** Every seed file of a conversation whose sub-agents are `agentIds`. */
export function seedKeys(agentIds: readonly number[]): FileKey[] {
  return ["meta", "leader", ...agentIds.flatMap((id): FileKey[] => [`agent:${id}`, `agent_messages:${id}`])];
}
