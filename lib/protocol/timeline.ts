/**
 * The audit timeline on disk: `conversations/<id>/timeline.jsonl`, one {@link TimelineRecord}
 * per line. Appends are durable before they resolve (the bus publishes only afterwards); reads
 * survive a crash mid-append (a torn last line is dropped) and never throw over one bad line.
 */
import "server-only";
import path from "node:path";
import { promises as fs } from "node:fs";
import { ValidationError, zodIssues } from "@/lib/contracts/errors";
import { parseJsonLines, type BadLine, type JsonLineFiles } from "@/lib/store/jsonl";
import { isCheckedRecord, TimelineRecordSchema, type TimelineRecord } from "@/lib/contracts/timeline-record";

/** File name of the timeline inside a conversation folder. */
export const TIMELINE_FILE_NAME = "timeline.jsonl";

/** `<conversationDir>/timeline.jsonl`. */
export function timelineFile(conversationDir: string): string {
  return path.join(conversationDir, TIMELINE_FILE_NAME);
}

/**
 * Validates `record` and appends it as one line through `lines` (the process's JSON Lines files),
 * resolving once it is fsynced. Appends to one file are serialized, in call order. The
 * conversation folder must exist: a timeline never recreates a deleted conversation.
 * @throws ValidationError when `record` does not fit {@link TimelineRecordSchema} (nothing is written).
 */
export async function appendTimeline(lines: JsonLineFiles, file: string, record: TimelineRecord): Promise<void> {
  await lines.append(file, timelineLine(record));
}

/**
 * `record` validated and serialized as its timeline line (for a writer that appends it itself,
 * such as an open conversation's step log).
 * @throws ValidationError when `record` does not fit {@link TimelineRecordSchema}.
 */
export function timelineLine(record: TimelineRecord): string {
  // One made by timelineRecord was checked as it was made (the engine's records, one per step).
  if (isCheckedRecord(record)) return JSON.stringify(record);
  const parsed = TimelineRecordSchema.safeParse(record);
  if (!parsed.success) throw new ValidationError("Invalid timeline record", zodIssues(parsed.error));
  return JSON.stringify(parsed.data);
}

/** Filters for {@link readTimeline}. */
export interface TimelineFilter {
  /** Only records of this trace. */
  trace_id?: string;
  /** Only what this person did (the envelope's `author`, issue 32). */
  person?: string;
}

/** What {@link readTimeline} found. */
export interface TimelineReadResult {
  /** Records in file order (the order their appends completed). */
  records: TimelineRecord[];
  /** Unusable lines before the end: reported so the caller can log them, skipped. */
  bad: BadLine[];
  /** True when a torn last line (a crash mid-append) was dropped. */
  tornTail: boolean;
}

/**
 * Reads a timeline. A missing file is an empty timeline (a conversation that has not started).
 * Every complete, valid line is returned; see {@link parseJsonLines} for torn and bad lines.
 */
export async function readTimeline(file: string, filter: TimelineFilter = {}): Promise<TimelineReadResult> {
  let text: string;
  try {
    text = await fs.readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { records: [], bad: [], tornTail: false };
    throw error;
  }
  const result = parseJsonLines(text, (value) => {
    const parsed = TimelineRecordSchema.safeParse(value);
    if (parsed.success) return { ok: true, value: parsed.data };
    const issues = zodIssues(parsed.error)
      .slice(0, 3)
      .map((i) => `${i.path || "(root)"}: ${i.message}`)
      .join("; ");
    return { ok: false, reason: `not a timeline record: ${issues}` };
  });
  const records = result.records.filter((r) => (!filter.trace_id || r.trace_id === filter.trace_id) && (!filter.person || r.envelope.author?.id === filter.person));
  return { ...result, records };
}
