import "server-only";
/**
 * The errors of the PostgreSQL store: a write refused because another instance took the
 * conversation's lease over (fencing), a lease that another live instance holds, and a
 * conversation whose changes can no longer become durable (the connection was lost mid-commit).
 * All are AstrionErrors, so a route maps them to a status like any other storage error.
 */
import { AstrionError } from "@/lib/contracts/errors";

/** The SQLSTATE `astrion_fence()` raises for a stale lease (a class PostgreSQL does not use). */
export const FENCED_SQLSTATE = "AS001";

/** Who holds a conversation's lease now, as the fence found it. */
export interface LeaseHolder {
  owner: string | null;
  epoch: number | null;
}

/**
 * This instance no longer holds a conversation's lease with the epoch it took it with
 * (`heldEpoch`): another instance took it over with a newer epoch, or it was released. PostgreSQL
 * refuses its writes of the conversation (nothing of a refused transaction lands), and this
 * instance's copy of the conversation takes no further change.
 */
export class FencedError extends AstrionError {
  static override readonly kind: string = "FencedError";
  readonly conversationId: string;
  readonly heldEpoch: number;
  readonly current: LeaseHolder;

  constructor(conversationId: string, heldEpoch: number, current: LeaseHolder, owner: string) {
    const now = current.owner === null ? "no instance holds it now" : `instance ${current.owner} holds it with epoch ${current.epoch}`;
    super("storage_error", `Conversation ${conversationId}: instance ${owner} lost its lease (epoch ${heldEpoch}; ${now}): its writes are refused and it stops running the conversation`, {
      id: conversationId,
      held_epoch: heldEpoch,
      owner: current.owner,
      epoch: current.epoch,
    });
    this.conversationId = conversationId;
    this.heldEpoch = heldEpoch;
    this.current = current;
  }
}

/** A conversation's lease is held, unexpired, by another instance: it cannot be opened for writing here. */
export class LeaseHeldError extends AstrionError {
  static override readonly kind: string = "LeaseHeldError";
  constructor(conversationId: string, owner: string, expiresAt: Date) {
    super("conflict", `Conversation ${conversationId} is run by instance ${owner} (its lease expires at ${expiresAt.toISOString()})`, { id: conversationId, owner, expires_at: expiresAt.toISOString() });
  }
}

/** A conversation's changes can no longer become durable: a commit failed (the connection was lost, the server refused it). */
export class StorageFailedError extends AstrionError {
  static override readonly kind: string = "StorageFailedError";
  constructor(conversationId: string, cause: unknown) {
    super("storage_error", `Conversation ${conversationId} cannot save changes: a commit to PostgreSQL failed (${cause instanceof Error ? cause.message : String(cause)})`, { id: conversationId }, { cause });
  }
}
