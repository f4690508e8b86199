/**
 * Conclusions marked persistent, and an agent's own work notes — the inputs of the global and
 * private slices that come out of the history itself. Pure. Read per message by markers.ts and
 * kept up to date by the history's `ContextWindow`, so a call reads only the messages appended
 * since the last one.
 */
import type { Message } from "@/lib/contracts/on-disk";
import { contextWindowFor } from "./window";

export { extractNotes, extractPromotions, NOTE_HINT, PROMOTION_HINT } from "./markers";

/**
 * Every conclusion promoted in a history, oldest first (the order {@link buildModelInput} expects;
 * it takes the newest first). Read from assistant texts, from the arguments of the model's own
 * tool calls (a `report_to_leader` summary, a task or message it sends), and from user-role
 * messages (a person, or inter-agent texts `来自 …`: teammates' reports and messages). Tool results
 * are never read: a file the agent opened must not be able to plant "conclusions". A conclusion seen
 * again moves to the newest position.
 */
export function collectPromotions(messages: readonly Message[]): string[] {
  return contextWindowFor(messages).promotions(messages);
}

/**
 * The agent's own work notes derived from its tool calls — files read, folders listed, searches
 * run, files written — oldest first, one per distinct action (a repeat moves to the newest
 * position). Meant as the private slice, so an agent whose older tool results were evicted still
 * knows what it has already checked.
 */
export function deriveWorkNotes(messages: readonly Message[]): string[] {
  return contextWindowFor(messages).workNotes(messages);
}
