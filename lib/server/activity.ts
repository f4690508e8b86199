import "server-only";
/**
 * Who changed what outside any conversation (issue 32): role files, settings (models, MCP servers,
 * memory, redaction, knowledge) and the people. One timeline record per change in
 * `<data root>/activity.jsonl`, in the conversations' timeline shape (an envelope from the
 * person, with its `author`), appended durably through the process's JSON Lines files before the
 * change is answered. What happens inside a conversation is on that conversation's timeline.
 */
import path from "node:path";
import { authorParty, type Author } from "@/lib/contracts/people";
import { appendTimeline, readTimeline, startTrace, SYSTEM_PARTY, timelineRecord, type JsonLineFiles } from "@/lib/protocol";
import type { TimelineRecord } from "@/lib/contracts/timeline-record";

/** File name of the activity log in the data root. */
const ACTIVITY_FILE_NAME = "activity.jsonl";

/** The data folder's log of people's changes outside conversations. */
export class ActivityLog {
  readonly file: string;
  readonly #lines: JsonLineFiles;

  constructor(root: string, lines: JsonLineFiles) {
    this.file = path.join(root, ACTIVITY_FILE_NAME);
    this.#lines = lines;
  }

  /** Records that `author` did `action` on `resource` (e.g. `role_saved`, `role:reviewer`). */
  async record(author: Author, action: string, resource: string, payload: Record<string, unknown> = {}): Promise<TimelineRecord> {
    const envelope = startTrace(authorParty(author), SYSTEM_PARTY, payload, { author });
    const record = timelineRecord(envelope, { action, resource });
    await appendTimeline(this.#lines, this.file, record);
    return record;
  }

  /** The records, oldest first; only one person's with `person`. */
  async read(person?: string): Promise<TimelineRecord[]> {
    return (await readTimeline(this.file, { person })).records;
  }
}
