import "server-only";
/**
 * One conversation of the PostgreSQL store held open by its single writer (the engine): its seed
 * files in memory, where every read is answered and every change applied at once, and what the
 * database does not have yet. A change marks only what it touched: the metadata, a messages
 * file's head, the rows of the messages that changed (compared by reference: a mutator returns
 * new arrays that reuse the objects of the messages it kept, so the scan is of pointers), the
 * lines appended. The flusher (./flusher.ts) takes all of it at once ({@link OpenConversation.take})
 * and commits it with every other conversation's changes of the tick, so the cost of a change
 * does not grow with the transcript. Also the shared context (its `shared_contexts` row, written
 * whole when it changed), the per-file queues (changes of one file one at a time) and the action
 * journal's states.
 */
import { NotFoundError } from "@/lib/contracts/errors";
import { JournalLineSchema, type JournalState } from "@/lib/contracts/journal";
import type { AgentMessagesFile, AgentMetadata, ConversationMetadata, LeaderMessagesFile, Message } from "@/lib/contracts/on-disk";
import type { LoggedLineFile } from "@/lib/store";
import { JOURNAL_FILE_NAME } from "@/lib/store/action-journal";
import { emptySharedContext, type SharedContextFile } from "@/lib/shared-context/schema";
import { ChangeLog } from "./change-log";

/** The `agent_id` of the Team Leader's rows in `messages` (sub-agents are 1, 2, 3…). */
export const LEADER = 0;

/** A sub-agent's two files. */
export interface AgentFiles {
  meta: AgentMetadata;
  messages: AgentMessagesFile;
}

/** A conversation as its rows hold it (./rows.ts loads it). */
export interface LoadedConversation {
  meta: ConversationMetadata;
  leader: LeaderMessagesFile;
  agents: Map<number, AgentFiles>;
  /** The last line number of each JSON Lines file (0 or absent: none). */
  lastLine: Map<LoggedLineFile, number>;
  /** The action journal's lines, in order. */
  journal: string[];
  /** shared_context.json's value, or null when the conversation has no `shared_contexts` row. */
  sharedContext: SharedContextFile | null;
}

/**
 * What a commit changed, as the catalog's observers are told it once it is durable (lib/store
 * `StoreChange`): the metadata written, the messages files changed from a position on, the
 * sub-agents' metadata written.
 */
export interface CommittedChanges {
  meta: ConversationMetadata | null;
  /** `agentId` null: the leader's messages.json; messages from `at` on are new or changed. */
  messages: Array<{ agentId: number | null; at: number }>;
  agents: AgentMetadata[];
}

/** What one conversation's commit writes: everything it changed since the last one, as JSON text. */
export interface ConversationWrite {
  id: string;
  epoch: number;
  /** Every change up to this mark is in it. */
  mark: number;
  /** metadata.json, when changed. */
  meta: string | null;
  /** The leader's messages.json head, when changed. */
  leaderHead: string | null;
  /** Sub-agents created or changed: both files' JSON (the messages file's head). */
  agents: Array<{ agentId: number; meta: string; head: string }>;
  /** Sub-agents created (counted in `agent_instances`). */
  created: number;
  /** Message rows to write. */
  messages: Array<{ agentId: number; idx: number; json: string }>;
  /** Messages files that got shorter: rows from `length` on are deleted. */
  truncate: Array<{ agentId: number; length: number }>;
  lines: Array<{ file: LoggedLineFile; seq: number; line: string }>;
  /** shared_context.json's JSON, when changed. */
  sharedContext: string | null;
  /** The same changes as values, for the observers told after the commit. */
  told: CommittedChanges;
}

/**
 * A messages file's JSON without its messages: `messages` stays in its place as null, so the
 * file read back has its fields in the order it was written in.
 */
export function headJson(file: { messages: unknown }): string {
  return JSON.stringify({ ...file, messages: null });
}

/** The positions of `next` whose message is not the very object `prev` had there (new ones included). */
export function changedIndices(prev: readonly Message[], next: readonly Message[]): number[] {
  const changed: number[] = [];
  for (let i = 0; i < next.length; i++) if (i >= prev.length || prev[i] !== next[i]) changed.push(i);
  return changed;
}

/** The rows of one messages file: how many the database holds, and which ones memory changed since. */
class MessageRows {
  #stored: number;
  readonly #dirty = new Set<number>();

  constructor(stored: number) {
    this.#stored = stored;
  }

  mark(indices: readonly number[]): void {
    for (const i of indices) this.#dirty.add(i);
  }

  take(agentId: number, messages: readonly Message[], out: ConversationWrite): void {
    // The first position the file changed from (rows rewritten or cut off), for the observers.
    let at = Number.POSITIVE_INFINITY;
    if (messages.length < this.#stored) {
      out.truncate.push({ agentId, length: messages.length });
      at = messages.length;
    }
    for (const idx of this.#dirty) {
      if (idx >= messages.length) continue;
      out.messages.push({ agentId, idx, json: JSON.stringify(messages[idx]) });
      at = Math.min(at, idx);
    }
    if (at !== Number.POSITIVE_INFINITY) out.told.messages.push({ agentId: agentId === LEADER ? null : agentId, at });
    this.#dirty.clear();
    this.#stored = messages.length;
  }
}

/** The state of `key` after one journal line (lib/store/action-journal.ts reads its file the same way). */
function journalStep(states: Map<string, JournalState>, text: string): void {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return;
  }
  const line = JournalLineSchema.safeParse(value);
  if (!line.success) return;
  const { key, status, result } = line.data;
  if (status === "done") states.set(key, { status: "done", result: result ?? "" });
  else if (states.get(key)?.status !== "done") states.set(key, { status: "started" });
}

/** One open conversation: see the file's header. */
export class OpenConversation {
  readonly id: string;
  /** The epoch of the lease this instance holds on it: every commit of it carries it. */
  readonly epoch: number;
  readonly log = new ChangeLog();
  /**
   * The instance whose unreleased lease this load took (it died or stalled mid-run), until the
   * engine takes the run up ({@link PgEngineStorage.takeOrphan}); null otherwise.
   */
  orphanedFrom: string | null = null;
  /**
   * The instance that released the lease this load took (it ran the conversation last), until the
   * engine takes the run up ({@link PgEngineStorage.takeOrphan}); null otherwise.
   */
  movedFrom: string | null = null;
  #meta: ConversationMetadata;
  #leader: LeaderMessagesFile;
  readonly #agents: Map<number, AgentFiles>;
  readonly #rows = new Map<number, MessageRows>();
  readonly #lastLine: Map<LoggedLineFile, number>;
  readonly #journal = new Map<string, JournalState>();
  #shared: SharedContextFile | null;
  #sharedDirty = false;
  readonly #onChange: (conv: OpenConversation) => void;
  #dirty = false;
  #metaDirty = false;
  #leaderDirty = false;
  readonly #agentsDirty = new Set<number>();
  /** Sub-agents whose metadata.json changed (not only their messages), for the observers. */
  readonly #agentMetaDirty = new Set<number>();
  #created = 0;
  #lines: ConversationWrite["lines"] = [];
  readonly #queues = new Map<string, Promise<void>>();
  #busy = 0;
  #idle: Array<() => void> = [];
  #closed = false;

  /** `onChange`: told of every change (the flusher schedules a commit). */
  constructor(id: string, epoch: number, loaded: LoadedConversation, onChange: (conv: OpenConversation) => void) {
    this.id = id;
    this.epoch = epoch;
    this.#meta = loaded.meta;
    this.#leader = loaded.leader;
    this.#agents = loaded.agents;
    this.#lastLine = loaded.lastLine;
    this.#shared = loaded.sharedContext;
    this.#onChange = onChange;
    this.#rows.set(LEADER, new MessageRows(loaded.leader.messages.length));
    for (const [agentId, files] of loaded.agents) this.#rows.set(agentId, new MessageRows(files.messages.messages.length));
    for (const line of loaded.journal) journalStep(this.#journal, line);
  }

  // ---------------------------------------------------------------- reads

  get meta(): ConversationMetadata {
    return this.#meta;
  }

  get leader(): LeaderMessagesFile {
    return this.#leader;
  }

  /** A sub-agent's files. @throws NotFoundError when the conversation has no such agent. */
  agent(agentId: number): AgentFiles {
    const files = this.#agents.get(agentId);
    if (!files) throw new NotFoundError(`Agent ${agentId} of conversation ${this.id} does not exist`, { id: this.id, agent_id: agentId });
    return files;
  }

  /** The sub-agents' ids, ascending. */
  agentIds(): number[] {
    return [...this.#agents.keys()].sort((a, b) => a - b);
  }

  /** The id the next sub-agent takes: one past every id the conversation has (agents are numbered within it). */
  nextAgentId(): number {
    return Math.max(0, ...this.#meta.agent_ids, ...this.#agents.keys()) + 1;
  }

  /** The shared context (an empty one before its first change). */
  get sharedContext(): SharedContextFile {
    return this.#shared ?? emptySharedContext();
  }

  journalState(key: string): JournalState {
    return this.#journal.get(key) ?? { status: "none" };
  }

  /** Whether the storage let it go: a later change opens the conversation again. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Takes no change from now on (called once nothing is under way and everything is durable). */
  markClosed(): void {
    this.#closed = true;
  }

  // ---------------------------------------------------------------- queues

  /** Runs `fn` after every change of the same file (`key`) asked for before it. */
  serial<T>(key: string, fn: () => Promise<T>): Promise<T> {
    this.#busy++;
    const run = (this.#queues.get(key) ?? Promise.resolve()).then(fn);
    const after = run.then(
      () => undefined,
      () => undefined,
    );
    this.#queues.set(key, after);
    void after.then(() => {
      if (this.#queues.get(key) === after) this.#queues.delete(key);
      if (--this.#busy === 0) for (const wake of this.#idle.splice(0)) wake();
    });
    return run;
  }

  /** How many queued changes are under way. */
  get busy(): number {
    return this.#busy;
  }

  /** Resolves once no queued change is under way. */
  settled(): Promise<void> {
    return this.#busy === 0 ? Promise.resolve() : new Promise((resolve) => this.#idle.push(resolve));
  }

  // ---------------------------------------------------------------- changes (checked by the caller)

  #change(apply: () => void): number {
    if (this.#closed) throw new Error(`conversation ${this.id} was let go: a change must open it again`);
    const mark = this.log.next();
    apply();
    this.#dirty = true;
    this.#onChange(this);
    return mark;
  }

  /** metadata.json becomes `next`; the leader's title (and then its `updated_at`) follows. */
  setMeta(next: ConversationMetadata): void {
    this.#change(() => {
      this.#meta = next;
      this.#metaDirty = true;
      if (this.#leader.title !== next.title) {
        this.#leader = { ...this.#leader, title: next.title, updated_at: next.updated_at };
        this.#leaderDirty = true;
      }
    });
  }

  /** The leader's messages.json becomes `next` (its messages at `changed` are new), and metadata.json `meta` when it changed with it. */
  setLeader(next: LeaderMessagesFile, changed: readonly number[], meta: ConversationMetadata): void {
    this.#change(() => {
      this.#rows.get(LEADER)!.mark(changed);
      this.#leader = next;
      this.#leaderDirty = true;
      if (meta !== this.#meta) {
        this.#meta = meta;
        this.#metaDirty = true;
      }
    });
  }

  /** Adds a sub-agent (its id free: see {@link nextAgentId}). */
  addAgent(files: AgentFiles): void {
    const agentId = files.meta.agent_id;
    this.#change(() => {
      this.#agents.set(agentId, files);
      this.#rows.set(agentId, new MessageRows(0));
      this.#rows.get(agentId)!.mark(files.messages.messages.map((_, i) => i));
      this.#agentsDirty.add(agentId);
      this.#agentMetaDirty.add(agentId);
      this.#created++;
    });
  }

  setAgentMeta(agentId: number, next: AgentMetadata): void {
    const files = this.agent(agentId);
    this.#change(() => {
      files.meta = next;
      this.#agentsDirty.add(agentId);
      this.#agentMetaDirty.add(agentId);
    });
  }

  setAgentMessages(agentId: number, next: AgentMessagesFile, changed: readonly number[]): void {
    const files = this.agent(agentId);
    this.#change(() => {
      this.#rows.get(agentId)!.mark(changed);
      files.messages = next;
      this.#agentsDirty.add(agentId);
    });
  }

  /** The shared context becomes `next` (checked by the caller). */
  setSharedContext(next: SharedContextFile): void {
    this.#change(() => {
      this.#shared = next;
      this.#sharedDirty = true;
    });
  }

  /** Appends a line to one of the JSON Lines files (a journal line moves its key's state on); returns the change's mark. */
  appendLine(file: LoggedLineFile, line: string): number {
    return this.#change(() => {
      const seq = (this.#lastLine.get(file) ?? 0) + 1;
      this.#lastLine.set(file, seq);
      this.#lines.push({ file, seq, line });
      if (file === JOURNAL_FILE_NAME) journalStep(this.#journal, line);
    });
  }

  // ---------------------------------------------------------------- commits

  /** Whether changes wait for a commit. */
  get dirty(): boolean {
    return this.#dirty;
  }

  /**
   * Everything changed since the last take, as the commit writes it, and the mark it makes
   * durable; null when nothing changed or the conversation failed. Taken in one tick, so the
   * commit holds exactly the changes made before its mark.
   */
  take(): ConversationWrite | null {
    if (!this.#dirty || this.log.failure) return null;
    const out: ConversationWrite = {
      id: this.id,
      epoch: this.epoch,
      mark: this.log.durableMark,
      meta: this.#metaDirty ? JSON.stringify(this.#meta) : null,
      leaderHead: this.#leaderDirty ? headJson(this.#leader) : null,
      agents: [],
      created: this.#created,
      messages: [],
      truncate: [],
      lines: this.#lines,
      sharedContext: this.#sharedDirty ? JSON.stringify(this.#shared) : null,
      told: { meta: this.#metaDirty ? this.#meta : null, messages: [], agents: [...this.#agentMetaDirty].sort((a, b) => a - b).map((agentId) => this.#agents.get(agentId)!.meta) },
    };
    this.#rows.get(LEADER)!.take(LEADER, this.#leader.messages, out);
    for (const agentId of this.#agentsDirty) {
      const files = this.#agents.get(agentId)!;
      out.agents.push({ agentId, meta: JSON.stringify(files.meta), head: headJson(files.messages) });
      this.#rows.get(agentId)!.take(agentId, files.messages.messages, out);
    }
    this.#dirty = this.#metaDirty = this.#leaderDirty = this.#sharedDirty = false;
    this.#agentsDirty.clear();
    this.#agentMetaDirty.clear();
    this.#created = 0;
    this.#lines = [];
    return out;
  }
}
