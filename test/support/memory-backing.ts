/**
 * The backing data of the in-memory test store (./memory-storage.ts): what outlives a storage
 * object (the durable state of each conversation) and the ordered log of
 * one conversation's changes on their way to it (marks, durability, waits).
 */
import type { AgentMessagesFile, AgentMetadata, ConversationMetadata, LeaderMessagesFile, RunMode } from "@/lib/contracts/on-disk";
import { localTimestamp, type Durability, type LoggedLineFile } from "@/lib/store";
import type { SharedContextFile } from "@/lib/shared-context/schema";

/** One conversation's files. */
export interface Files {
  meta: ConversationMetadata;
  leader: LeaderMessagesFile;
  agents: Map<number, { meta: AgentMetadata; messages: AgentMessagesFile }>;
  lines: Map<LoggedLineFile, string[]>;
  /** shared_context.json; null before its first change. */
  sharedContext: SharedContextFile | null;
}

export function copyFiles(files: Files): Files {
  return structuredClone(files);
}

/** What outlives a storage: the durable state of every conversation. */
export class MemoryBacking {
  readonly conversations = new Map<string, Files>();
  /**
   * The id of a conversation's next agent, given its files as the storage holds them: one past
   * every agent it has (agents are numbered within their conversation, like the file store's).
   * A test may replace it to break the numbering on purpose (test/conformance/flawed-storage.test.ts).
   */
  numberAgent = (files: Files): number => Math.max(0, ...files.meta.agent_ids, ...files.agents.keys()) + 1;
  #seq = 0;

  /** Adds a fresh conversation (durable at once); returns its id. Its project folder is a path that does not exist unless `project_path` names one. */
  seed(input: { title: string; model_key: string; run_mode: RunMode; project_path?: string }): string {
    const id = `conv_20260101_000000_${String(++this.#seq).padStart(3, "0")}`;
    const ts = localTimestamp();
    const meta: ConversationMetadata = {
      id,
      title: input.title,
      created_at: ts,
      updated_at: ts,
      project_path: input.project_path ?? "/nonexistent-memory-project",
      model_key: input.model_key,
      thinking_mode: input.run_mode !== "fast",
      run_mode: input.run_mode,
      status: "active",
      agent_count: 0,
      agent_ids: [],
      phase: "IDLE",
    };
    const leader: LeaderMessagesFile = { id, title: input.title, created_at: ts, updated_at: ts, messages: [], metadata: {}, token_statistics: {} };
    this.conversations.set(id, { meta, leader, agents: new Map(), lines: new Map(), sharedContext: null });
    return id;
  }
}

/** One conversation's changes on their way to the backing: marks, durability and waits. */
export class ChangeLog implements Durability {
  #made = 0;
  #durable = 0;
  #pending: Array<() => void> = [];
  #waiters: Array<{ mark: number; resolve: () => void }> = [];

  get durableMark(): number {
    return this.#made;
  }

  isDurable(mark: number): boolean {
    return this.#durable >= mark;
  }

  whenDurable(mark: number = this.#made): Promise<void> {
    if (this.#durable >= mark) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ mark, resolve }));
  }

  /** Records a change (`write` applies it to the backing); returns its mark. */
  record(write: () => void): number {
    this.#pending.push(write);
    return ++this.#made;
  }

  /** Applies every pending change to the backing, in order, and wakes whoever waited for them. */
  commit(): void {
    for (const write of this.#pending.splice(0)) write();
    this.#durable = this.#made;
    const ready = this.#waiters.filter((w) => w.mark <= this.#durable);
    this.#waiters = this.#waiters.filter((w) => w.mark > this.#durable);
    for (const w of ready) w.resolve();
  }
}
