/**
 * Bounded inboxes (seed 003 §6.2): an agent with too many unread messages does not take more;
 * the sender gets a clear busy answer instead of a queue that grows while the agent is stuck
 * (e.g. its model is rate limited). Pure.
 */
import { AstrionError } from "@/lib/contracts/errors";

/** Default most unread messages an agent's inbox holds. */
const DEFAULT_INBOX_LIMIT = 10;

/** `ASTRION_INBOX_LIMIT` (a whole number ≥ 1), else 10. */
export function inboxLimitFromEnv(env: Record<string, string | undefined> = process.env): number {
  const n = Number(env.ASTRION_INBOX_LIMIT?.trim() || NaN);
  return Number.isInteger(n) && n >= 1 ? n : DEFAULT_INBOX_LIMIT;
}

/** Whether one more message fits; when not, the message for the sender. */
export type InboxCheck = { ok: true } | { ok: false; message: string; pending: number; limit: number };

/**
 * Checks an inbox before a message is added to it. `pendingCount` is the number of unread
 * messages already there (e.g. `pending_messages.length`).
 */
export function checkInbox(agent: string, pendingCount: number, limit = inboxLimitFromEnv()): InboxCheck {
  if (pendingCount < limit) return { ok: true };
  return { ok: false, pending: pendingCount, limit, message: `inbox full: ${agent} has ${pendingCount} unread messages; try again later` };
}

/** A message refused because the recipient's inbox is full; a person sending it gets 429. */
export class InboxFullError extends AstrionError {
  static override readonly kind: string = "InboxFullError";
  constructor(message: string, details: { agent: string; pending: number; limit: number; retry_after_seconds: number }) {
    super("rate_limited", message, details);
  }
}

/** {@link checkInbox} that throws an {@link InboxFullError} (for the person-facing API path). */
export function assertInbox(agent: string, pendingCount: number, limit = inboxLimitFromEnv()): void {
  const r = checkInbox(agent, pendingCount, limit);
  if (!r.ok) throw new InboxFullError(r.message, { agent, pending: r.pending, limit: r.limit, retry_after_seconds: 5 });
}
