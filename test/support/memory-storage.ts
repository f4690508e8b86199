/**
 * A complete EngineStorage kept in Maps, for tests: a second implementation of the port
 * (lib/runtime/team/ports.ts) beside the file store, which passes the same conformance suite
 * (test/conformance). Its backing data ({@link MemoryBacking}) outlives a storage object and
 * holds only what is durable; a storage works on a copy of it and records every change in an
 * ordered log per conversation, made durable (applied to the backing) a turn of the event loop
 * later, or when a test lets go of {@link MemoryStorage.holdDurability}. So a reopen after a
 * clean close keeps everything, and a "crash" (a new storage over the backing, the old one
 * dropped) keeps exactly what was durable.
 */
import { NotFoundError, ValidationError, zodIssues } from "@/lib/contracts/errors";
import {
  AgentMessagesFileSchema,
  AgentMetadataSchema,
  ConversationIdSchema,
  ConversationMetadataSchema,
  LeaderMessagesFileSchema,
  type AgentMessagesFile,
  type AgentMetadata,
  type ConversationMetadata,
} from "@/lib/contracts/on-disk";
import { timelineLine, TIMELINE_FILE_NAME } from "@/lib/protocol";
import { CONTEXT_FILE_NAME, type ConversationFiles, type EffectJournal, type EngineStorage } from "@/lib/runtime/team/ports";
import type { JournalState } from "@/lib/contracts/journal";
import { JOURNAL_FILE_NAME } from "@/lib/store/action-journal";
import { rebased } from "@/lib/store/step-records";
import { ConversationPatchSchema, localTimestamp, type Durability, type LoggedLineFile, type Mutator } from "@/lib/store";
import { ChangeLog, copyFiles, MemoryBacking, type Files } from "./memory-backing";
import type { TimelineRecord } from "@/lib/contracts/timeline-record";
import type { StorageFactory, StorageHarness } from "@/test/conformance/storage-contract";
import { emptySharedContext, SharedContextFileSchema } from "@/lib/shared-context/schema";
import type { z } from "zod";

export { MemoryBacking } from "./memory-backing";

function checked<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new ValidationError(`Refusing to save ${what}`, zodIssues(result.error));
  return result.data;
}

/** An EngineStorage over a {@link MemoryBacking}. */
export class MemoryStorage implements EngineStorage {
  readonly #backing: MemoryBacking;
  /** The conversations as this storage has changed them (durable or not). */
  readonly #live = new Map<string, Files>();
  readonly #logs = new Map<string, ChangeLog>();
  /** Per-file queues: changes of one file run one after another. */
  readonly #queues = new Map<string, Promise<unknown>>();
  #holds = 0;
  #commitDue = false;
  #dropped = false;
  readonly conversations: ConversationFiles;

  constructor(backing: MemoryBacking) {
    this.#backing = backing;
    for (const [id, files] of backing.conversations) {
      this.#live.set(id, copyFiles(files));
      this.#logs.set(id, new ChangeLog());
    }
    this.conversations = this.#files();
  }

  /** Holds durability back until the returned release (called once or more) is called. */
  holdDurability(): () => void {
    this.#holds += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#holds -= 1;
      this.#scheduleCommit();
    };
  }

  /** Makes every change durable now (a clean close); the storage may not be used afterwards. */
  close(): void {
    for (const log of this.#logs.values()) log.commit();
    this.#dropped = true;
  }

  /** Drops the storage as a crash would: what is not durable never reaches the backing. */
  crash(): void {
    this.#dropped = true;
  }

  #conv(id: string): Files {
    if (this.#dropped) throw new Error("this memory storage was closed");
    if (!ConversationIdSchema.safeParse(id).success) throw new ValidationError("Invalid conversation id", [{ path: "id", message: "must look like conv_YYYYMMDD_HHMMSS_NNN" }]);
    const files = this.#live.get(id);
    if (!files) throw new NotFoundError(`Conversation ${id} does not exist`, { id });
    return files;
  }

  #agent(convId: string, agentId: number) {
    const agent = this.#conv(convId).agents.get(agentId);
    if (!agent) throw new NotFoundError(`Agent ${agentId} of conversation ${convId} does not exist`, { id: convId, agent_id: agentId });
    return agent;
  }

  #durable(convId: string): Files {
    return this.#backing.conversations.get(convId)!;
  }

  /** Records a change of `convId`: `write` applies a copy of its new value to the backing later. */
  #record(convId: string, write: (durable: Files) => void): number {
    const mark = this.#logs.get(convId)!.record(() => write(this.#durable(convId)));
    this.#scheduleCommit();
    return mark;
  }

  #scheduleCommit(): void {
    if (this.#commitDue || this.#holds > 0) return;
    this.#commitDue = true;
    setImmediate(() => {
      this.#commitDue = false;
      if (this.#holds > 0 || this.#dropped) return;
      for (const log of this.#logs.values()) log.commit();
    });
  }

  /** Runs `fn` after every change of the same file asked for before it. */
  #serial<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const run = (this.#queues.get(key) ?? Promise.resolve()).then(fn);
    this.#queues.set(
      key,
      run.catch(() => undefined),
    );
    return run;
  }

  /** async, so a bad id or a missing conversation rejects rather than throws. */
  async #read<T>(fn: () => T): Promise<T> {
    return structuredClone(fn());
  }

  #setMeta(convId: string, meta: ConversationMetadata): void {
    const files = this.#conv(convId);
    files.meta = meta;
    const copy = structuredClone(meta);
    this.#record(convId, (d) => void (d.meta = copy));
    if (files.leader.title !== meta.title) {
      files.leader = { ...files.leader, title: meta.title, updated_at: meta.updated_at };
      const leader = structuredClone(files.leader);
      this.#record(convId, (d) => void (d.leader = leader));
    }
  }

  #updateMeta(convId: string, fn: Mutator<ConversationMetadata>): Promise<ConversationMetadata> {
    return this.#serial(`${convId}:meta`, async () => {
      const given = structuredClone(this.#conv(convId).meta);
      // A leader's step may set metadata.json's fields while the mutator runs: keep them.
      const changed = rebased(given, await fn(given), this.#conv(convId).meta);
      if (changed.id !== convId) throw new ValidationError("A conversation's id cannot change", [{ path: "id", message: "cannot change" }]);
      const next = checked(ConversationMetadataSchema, { ...changed, updated_at: localTimestamp() }, "metadata.json");
      this.#setMeta(convId, next);
      return structuredClone(next);
    });
  }

  #files(): ConversationFiles {
    return {
      get: (id) => this.#read(() => this.#conv(id).meta),
      update: async (id, patch) => {
        this.#conv(id);
        if (typeof patch === "function") return this.#updateMeta(id, patch);
        const parsed = ConversationPatchSchema.safeParse(patch);
        if (!parsed.success) throw new ValidationError("Invalid conversation change", zodIssues(parsed.error));
        const changes = Object.fromEntries(Object.entries(parsed.data).filter(([, v]) => v !== undefined));
        return this.#updateMeta(id, (current) => ({ ...current, ...changes }));
      },
      readLeaderMessages: (id) => this.#read(() => this.#conv(id).leader),
      updateLeaderMessages: async (id, fn, opts = {}) => {
        this.#conv(id);
        return this.#serial(`${id}:leader`, async () => {
          const files = this.#conv(id);
          const changed = await fn(files.leader);
          if (changed === files.leader) return structuredClone(changed);
          const now = localTimestamp();
          const next = checked(LeaderMessagesFileSchema, { ...changed, id, title: files.meta.title, updated_at: now }, "messages.json");
          files.leader = next;
          const copy = structuredClone(next);
          this.#record(id, (d) => void (d.leader = copy));
          const fields = opts.metadata?.(next);
          if (opts.touch !== false || fields) this.#setMeta(id, { ...files.meta, ...fields, id, updated_at: opts.touch !== false ? now : files.meta.updated_at });
          return structuredClone(next);
        });
      },
      createAgent: async (convId, input) => {
        const files = this.#conv(convId);
        const roleId = typeof input.role_id === "string" ? input.role_id.trim() : "";
        const roleName = typeof input.role_name === "string" ? input.role_name.trim() : "";
        if (!roleId) throw new ValidationError("Invalid role", [{ path: "role_id", message: "a role id is required" }]);
        if (!roleName) throw new ValidationError("Invalid role", [{ path: "role_name", message: "a role name is required" }]);
        const agentId = this.#backing.numberAgent(files);
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
          model_key: input.model_key ?? files.meta.model_key,
          thinking_mode: input.thinking_mode ?? (files.meta.run_mode === "fast" ? "fast" : "thinking"),
          pending_messages: [],
          pending_tool_calls: [],
        };
        const messages: AgentMessagesFile = { agent_id: agentId, role_id: roleId, display_name: displayName, created_at: now, updated_at: now, messages: [] };
        checked(AgentMetadataSchema, meta, "the agent's metadata.json");
        files.agents.set(agentId, { meta, messages });
        const copy = structuredClone({ meta, messages });
        this.#record(convId, (d) => void d.agents.set(agentId, copy));
        await this.#updateMeta(convId, (m) => {
          const ids = [...new Set([...m.agent_ids, agentId])].sort((a, b) => a - b);
          return { ...m, agent_ids: ids, agent_count: ids.length };
        });
        return structuredClone(meta);
      },
      readAgentMetadata: (convId, agentId) => this.#read(() => this.#agent(convId, agentId).meta),
      updateAgentMetadata: (convId, agentId, fn) => this.#changeAgent(convId, agentId, "meta", fn, AgentMetadataSchema),
      readAgentMessages: (convId, agentId) => this.#read(() => this.#agent(convId, agentId).messages),
      updateAgentMessages: (convId, agentId, fn) => this.#changeAgent(convId, agentId, "messages", fn, AgentMessagesFileSchema),
      listAgents: (convId) => this.#read(() => ({ agents: [...this.#conv(convId).agents.values()].map((a) => a.meta).sort((a, b) => a.agent_id - b.agent_id), problems: [] })),
      appendLine: async (convId, name, line) => void this.#appendLine(convId, name, line),
      readSharedContext: (convId) => this.#read(() => this.#conv(convId).sharedContext ?? emptySharedContext()),
      updateSharedContext: async (convId, fn) => {
        this.#conv(convId);
        return this.#serial(`${convId}:shared_context`, async () => {
          const files = this.#conv(convId);
          const current = files.sharedContext ?? emptySharedContext();
          const changed = await fn(structuredClone(current));
          const next = checked(SharedContextFileSchema, changed, "shared_context.json");
          files.sharedContext = next;
          const copy = structuredClone(next);
          this.#record(convId, (d) => void (d.sharedContext = copy));
          return structuredClone(next);
        });
      },
    };
  }

  async #changeAgent<T extends AgentMetadata | AgentMessagesFile>(convId: string, agentId: number, kind: "meta" | "messages", fn: Mutator<T>, schema: z.ZodType): Promise<T> {
    this.#agent(convId, agentId);
    return this.#serial(`${convId}:agent:${agentId}:${kind}`, async () => {
      const agent = this.#agent(convId, agentId) as Record<"meta" | "messages", unknown>;
      const current = agent[kind] as T;
      const changed = await fn(current);
      if (changed === current) return structuredClone(changed);
      const next = checked(schema, { ...changed, agent_id: agentId, updated_at: localTimestamp() }, `agent ${agentId}'s ${kind === "meta" ? "metadata" : "messages"}.json`) as T;
      agent[kind] = next;
      const copy = structuredClone(next);
      this.#record(convId, (d) => {
        const durable = d.agents.get(agentId) as Record<"meta" | "messages", unknown> | undefined;
        if (durable) durable[kind] = copy;
      });
      return structuredClone(next);
    });
  }

  /** Appends a line to one of a conversation's line files; returns the change's mark. */
  #appendLine(convId: string, name: LoggedLineFile, line: string): number {
    const files = this.#conv(convId);
    files.lines.set(name, [...(files.lines.get(name) ?? []), line]);
    return this.#record(convId, (d) => void d.lines.set(name, [...(d.lines.get(name) ?? []), line]));
  }

  /** The lines a conversation's backing data holds of `name` (what an outside reader sees). */
  durableLines(convId: string, name: LoggedLineFile): string[] {
    return [...(this.#backing.conversations.get(convId)?.lines.get(name) ?? [])];
  }

  async appendTimeline(convId: string, record: Parameters<EngineStorage["appendTimeline"]>[1]): Promise<void> {
    this.#appendLine(convId, TIMELINE_FILE_NAME, timelineLine(record));
  }

  async appendContextReport(convId: string, line: string): Promise<void> {
    this.#appendLine(convId, CONTEXT_FILE_NAME, line);
  }

  journal(convId: string): EffectJournal {
    const append = (key: string, status: "started" | "done", result?: string) =>
      this.#appendLine(convId, JOURNAL_FILE_NAME, JSON.stringify({ key, status, ...(result === undefined ? {} : { result }), at: new Date().toISOString() }));
    return {
      state: async (key) => {
        let state: JournalState = { status: "none" };
        for (const text of this.#conv(convId).lines.get(JOURNAL_FILE_NAME) ?? []) {
          const line = JSON.parse(text) as { key: string; status: string; result?: string };
          if (line.key !== key) continue;
          if (line.status === "done") state = { status: "done", result: line.result ?? "" };
          else if (state.status !== "done") state = { status: "started" };
        }
        return state;
      },
      started: async (key, options = {}) => {
        const mark = append(key, "started");
        if (!options.ordered) await this.#logs.get(convId)!.whenDurable(mark);
      },
      done: async (key, result) => void append(key, "done", result),
    };
  }

  durability(convId: string): Durability | null {
    return this.#logs.get(convId) ?? null;
  }
}

/** The harnesses of one backing share it and the newest storage over it. */
interface Chain {
  backing: MemoryBacking;
  ids: readonly string[];
  storage: MemoryStorage;
}

function memoryHarness(chain: Chain): StorageHarness {
  const storage = chain.storage;
  const next = () => {
    if (chain.storage !== storage) throw new Error("this harness was reopened or crashed: use the one that returned");
    chain.storage = new MemoryStorage(chain.backing);
    return memoryHarness(chain);
  };
  return {
    storage,
    conversationIds: chain.ids,
    reopen: async () => {
      storage.close();
      return next();
    },
    crash: async () => {
      storage.crash();
      return next();
    },
    timeline: async (convId) => storage.durableLines(convId, TIMELINE_FILE_NAME).map((line) => JSON.parse(line) as TimelineRecord),
    contextReports: async (convId) => storage.durableLines(convId, CONTEXT_FILE_NAME),
    holdDurability: () => storage.holdDurability(),
    close: async () => chain.storage.close(),
  };
}

/** A fresh in-memory harness over a backing of its own with a `fast` and a `thinking` conversation, and that backing. */
export function newMemoryHarness(): { harness: StorageHarness; backing: MemoryBacking } {
  const backing = new MemoryBacking();
  const ids = [backing.seed({ title: "Fast", model_key: "model-a", run_mode: "fast" }), backing.seed({ title: "Thinking", model_key: "model-b", run_mode: "thinking" })];
  return { harness: memoryHarness({ backing, ids, storage: new MemoryStorage(backing) }), backing };
}

/** Fresh in-memory harnesses (see {@link newMemoryHarness}). */
export const memoryStorageFactory: StorageFactory = {
  canHoldDurability: true,
  create: async () => newMemoryHarness().harness,
};
