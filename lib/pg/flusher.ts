import "server-only";
/**
 * The grouped commit of the PostgreSQL store: every conversation that changed in a tick of the
 * event loop is written in one transaction, whichever agent or conversation changed it, and its
 * durability marks resolve after COMMIT, in order. One commit runs at a time: changes made while
 * it runs go into the next one, which starts as soon as it ends (so under load a commit carries
 * everything of the ticks it waited for, and the cost per change falls).
 *
 * Every transaction begins with `astrion_fence(owner, ids, epochs)`: the leases of its
 * conversations, locked FOR SHARE and checked against the epochs this instance holds. A stale one
 * makes PostgreSQL abort the transaction, so nothing of it lands; its conversations fail with a
 * FencedError (logged) and the others are committed again without them. Any other failure of a
 * commit fails the conversations in it (their changes can no longer be known durable), except a
 * refused value (a data or constraint error), which is retried one conversation at a time so
 * only the conversation it belongs to fails.
 */
import type { Pool, PoolClient } from "pg";
import { FencedError, FENCED_SQLSTATE, StorageFailedError, type LeaseHolder } from "./errors";
import type { CommittedChanges, ConversationWrite, OpenConversation } from "./open-conversation";
import { writeBatch } from "./rows";

interface Entry {
  conv: OpenConversation;
  write: ConversationWrite;
}

/** A stale lease as `astrion_fence()` names it in its error's DETAIL. */
interface Stale {
  id: string;
  held: number;
  owner: string | null;
  epoch: number | null;
}

function staleLeases(error: unknown): Stale[] | null {
  const e = error as { code?: string; detail?: string };
  if (e.code !== FENCED_SQLSTATE || !e.detail) return null;
  try {
    const parsed = JSON.parse(e.detail) as Stale[];
    return Array.isArray(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

/** A value PostgreSQL refused (class 22: data exception; 23: integrity constraint), as opposed to a lost connection. */
function refusedValue(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return typeof code === "string" && (code.startsWith("22") || code.startsWith("23"));
}

/** Commits what the open conversations changed, a transaction per tick. */
export class Flusher {
  readonly #pool: Pool;
  readonly #owner: string;
  readonly #log: (message: string) => void;
  readonly #committed: (conv: OpenConversation, told: CommittedChanges) => void;
  readonly #dirty = new Set<OpenConversation>();
  #scheduled = false;
  #running: Promise<void> | null = null;
  #stopped = false;

  /** `log`: where a refused write is reported; `committed`: told of each conversation's changes once they are durable. */
  constructor(pool: Pool, owner: string, log: (message: string) => void, committed: (conv: OpenConversation, told: CommittedChanges) => void = () => undefined) {
    this.#pool = pool;
    this.#owner = owner;
    this.#log = log;
    this.#committed = committed;
  }

  /** A conversation changed: its changes go into the next commit. */
  changed(conv: OpenConversation): void {
    this.#dirty.add(conv);
    this.#schedule();
  }

  /** Commits nothing more (a dropped storage). */
  stop(): void {
    this.#stopped = true;
  }

  #schedule(): void {
    if (this.#scheduled || this.#running || this.#stopped) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      if (this.#stopped) return;
      this.#running = this.#run().finally(() => {
        this.#running = null;
        if (this.#dirty.size) this.#schedule();
      });
    });
  }

  async #run(): Promise<void> {
    const entries: Entry[] = [];
    for (const conv of this.#dirty) {
      const write = conv.take();
      if (write) entries.push({ conv, write });
    }
    this.#dirty.clear();
    if (!entries.length) return;
    let client: PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      this.#failAll(entries, error);
      return;
    }
    let broken: Error | undefined;
    // A checked-out client's lost connection is an 'error' event as well as a failed query: heard here, it is the query's.
    const heard = () => undefined;
    client.on("error", heard);
    try {
      await this.#commit(client, entries);
    } catch (error) {
      broken = error instanceof Error ? error : new Error(String(error));
    } finally {
      client.off("error", heard);
      // A client whose transaction could not be ended is closed, not handed out again.
      client.release(broken);
    }
  }

  /** Commits `entries` in one transaction (see the file's header for what a failure does). @throws when the connection itself failed. */
  async #commit(client: PoolClient, entries: Entry[]): Promise<void> {
    let pending = entries;
    while (pending.length) {
      const failure = await this.#transaction(client, pending);
      if (!failure) {
        for (const { conv, write } of pending) {
          conv.log.durableUpTo(write.mark);
          this.#committed(conv, write.told);
        }
        return;
      }
      const stale = staleLeases(failure);
      if (stale) {
        const ids = new Set(stale.map((s) => s.id));
        for (const s of stale) {
          const entry = pending.find((e) => e.conv.id === s.id);
          if (!entry) continue;
          const current: LeaseHolder = { owner: s.owner, epoch: s.epoch === null ? null : Number(s.epoch) };
          const error = new FencedError(s.id, entry.write.epoch, current, this.#owner);
          this.#log(`[astrion] ${error.message}`);
          entry.conv.log.fail(error);
        }
        const rest = pending.filter((e) => !ids.has(e.conv.id));
        if (rest.length === pending.length) break; // named none of them: not a fence of this commit
        pending = rest;
        continue;
      }
      if (refusedValue(failure) && pending.length > 1) {
        for (const entry of pending) await this.#commit(client, [entry]);
        return;
      }
      this.#failAll(pending, failure);
      return;
    }
    this.#failAll(pending, new Error("the fence refused a lease this commit does not hold"));
  }

  /** One attempt: resolves with null once committed, or with the server's error (rolled back). @throws when even the rollback failed. */
  async #transaction(client: PoolClient, entries: readonly Entry[]): Promise<unknown> {
    try {
      await client.query("BEGIN");
      await client.query({
        name: "astrion_fence",
        text: "SELECT astrion_fence($1, $2::text[], $3::bigint[])",
        values: [this.#owner, entries.map((e) => e.write.id), entries.map((e) => e.write.epoch)],
      });
      await writeBatch(
        client,
        entries.map((e) => e.write),
      );
      await client.query("COMMIT");
      return null;
    } catch (error) {
      try {
        await client.query("ROLLBACK");
      } catch {
        this.#failAll(entries, error);
        throw error;
      }
      return error;
    }
  }

  #failAll(entries: readonly Entry[], cause: unknown): void {
    for (const { conv } of entries) conv.log.fail(new StorageFailedError(conv.id, cause));
  }
}
