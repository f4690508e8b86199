import "server-only";
/**
 * The action journal (`conversations/<id>/actions.jsonl`): a side-effecting tool call is recorded
 * as `started` before it runs and `done` (with its result) after, under an idempotency key
 * (`trace_id:action:tool_call_id`). After a crash, a call that started but has no `done` is
 * reported as interrupted and not run again on its own; one that finished gives back its recorded
 * result, so nothing runs twice.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { appendJsonLine, parseJsonLines } from "@/lib/protocol/jsonl";

/** File name of the journal inside a conversation folder. */
export const JOURNAL_FILE_NAME = "actions.jsonl";

const JournalLineSchema = z.object({
  key: z.string(),
  status: z.enum(["started", "done"]),
  result: z.string().optional(),
  at: z.string(),
});

/** What the journal knows of one key. */
export type JournalState = { status: "none" } | { status: "started" } | { status: "done"; result: string };

/** The journal of one conversation. */
export class ActionJournal {
  readonly file: string;

  constructor(conversationDir: string) {
    this.file = path.join(conversationDir, JOURNAL_FILE_NAME);
  }

  /** Records that the action under `key` is about to run (durable before it runs). */
  async started(key: string): Promise<void> {
    await appendJsonLine(this.file, JSON.stringify({ key, status: "started", at: new Date().toISOString() }));
  }

  /** Records the action's result. */
  async done(key: string, result: string): Promise<void> {
    await appendJsonLine(this.file, JSON.stringify({ key, status: "done", result, at: new Date().toISOString() }));
  }

  /** The state of `key`. */
  async state(key: string): Promise<JournalState> {
    let text: string;
    try {
      text = await fs.readFile(this.file, "utf8");
    } catch {
      return { status: "none" };
    }
    const { records } = parseJsonLines(text, (v) => {
      const r = JournalLineSchema.safeParse(v);
      return r.success ? { ok: true, value: r.data } : { ok: false, reason: r.error.message };
    });
    let state: JournalState = { status: "none" };
    for (const line of records) {
      if (line.key !== key) continue;
      state = line.status === "done" ? { status: "done", result: line.result ?? "" } : state.status === "done" ? state : { status: "started" };
    }
    return state;
  }
}
