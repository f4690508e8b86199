import "server-only";
/**
 * Run leases: each running conversation is leased to one instance (its owner) until an expiry,
 * with an epoch, a fencing token that every takeover moves on. The storage acquires a
 * conversation's lease when it opens it, renews its leases while it holds them, and releases one
 * when it lets the conversation go. Times are the database's clock (`now()`), so instances whose
 * clocks differ agree on expiry. Every write transaction of a conversation carries the epoch it
 * holds through `astrion_fence()` (./flusher.ts), so a holder that lost its lease cannot write.
 */
import type { Pool } from "pg";
import { NotFoundError } from "@/lib/contracts/errors";
import { LeaseHeldError } from "./errors";
import type { Db } from "./rows";

/** What a lease holder holds: a conversation and the epoch it took it with. */
export interface HeldLease {
  conversationId: string;
  epoch: number;
}

/** A lease that expired without being released: who held it, with which epoch, until when. */
export interface OrphanedLease {
  conversationId: string;
  owner: string;
  epoch: number;
  expiredAt: Date;
}

/** pg's code for a foreign key that points at nothing (a lease of a conversation that does not exist). */
const FOREIGN_KEY_VIOLATION = "23503";

/** The leases of one database. */
export class Leases {
  readonly #db: Db;

  constructor(db: Pool | Db) {
    this.#db = db;
  }

  /**
   * Takes the lease of `convId` for `owner` for `ttlMs`, when it is free, expired, or `owner`'s
   * already (a restarted instance with the same id): the epoch moves on in every case, so the
   * previous holder, whoever it was, is fenced. Resolves with the new epoch.
   * @throws LeaseHeldError when another owner holds it unexpired; NotFoundError for an unknown conversation.
   */
  async acquire(convId: string, owner: string, ttlMs: number): Promise<number> {
    return (await this.take(convId, owner, ttlMs)).epoch;
  }

  /**
   * {@link acquire}, saying also whether the lease was taken from another instance that never
   * released it (`orphanedFrom`: its owner; null when the lease was free, released or `owner`'s):
   * that instance died or stalled mid-run, so whoever takes it must resume the run; and whether
   * it was last held by another instance that released it (`movedFrom`: its owner; null
   * otherwise): that instance ran it last, so what this one holds in memory for it (its agents'
   * tokens) is not to be trusted, and the run is resumed here too.
   */
  async take(convId: string, owner: string, ttlMs: number): Promise<{ epoch: number; orphanedFrom: string | null; movedFrom: string | null }> {
    let rows: Array<{ epoch: string; orphaned_from: string | null; moved_from: string | null }>;
    try {
      rows = (
        await this.#db.query<{ epoch: string; orphaned_from: string | null; moved_from: string | null }>(
          `WITH prev AS (SELECT owner, expires_at FROM leases WHERE conversation_id = $1)
           INSERT INTO leases AS l (conversation_id, owner, epoch, expires_at) VALUES ($1, $2, 1, now() + $3::float8 * interval '1 millisecond')
           ON CONFLICT (conversation_id) DO UPDATE SET owner = EXCLUDED.owner, epoch = l.epoch + 1, expires_at = EXCLUDED.expires_at
           WHERE l.expires_at <= now() OR l.owner = EXCLUDED.owner
           RETURNING l.epoch, (SELECT p.owner FROM prev p WHERE p.owner <> $2 AND p.expires_at > '-infinity') AS orphaned_from,
             (SELECT p.owner FROM prev p WHERE p.owner <> $2 AND p.expires_at = '-infinity') AS moved_from`,
          [convId, owner, ttlMs],
        )
      ).rows;
    } catch (error) {
      if ((error as { code?: string }).code === FOREIGN_KEY_VIOLATION) throw new NotFoundError(`Conversation ${convId} does not exist`, { id: convId });
      throw error;
    }
    if (rows[0]) return { epoch: Number(rows[0].epoch), orphanedFrom: rows[0].orphaned_from, movedFrom: rows[0].moved_from };
    const held = (await this.#db.query<{ owner: string; expires_at: Date }>("SELECT owner, expires_at FROM leases WHERE conversation_id = $1", [convId])).rows[0];
    throw new LeaseHeldError(convId, held?.owner ?? "another instance", held?.expires_at ?? new Date());
  }

  /**
   * Moves the expiry of every lease in `held` to `ttlMs` from now, for those `owner` still holds
   * with that epoch. Resolves with the conversations whose lease it no longer holds (taken over).
   */
  async renew(owner: string, held: readonly HeldLease[], ttlMs: number): Promise<string[]> {
    if (!held.length) return [];
    const renewed = (
      await this.#db.query<{ conversation_id: string }>(
        `UPDATE leases l SET expires_at = now() + $4::float8 * interval '1 millisecond' FROM unnest($2::text[], $3::bigint[]) AS t (id, epoch)
         WHERE l.conversation_id = t.id AND l.epoch = t.epoch AND l.owner = $1 RETURNING l.conversation_id`,
        [owner, held.map((h) => h.conversationId), held.map((h) => h.epoch), ttlMs],
      )
    ).rows;
    const kept = new Set(renewed.map((r) => r.conversation_id));
    return held.filter((h) => !kept.has(h.conversationId)).map((h) => h.conversationId);
  }

  /**
   * Active conversations whose lease expired without being released (its instance died, or was
   * paused or cut off past it), longest expired first, at most `limit`: what a takeover scan
   * resumes. One range scan of the `leases_orphaned` index (migration 3): released leases
   * ('-infinity') are not in it, so the scan does not grow with the conversations ever run.
   */
  async orphaned(limit: number): Promise<OrphanedLease[]> {
    const rows = (
      await this.#db.query<{ conversation_id: string; owner: string; epoch: string; expires_at: Date }>(
        `SELECT l.conversation_id, l.owner, l.epoch, l.expires_at FROM leases l JOIN conversations c ON c.id = l.conversation_id
         WHERE l.expires_at > '-infinity' AND l.expires_at <= now() AND c.status = 'active' ORDER BY l.expires_at LIMIT $1`,
        [limit],
      )
    ).rows;
    return rows.map((r) => ({ conversationId: r.conversation_id, owner: r.owner, epoch: Number(r.epoch), expiredAt: r.expires_at }));
  }

  /** Who holds the leases of `ids` now (absent: no lease row). */
  async holders(ids: readonly string[]): Promise<Map<string, { owner: string; epoch: number }>> {
    const rows = (await this.#db.query<{ conversation_id: string; owner: string; epoch: string }>("SELECT conversation_id, owner, epoch FROM leases WHERE conversation_id = ANY ($1::text[])", [ids])).rows;
    return new Map(rows.map((r) => [r.conversation_id, { owner: r.owner, epoch: Number(r.epoch) }]));
  }

  /**
   * Lets the lease go (it expires now; the row stays, so epochs keep growing). Resolves with
   * whether `owner` still held it. `lastRunBy`: the instance the row names from now on as the one
   * that ran the conversation last (default `owner`): an instance that held it only for a change
   * or a read hands it back to the one that ran it, so whoever takes it next (this instance too)
   * is told it moved ({@link take}'s `movedFrom`) and resumes the run.
   */
  async release(convId: string, owner: string, epoch: number, lastRunBy: string = owner): Promise<boolean> {
    const result = await this.#db.query("UPDATE leases SET expires_at = '-infinity', owner = $4 WHERE conversation_id = $1 AND owner = $2 AND epoch = $3", [convId, owner, epoch, lastRunBy]);
    return (result.rowCount ?? 0) > 0;
  }
}
