import "server-only";
/**
 * The engine's storage on PostgreSQL (lib/runtime/team/ports.ts `EngineStorage` and
 * `ConversationLifecycle`; docs/postgresql.md). A conversation the engine opens is leased to this
 * instance (./leases.ts) and loaded into memory (./open-conversation.ts), where its single writer
 * reads and changes it; its changes resolve at once and are committed by the grouped commit
 * (./flusher.ts), every commit fenced by the lease's epoch. The leases of open conversations are
 * renewed every third of their term; one found taken over fails its conversation at once.
 *
 * A change (or journal use) of a conversation that is not open opens it (takes its lease), as
 * background work on a conversation whose run was let go does (memory distillation appends to its
 * timeline); `letGo` and `close` let it go again. Reads of a conversation that is not open are
 * answered from its rows, without a lease.
 */
import type { Pool } from "pg";
import { ValidationError } from "@/lib/contracts/errors";
import { timelineLine, TIMELINE_FILE_NAME, type TimelineRecord } from "@/lib/protocol";
import { CONTEXT_FILE_NAME, type ConversationFiles, type ConversationLifecycle, type EffectJournal, type EngineStorage } from "@/lib/runtime/team/ports";
import {
  localTimestamp,
  MAX_CONVERSATION_SEQ,
  newConversationId,
  parseConversationId,
  RunModeSchema,
  type ConversationMetadata,
  type CreateConversationInput,
  type Durability,
  type LeaderMessagesFile,
} from "@/lib/store";
import { JOURNAL_FILE_NAME } from "@/lib/store/action-journal";
import { appendLine, pgConversationFiles, type FilesHost } from "./conversation-files";
import { FencedError, StorageFailedError } from "./errors";
import { Flusher } from "./flusher";
import { Leases, type OrphanedLease } from "./leases";
import { OpenConversation, type CommittedChanges } from "./open-conversation";
import { insertConversation, listActive, loadConversation } from "./rows";

/**
 * Hears the changes of the conversations this storage holds (the catalog keeps its versions and
 * tells its observers): `changing` when a change is applied in memory, `committed` once what a
 * commit held is durable. Both are called synchronously and must return at once.
 */
export interface StorageListener {
  changing(convId: string): void;
  committed(convId: string, told: CommittedChanges): void;
}

/** How a {@link PgEngineStorage} runs. */
export interface PgStorageOptions {
  /** This instance's id in the leases (unique per running instance; a restart may reuse it). */
  owner: string;
  /** How long a lease lasts unrenewed (ms); it is renewed every third of it. */
  leaseMs: number;
  /** Where refused writes and lost leases are reported (default: console.error). */
  log?: (message: string) => void;
  /** Whether {@link PgEngineStorage.end} ends the pool too (it was made for this storage). */
  endPool?: boolean;
}

const UNIQUE_VIOLATION = "23505";

/** The engine's storage and conversation lifecycle on PostgreSQL: see the file's header. */
export class PgEngineStorage implements EngineStorage, ConversationLifecycle {
  readonly conversations: ConversationFiles;
  readonly owner: string;
  readonly #pool: Pool;
  readonly #leaseMs: number;
  readonly #leases: Leases;
  readonly #flusher: Flusher;
  readonly #log: (message: string) => void;
  readonly #endPool: boolean;
  readonly #host: FilesHost;
  /** Conversations open or being opened. */
  readonly #opening = new Map<string, Promise<OpenConversation>>();
  /** Conversations open (loaded). */
  readonly #live = new Map<string, OpenConversation>();
  /** Conversations opened through {@link open} (not only for a change): `letGo` leaves them open. */
  readonly #held = new Set<string>();
  readonly #closing = new Map<string, Promise<void>>();
  readonly #listeners = new Set<StorageListener>();
  readonly #failureListeners = new Set<(convId: string, error: Error) => void>();
  #renewal: NodeJS.Timeout | null = null;
  #renewing = false;
  #ended = false;

  constructor(pool: Pool, options: PgStorageOptions) {
    this.#pool = pool;
    this.owner = options.owner;
    this.#leaseMs = options.leaseMs;
    this.#log = options.log ?? ((message) => console.error(message));
    this.#endPool = options.endPool ?? false;
    this.#leases = new Leases(pool);
    this.#flusher = new Flusher(pool, this.owner, this.#log, (conv, told) => this.#tell((l) => l.committed(conv.id, told)));
    // An idle connection the server closed is reported on the pool; unheard, it would end the process.
    if (pool.listenerCount("error") === 0) pool.on("error", (error) => this.#log(`[astrion] PostgreSQL: an idle connection failed: ${error.message}`));
    this.#host = { db: pool, opened: (id) => this.#opened(id), write: (id, change) => this.#write(id, change) };
    this.conversations = pgConversationFiles(this.#host);
  }

  // ---------------------------------------------------------------- listeners

  /** Adds a listener of every change of the conversations this storage holds; returns its removal. */
  listen(listener: StorageListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #tell(call: (listener: StorageListener) => void): void {
    for (const listener of this.#listeners) {
      try {
        call(listener);
      } catch (error) {
        // A listener's failure never fails the change or the commit it hears of.
        this.#log(`[astrion] a listener of the PostgreSQL storage failed: ${(error as Error).message}`);
      }
    }
  }

  #changed(conv: OpenConversation): void {
    this.#flusher.changed(conv);
    this.#tell((l) => l.changing(conv.id));
  }

  // ---------------------------------------------------------------- open conversations

  /** The pool this storage commits through (shared with the catalog). */
  get pool(): Pool {
    return this.#pool;
  }

  /** How many conversations are open (or being opened) here. */
  get openCount(): number {
    return this.#opening.size;
  }

  /** Whether this instance holds the conversation open (its lease taken, its files in memory). */
  isOpen(convId: string): boolean {
    return this.#live.has(convId);
  }

  async #opened(id: string): Promise<OpenConversation | null> {
    const opening = this.#opening.get(id);
    return opening ? opening.catch(() => null) : null;
  }

  async #write<T>(id: string, change: (conv: OpenConversation) => Promise<T> | T): Promise<T> {
    parseConversationId(id);
    for (;;) {
      if (this.#ended) throw new Error("the PostgreSQL storage was closed");
      await this.#closing.get(id);
      const conv = await (this.#opening.get(id) ?? this.#load(id));
      // Let go meanwhile: opened again for this change.
      if (!conv.closed) return change(conv);
    }
  }

  #load(id: string): Promise<OpenConversation> {
    const opening = (async () => {
      const { epoch, orphanedFrom, movedFrom } = await this.#leases.take(id, this.owner, this.#leaseMs);
      try {
        const conv = new OpenConversation(id, epoch, await loadConversation(this.#pool, id), (c) => this.#changed(c));
        conv.orphanedFrom = orphanedFrom;
        conv.movedFrom = movedFrom;
        conv.log.onFail = (error) => this.#failed(id, error);
        this.#live.set(id, conv);
        this.#startRenewal();
        return conv;
      } catch (error) {
        await this.#leases.release(id, this.owner, epoch, movedFrom ?? this.owner).catch(() => undefined);
        throw error;
      }
    })();
    this.#opening.set(id, opening);
    opening.catch(() => {
      if (this.#opening.get(id) === opening) this.#opening.delete(id);
    });
    return opening;
  }

  /** Opens a conversation for the engine: its lease taken, loaded into memory. @throws NotFoundError, LeaseHeldError (another instance runs it). */
  async open(convId: string): Promise<void> {
    await this.#write(convId, () => undefined);
    this.#held.add(convId);
  }

  /**
   * Lets a conversation go: every change begun before is made and committed, then it is dropped
   * from memory and its lease released. A conversation whose changes failed (fenced, connection
   * lost) is dropped as it is: what was not committed is lost, as the engine was told.
   */
  close(convId: string): Promise<void> {
    this.#held.delete(convId);
    const under = this.#closing.get(convId);
    if (under) return under;
    const opening = this.#opening.get(convId);
    if (!opening) return Promise.resolve();
    const closing = (async () => {
      const conv = await opening.catch(() => null);
      if (!conv) return;
      for (;;) {
        await conv.settled();
        await conv.log.whenDurable().catch(() => undefined);
        // Checked and dropped in one tick: a change asked for later opens the conversation again.
        if (conv.busy === 0 && (conv.log.failure !== null || (!conv.dirty && conv.log.isDurable(conv.log.durableMark)))) break;
      }
      conv.markClosed();
      if (this.#opening.get(convId) === opening) this.#opening.delete(convId);
      if (this.#live.get(convId) === conv) this.#live.delete(convId);
      if (!this.#live.size) this.#stopRenewal();
      // A conversation whose commit was lost (not fenced: the lease is still ours) keeps its lease
      // until it expires, so a takeover scan (this instance's too) resumes it from what was
      // committed; released, nobody would until a person opened it again.
      if (conv.log.failure instanceof StorageFailedError) return;
      // Taken from a dead instance for a change or a read, its run not taken up here: the lease
      // is left to expire (within the term), so a takeover scan finds it and resumes the run.
      if (conv.orphanedFrom !== null) return;
      // Its run not taken up here (opened for a change or a read): handed back to the one that ran it.
      await this.#leases.release(convId, this.owner, conv.epoch, conv.movedFrom ?? this.owner).catch((error: unknown) => this.#log(`[astrion] ${convId}: could not release its lease: ${(error as Error).message}`));
    })().finally(() => this.#closing.delete(convId));
    this.#closing.set(convId, closing);
    return closing;
  }

  /** Lets every open conversation go (a clean shutdown). */
  async closeAll(): Promise<void> {
    this.#held.clear();
    await Promise.all([...this.#opening.keys()].map((id) => this.close(id)));
  }

  /** Lets a conversation go after background work unless the engine holds it (see the file's header). Never rejects. */
  async letGo(convId: string): Promise<void> {
    if (!this.#held.has(convId)) await this.close(convId).catch(() => undefined);
  }

  /**
   * Whether the conversation, open here, was taken from another instance, and nobody here took
   * its run up yet: true once, for the engine, which then resumes the run as a restart does. One
   * that never released it died or stalled mid-run; one that released it ran it last (the run
   * moved here while idle), so this instance's agents' tokens for it, if any, are out of date.
   */
  takeOrphan(convId: string): boolean {
    const conv = this.#live.get(convId);
    if (!conv || (conv.orphanedFrom === null && conv.movedFrom === null)) return false;
    conv.orphanedFrom = null;
    conv.movedFrom = null;
    return true;
  }

  /**
   * Tells `listener` when a conversation open here can no longer be written: its lease was taken
   * over (a commit refused by the fence, or a renewal that found it lost: FencedError) or a
   * commit was lost (StorageFailedError). Called once per loaded conversation, after the storage
   * logged it, outside the commit that found it. Returns the removal.
   */
  watchFailures(listener: (convId: string, error: Error) => void): () => void {
    this.#failureListeners.add(listener);
    return () => this.#failureListeners.delete(listener);
  }

  #failed(convId: string, error: Error): void {
    // Outside the flusher's or the renewal's loop, which go on with the other conversations.
    queueMicrotask(() => {
      for (const listener of this.#failureListeners) {
        try {
          listener(convId, error);
        } catch (again) {
          this.#log(`[astrion] ${convId}: a listener of failed conversations failed: ${(again as Error).message}`);
        }
      }
    });
  }

  /**
   * Active conversations whose lease expired without being released (lib/pg/leases.ts
   * `orphaned`), except those open here: what the takeover scan resumes. At most `limit`.
   */
  async orphaned(limit: number): Promise<Array<{ id: string; owner: string; expiredAt: Date }>> {
    const found: OrphanedLease[] = await this.#leases.orphaned(limit);
    return found.filter((l) => !this.#opening.has(l.conversationId)).map((l) => ({ id: l.conversationId, owner: l.owner, expiredAt: l.expiredAt }));
  }

  /** Active conversations this instance may run (none another instance holds a live lease on), by id. */
  listActive(page: { offset: number; limit: number }): Promise<{ ids: string[]; total: number }> {
    return listActive(this.#pool, this.owner, page);
  }

  /** Closes every conversation, then stops (and ends the pool when it was made for this storage). */
  async end(): Promise<void> {
    // Abandoned first (a crash as the tests make one): nothing more is committed, so nothing is
    // waited for; closing would wait for a flush that the stopped flusher never makes.
    if (!this.#ended) await this.closeAll();
    this.abandon();
    if (this.#endPool) await this.#pool.end();
  }

  /**
   * Stops at once, committing and releasing nothing, as a crash leaves it: its leases expire on
   * their own (or a restart with the same owner takes them over). For an instance that must stop
   * writing now, and for tests. The object is not used again.
   */
  abandon(): void {
    this.#ended = true;
    this.#flusher.stop();
    this.#stopRenewal();
  }

  // ---------------------------------------------------------------- leases

  #startRenewal(): void {
    if (this.#renewal || this.#ended) return;
    this.#renewal = setInterval(() => void this.#renew(), Math.max(20, Math.floor(this.#leaseMs / 3)));
    this.#renewal.unref();
  }

  #stopRenewal(): void {
    if (this.#renewal) clearInterval(this.#renewal);
    this.#renewal = null;
  }

  async #renew(): Promise<void> {
    if (this.#renewing) return;
    const held = [...this.#live.values()].filter((c) => !c.log.failure);
    if (!held.length) return;
    this.#renewing = true;
    try {
      const lost = new Set(await this.#leases.renew(this.owner, held.map((c) => ({ conversationId: c.id, epoch: c.epoch })), this.#leaseMs));
      if (!lost.size) return;
      const holders = await this.#leases.holders([...lost]);
      for (const conv of held) {
        if (!lost.has(conv.id)) continue;
        const error = new FencedError(conv.id, conv.epoch, holders.get(conv.id) ?? { owner: null, epoch: null }, this.owner);
        this.#log(`[astrion] ${error.message}`);
        conv.log.fail(error);
      }
    } catch {
      // The database is out of reach: the next renewal tries again, and a commit meanwhile finds out for itself.
    } finally {
      this.#renewing = false;
    }
  }

  // ---------------------------------------------------------------- the port's other members

  async appendTimeline(convId: string, record: TimelineRecord): Promise<void> {
    await appendLine(this.#host, convId, TIMELINE_FILE_NAME, timelineLine(record));
  }

  async appendContextReport(convId: string, line: string): Promise<void> {
    await appendLine(this.#host, convId, CONTEXT_FILE_NAME, line);
  }

  /**
   * The action journal of a conversation: its lines are rows of `actions.jsonl`, committed with
   * its other changes; `started` resolves once committed (unless `ordered`), `done` once ordered.
   */
  journal(convId: string): EffectJournal {
    // The lines ActionJournal (lib/store/action-journal.ts) writes, so a journal reads the same in both stores.
    const append = (key: string, status: "started" | "done", result?: string) =>
      this.#write(convId, (conv) => ({ log: conv.log, mark: conv.appendLine(JOURNAL_FILE_NAME, JSON.stringify({ key, status, ...(result === undefined ? {} : { result }), at: new Date().toISOString() })) }));
    return {
      state: (key) => this.#write(convId, (conv) => conv.journalState(key)),
      started: async (key, options = {}) => {
        const { log, mark } = await append(key, "started");
        if (!options.ordered) await log.whenDurable(mark);
      },
      done: async (key, result) => void (await append(key, "done", result)),
    };
  }

  /** Why an open conversation's changes can no longer become durable here (fenced, a commit lost), or null. */
  failure(convId: string): Error | null {
    return this.#live.get(convId)?.log.failure ?? null;
  }

  /** The marks of an open conversation (counted anew each time it is loaded); null for one that is not open. */
  durability(convId: string): Durability | null {
    return this.#live.get(convId)?.log ?? null;
  }

  // ---------------------------------------------------------------- new conversations

  /**
   * Adds a conversation (metadata.json and an empty leader transcript, as the file store makes
   * them), under the first free id of this second. The project folder is the caller's to check.
   * @throws ValidationError for a bad title, model key, run mode or project path.
   */
  async createConversation(input: CreateConversationInput): Promise<ConversationMetadata> {
    if (input.title !== undefined && typeof input.title !== "string") throw new ValidationError("Invalid title", [{ path: "title", message: "must be text" }]);
    const title = input.title?.trim() || "Untitled conversation";
    if (title.length > 200) throw new ValidationError("Invalid title", [{ path: "title", message: "at most 200 characters" }]);
    const runMode = RunModeSchema.safeParse(input.run_mode ?? "fast");
    if (!runMode.success) throw new ValidationError("Invalid run mode", [{ path: "run_mode", message: "must be fast, thinking or deep" }]);
    if (typeof input.model_key !== "string" || !input.model_key.trim()) throw new ValidationError("Invalid model key", [{ path: "model_key", message: "a model key is required" }]);
    if (typeof input.project_path !== "string" || !input.project_path) throw new ValidationError("Invalid project folder", [{ path: "project_path", message: "a folder is required" }]);
    const now = new Date();
    const ts = localTimestamp(now);
    for (let seq = 1; ; seq++) {
      const id = newConversationId(now, seq);
      const meta: ConversationMetadata = {
        id,
        title,
        created_at: ts,
        updated_at: ts,
        project_path: input.project_path,
        model_key: input.model_key.trim(),
        thinking_mode: runMode.data !== "fast",
        run_mode: runMode.data,
        status: "active",
        agent_count: 0,
        agent_ids: [],
        phase: "IDLE",
      };
      const leader: LeaderMessagesFile = { id, title, created_at: ts, updated_at: ts, messages: [], metadata: {}, token_statistics: {} };
      try {
        await insertConversation(this.#pool, meta, leader);
        return meta;
      } catch (error) {
        if ((error as { code?: string }).code !== UNIQUE_VIOLATION || seq >= MAX_CONVERSATION_SEQ) throw error;
      }
    }
  }
}
