/**
 * The Team Leader's model calls for the person's current request, counted from its saved
 * messages rather than a counter in memory, so the per-request cap survives a restart without an
 * extra write. Pure: no I/O.
 */
import type { Message } from "@/lib/contracts/on-disk";

/**
 * Assistant messages since the person's latest message (each is one model call, an interrupted
 * one included). Scans back only to that message, so the cost is bounded by the cap, not by the
 * length of the history.
 */
export function leaderCallsSinceRequest(messages: readonly Message[]): number {
  let calls = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === "user" && m.metadata?.message_source === "user") break;
    if (m.role === "assistant") calls++;
  }
  return calls;
}
