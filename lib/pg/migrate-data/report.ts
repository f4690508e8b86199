import "server-only";
/** What a run of `npm run migrate-data` moved, and the error it refuses with (its message is shown as it is). */

/** What was moved. */
export interface Report {
  conversations: number;
  agents: number;
  /** Messages of the leader and the sub-agents. */
  messages: number;
  /** Lines of the timelines, context reports and action journals. */
  lines: number;
  /** What was replaced (conversations in the database; 1 when a folder's conversations were). */
  replaced: number;
  /** Long-term memory's entries moved, or null when there were none to move (no entries.json; a database whose memory was never written). */
  memoryEntries: number | null;
}

/** A refusal or failure worded for the person running the tool (no stack trace is shown). */
export class MigrateDataError extends Error {
  override readonly name = "MigrateDataError";
}
