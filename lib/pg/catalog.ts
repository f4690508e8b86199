import "server-only";
/**
 * The conversation catalog on PostgreSQL (lib/store/catalog.ts `ConversationCatalog`;
 * docs/postgresql.md): what routes and services use of conversations, over the rows of the
 * engine's storage and sharing its memory. A conversation this instance holds open (its run's
 * single writer) is read from memory, and a change of it goes through that same writer
 * ({@link PgEngineStorage}'s files), as the file store routes changes of an open conversation to
 * its LiveConversation; a conversation it does not hold is read from its rows, and a change opens
 * it for that change (its lease taken) and lets it go again. What a read shows is durable: a read
 * of a held conversation waits for the changes it may include to be committed.
 *
 * The list is one statement over the rows (./catalog-rows.ts; never a conversation's messages).
 * Observers hear every change made through this instance once it is committed: the engine's (the
 * storage tells its commits), and the catalog's own creates, removes and imports; never the
 * file store's `opened`, which carries a LiveConversation. Changes made by another instance are
 * in the rows, not told here.
 */
import type { Pool, PoolClient } from "pg";
import type { z } from "zod";
import { ConflictError, CorruptFileError, NotFoundError, ValidationError, zodIssues } from "@/lib/contracts/errors";
import { ListConversationsQuerySchema, type ConversationList, type StoreProblem } from "@/lib/contracts/http";
import type { IndexReport } from "@/lib/contracts/index-report";
import {
  listItemOf,
  newConversationId,
  parseAgentId,
  parseConversationId,
  type AgentList,
  type AgentMessagesFile,
  type AgentMetadata,
  type ConversationCatalog,
  type ConversationMetadata,
  type ConversationPatch,
  type CreateConversationInput,
  type InstallMode,
  type LeaderMessagesFile,
  type Mutator,
  type ReadBudget,
  type StoreChange,
  type StoreObserver,
} from "@/lib/store";
import { countConversations, fillSearchColumns, listPage, readDocs, writeDocs } from "./catalog-rows";
import { LeaseHeldError } from "./errors";
import type { CommittedChanges } from "./open-conversation";
import type { PgEngineStorage } from "./pg-storage";
import { readAgent, readAgentList, readLeader, readMeta } from "./rows";
import { docsFromFolder, folderFromDocs } from "./seed-folder";

/** Checks a conversation's project folder; resolves with the path to keep (the server gives its workspace's check). */
export type ProjectFolderCheck = (value: unknown) => Promise<string>;

const UNIQUE_VIOLATION = "23505";
/** Highest sequence number a new id of one second is tried with before giving up (lib/store/time.ts allows more). */
const MAX_TRIES = 999;

/** The conversation catalog on PostgreSQL: see the file's header. */
export class PgCatalog implements ConversationCatalog {
  readonly #storage: PgEngineStorage;
  readonly #pool: Pool;
  readonly #check: ProjectFolderCheck;
  readonly #observers = new Set<StoreObserver>();
  readonly #versions = new Map<string, number>();
  /** Rows found not to fit their schema, by the file they stand for (cleared once read fine again). */
  readonly #problems = new Map<string, StoreProblem>();
  #count = 0;
  #loadedAt: string | null = null;
  #loadMs: number | null = null;
  readonly #unlisten: () => void;

  /** `pool`: the storage's pool (the catalog does not end it). Call {@link init} before use. */
  constructor(storage: PgEngineStorage, pool: Pool, options: { checkProjectFolder: ProjectFolderCheck }) {
    this.#storage = storage;
    this.#pool = pool;
    this.#check = options.checkProjectFolder;
    this.#unlisten = storage.listen({
      changing: (id) => this.#bump(id),
      committed: (id, told) => this.#committed(id, told),
    });
  }

  /** Fills the search columns of rows older than the catalog's migration and counts the conversations. */
  async init(): Promise<void> {
    const started = performance.now();
    await fillSearchColumns(this.#pool);
    this.#count = await countConversations(this.#pool);
    this.#loadMs = Math.round((performance.now() - started) * 100) / 100;
    this.#loadedAt = new Date().toISOString();
  }

  /** Stops hearing the storage (its pool and conversations are the storage's to end). */
  close(): void {
    this.#unlisten();
  }

  // ---------------------------------------------------------------- observers and versions

  observe(observer: StoreObserver): () => void {
    this.#observers.add(observer);
    return () => this.#observers.delete(observer);
  }

  #notify(change: StoreChange): void {
    for (const observer of this.#observers) {
      try {
        observer(change);
      } catch (error) {
        console.error(`[astrion] an observer of the catalog failed on a ${change.type} change:`, (error as Error).message);
      }
    }
  }

  version(id: string): number {
    return this.#versions.get(id) ?? 0;
  }

  #bump(id: string): void {
    this.#versions.set(id, (this.#versions.get(id) ?? 0) + 1);
  }

  #committed(id: string, told: CommittedChanges): void {
    this.#bump(id);
    for (const m of told.messages) this.#notify({ type: "messages", convId: id, agentId: m.agentId, at: m.at });
    for (const meta of told.agents) this.#notify({ type: "agent", convId: id, meta });
    if (told.meta) this.#notify({ type: "conversation", meta: told.meta });
  }

  // ---------------------------------------------------------------- reads

  /**
   * A read answered once every change it may include is durable. A conversation whose changes can
   * no longer become durable here (its lease was taken over, its commit lost) is read from its
   * rows: what this instance holds of it is stale. A row that does not fit its schema is recorded
   * as a problem.
   */
  async #shown<T>(id: string, read: () => Promise<T>, fromRows: () => Promise<T>): Promise<T> {
    parseConversationId(id);
    if (this.#storage.failure(id)) return this.#recorded(fromRows);
    const value = await this.#recorded(read);
    try {
      await this.#durable(id);
    } catch (error) {
      if (this.#storage.failure(id)) return this.#recorded(fromRows);
      throw error;
    }
    return value;
  }

  async #recorded<T>(read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (error) {
      if (error instanceof CorruptFileError) this.#problems.set(error.file, { file: error.file, message: String((error.details as { reason?: unknown }).reason ?? error.message) });
      throw error;
    }
  }

  /** Waits until what this instance changed of `id` so far is committed (nothing to wait for when it does not hold it). */
  async #durable(id: string): Promise<void> {
    const log = this.#storage.durability(id);
    if (log && !log.isDurable(log.durableMark)) await log.whenDurable();
  }

  get(id: string): Promise<ConversationMetadata> {
    return this.#shown(
      id,
      () => this.#storage.conversations.get(id),
      () => readMeta(this.#pool, id),
    );
  }

  readLeaderMessages(id: string): Promise<LeaderMessagesFile> {
    return this.#shown(
      id,
      () => this.#storage.conversations.readLeaderMessages(id),
      () => readLeader(this.#pool, id),
    );
  }

  readAgentMetadata(convId: string, agentId: number | string): Promise<AgentMetadata> {
    const n = parseAgentId(agentId);
    return this.#shown(
      convId,
      () => this.#storage.conversations.readAgentMetadata(convId, n),
      async () => (await readAgent(this.#pool, convId, n)).meta,
    );
  }

  readAgentMessages(convId: string, agentId: number | string): Promise<AgentMessagesFile> {
    const n = parseAgentId(agentId);
    return this.#shown(
      convId,
      () => this.#storage.conversations.readAgentMessages(convId, n),
      async () => (await readAgent(this.#pool, convId, n)).messages,
    );
  }

  listAgents(convId: string): Promise<AgentList> {
    return this.#shown(
      convId,
      () => this.#storage.conversations.listAgents(convId),
      async () => ({ agents: await readAgentList(this.#pool, convId), problems: [] }),
    );
  }

  async list(query: z.input<typeof ListConversationsQuerySchema> = {}): Promise<ConversationList> {
    const parsed = ListConversationsQuerySchema.safeParse(query);
    if (!parsed.success) throw new ValidationError("Invalid list query", zodIssues(parsed.error));
    const page = await listPage(this.#pool, parsed.data);
    if (parsed.data.status === "all" && !parsed.data.q) this.#count = page.total;
    return { items: page.metas.map(listItemOf), total: page.total, offset: parsed.data.offset, limit: parsed.data.limit, problems: this.problems() };
  }

  /**
   * The conversation's seed folder at one moment: what this instance changed of it committed
   * first, then every row read in one REPEATABLE READ transaction, so no commit lands between two
   * files; written as the file store writes them.
   */
  async snapshotFolder(id: string, accept: (rel: string) => boolean, budget: ReadBudget): Promise<Map<string, Uint8Array>> {
    parseConversationId(id);
    // A conversation whose changes can no longer become durable here is read as its rows hold it.
    await this.#durable(id).catch((error: unknown) => {
      if (!this.#storage.failure(id)) throw error;
    });
    const client = await this.#pool.connect();
    try {
      await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
      try {
        return folderFromDocs(await readDocs(client, id), accept, budget);
      } finally {
        await client.query("ROLLBACK");
      }
    } finally {
      client.release();
    }
  }

  // ---------------------------------------------------------------- changes

  checkProjectFolder(value: unknown): Promise<string> {
    return this.#check(value);
  }

  /** Creates a conversation (its project folder checked first); the storage gives it the first free id of this second. */
  async create(input: CreateConversationInput): Promise<ConversationMetadata> {
    const projectPath = await this.#check(input.project_path);
    const meta = await this.#storage.createConversation({ ...input, project_path: projectPath });
    this.#count++;
    this.#bump(meta.id);
    this.#notify({ type: "conversation", meta });
    return meta;
  }

  /** Changes the metadata through the conversation's single writer (taking its lease for the change when nobody holds it); resolves once committed. */
  async update(id: string, patch: ConversationPatch | Mutator<ConversationMetadata>): Promise<ConversationMetadata> {
    try {
      const meta = await this.#storage.conversations.update(id, patch);
      await this.#durable(id);
      return meta;
    } finally {
      await this.#storage.letGo(id);
    }
  }

  /**
   * Deletes a conversation's rows in one transaction (so it is never listed half-deleted), once
   * this instance let it go. Another instance running it is a conflict: its lease is live.
   */
  async remove(id: string): Promise<void> {
    parseConversationId(id);
    await this.#storage.close(id);
    await this.#transaction(async (client) => {
      await this.#notRunElsewhere(client, id);
      const deleted = await client.query("DELETE FROM conversations WHERE id = $1", [id]);
      if (!deleted.rowCount) throw new NotFoundError(`Conversation ${id} does not exist`, { id });
    });
    this.#count = Math.max(0, this.#count - 1);
    this.#bump(id);
    this.#forgetProblems(id);
    this.#notify({ type: "removed", convId: id });
  }

  /**
   * Places an imported conversation (its folder's files, already checked): `create` under `id`
   * (a ConflictError when taken), `new_id` under the first free id of this second, `replace` over
   * the conversation `id`, which no instance may hold (its lease's epoch moves on, so a holder
   * that lost it stays fenced). Rows, counted sub-agents and all, in one transaction.
   */
  async installConversation(id: string, mode: InstallMode, files: (id: string) => Map<string, Uint8Array>): Promise<ConversationMetadata> {
    parseConversationId(id);
    await this.#check(docsFromFolder(id, files(id)).meta.project_path);
    let existed = false;
    let placed: ConversationMetadata | null = null;
    const now = new Date();
    for (let seq = 1; !placed; seq++) {
      const target = mode === "new_id" ? newConversationId(now, seq) : id;
      const docs = docsFromFolder(target, files(target));
      try {
        await this.#transaction(async (client) => {
          if (mode === "replace") {
            if (this.#storage.isOpen(target)) throw new ConflictError(`Conversation ${target} is in use; stop it and try again`, { id: target });
            existed = (await client.query("SELECT 1 FROM conversations WHERE id = $1 FOR UPDATE", [target])).rowCount === 1;
            await this.#notRunElsewhere(client, target, true);
            await client.query("UPDATE leases SET epoch = epoch + 1, expires_at = '-infinity' WHERE conversation_id = $1", [target]);
          }
          await writeDocs(client, docs, { replace: existed, countAgents: true });
        });
        placed = docs.meta;
      } catch (error) {
        if ((error as { code?: string }).code !== UNIQUE_VIOLATION) throw error;
        if (mode === "create") throw new ConflictError(`Conversation ${target} exists already`, { id: target });
        if (seq >= MAX_TRIES) throw new ConflictError("Too many conversations created in one second; try again.");
      }
    }
    if (!existed) this.#count++;
    this.#bump(placed.id);
    this.#forgetProblems(placed.id);
    this.#notify({ type: "conversation", meta: placed });
    this.#notify({ type: "installed", convId: placed.id });
    return placed;
  }

  /** Refuses (in the caller's transaction, the lease row locked) a conversation whose lease another instance holds unexpired; `any`: this instance's too. */
  async #notRunElsewhere(client: PoolClient, id: string, any = false): Promise<void> {
    const lease = (await client.query<{ owner: string; live: boolean; expires_at: Date }>("SELECT owner, expires_at > now() AS live, expires_at FROM leases WHERE conversation_id = $1 FOR UPDATE", [id])).rows[0];
    if (lease?.live && (any || lease.owner !== this.#storage.owner)) throw new LeaseHeldError(id, lease.owner, lease.expires_at);
  }

  async #transaction(fn: (client: PoolClient) => Promise<void>): Promise<void> {
    const client = await this.#pool.connect();
    try {
      await client.query("BEGIN");
      try {
        await fn(client);
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw error;
      }
    } finally {
      client.release();
    }
  }

  // ---------------------------------------------------------------- health

  problems(): StoreProblem[] {
    return [...this.#problems.values()];
  }

  #forgetProblems(id: string): void {
    for (const key of this.#problems.keys()) if (key.startsWith(`conversations/${id}/`)) this.#problems.delete(key);
  }

  /** The list has no index file on PostgreSQL: the report counts the conversations as last known (boot, this instance's creates and removes, every list of all of them). */
  indexReport(): IndexReport {
    return { conversations: this.#count, unreadable: 0, loaded_at: this.#loadedAt, load_ms: this.#loadMs, rebuilds: [], writes: 0, write_ms_total: 0, unchanged: 0, last_write: null };
  }

  /** Nothing to write: the list is the rows. */
  async flushIndex(): Promise<void> {}

  get openCount(): number {
    return this.#storage.openCount;
  }
}
