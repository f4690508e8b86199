/**
 * One line of the action journal `conversations/<id>/actions.jsonl` (lib/store/action-journal.ts). Pure, so the
 * import of a conversation checks journal lines without loading the runtime.
 */
import { z } from "zod";

/** A side-effecting tool call `started` before it runs, `done` (with its result) after. */
export const JournalLineSchema = z.object({
  key: z.string(),
  status: z.enum(["started", "done"]),
  result: z.string().optional(),
  at: z.string(),
});

/** What the journal knows of one key. */
export type JournalState = { status: "none" } | { status: "started" } | { status: "done"; result: string };
