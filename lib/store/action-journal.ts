/**
 * The action journal of the file store (`conversations/<id>/actions.jsonl`), the engine's
 * EffectJournal port (lib/runtime/team/ports.ts) over files: a side-effecting tool call is recorded
 * as `started` before it runs and `done` (with its result) after, under an idempotency key
 * (`trace_id:action:tool_call_id`). After a crash, a call that started but has no `done` is
 * reported as interrupted and not run again on its own; one that finished gives back its recorded
 * result, so nothing runs twice.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { JournalLineSchema, type JournalState } from "@/lib/contracts/journal";
import { parseJsonLines } from "./jsonl";

/** File name of the journal inside a conversation folder. */
export const JOURNAL_FILE_NAME = "actions.jsonl";


/** The journal of one conversation, read from its file once and then kept in memory. */
export class ActionJournal {
  readonly file: string;
  readonly #append: (line: string) => Promise<unknown>;
  readonly #appendOrdered: (line: string) => Promise<unknown>;
  #states: Promise<Map<string, JournalState>> | null = null;

  /**
   * `append` writes one line to the journal's file and resolves once it is durable (the engine's
   * storage sends it through the conversation's step log; an fsynced append of the process's
   * JSON Lines files does as well).
   * `appendOrdered` writes a `done` line, and an ordered `started` one (default: `append`); it may
   * resolve once the line is ordered after the lines before it, before it is durable: a crash that
   * loses a `done` line leaves the action `started`, which is what a crash during the action leaves
   * (reported as interrupted, never run again), and nothing waits on the disk between an action
   * and its result.
   */
  constructor(conversationDir: string, append: (line: string) => Promise<unknown>, appendOrdered?: (line: string) => Promise<unknown>) {
    this.file = path.join(conversationDir, JOURNAL_FILE_NAME);
    this.#append = append;
    this.#appendOrdered = appendOrdered ?? this.#append;
  }

  /** Every key's state, loaded on first use (this process is the journal's only writer). */
  #load(): Promise<Map<string, JournalState>> {
    this.#states ??= (async () => {
      const states = new Map<string, JournalState>();
      let text: string;
      try {
        text = await fs.readFile(this.file, "utf8");
      } catch {
        return states;
      }
      const { records } = parseJsonLines(text, (v) => {
        const r = JournalLineSchema.safeParse(v);
        return r.success ? { ok: true, value: r.data } : { ok: false, reason: r.error.message };
      });
      for (const line of records) {
        const known = states.get(line.key);
        if (line.status === "done") states.set(line.key, { status: "done", result: line.result ?? "" });
        else if (known?.status !== "done") states.set(line.key, { status: "started" });
      }
      return states;
    })();
    return this.#states;
  }

  /**
   * Records that the action under `key` is about to run: durable before it resolves, or with
   * `ordered` only ordered like a `done` line (see the constructor), for an action that is wholly
   * changes of the conversation's own state made through the same ordered log after this line: a
   * crash that loses the line loses the action's changes too, so the action did not happen.
   */
  async started(key: string, options: { ordered?: boolean } = {}): Promise<void> {
    const states = await this.#load();
    await (options.ordered ? this.#appendOrdered : this.#append)(JSON.stringify({ key, status: "started", at: new Date().toISOString() }));
    if (states.get(key)?.status !== "done") states.set(key, { status: "started" });
  }

  /** Records the action's result (see `appendOrdered` in the constructor for when it is durable). */
  async done(key: string, result: string): Promise<void> {
    const states = await this.#load();
    await this.#appendOrdered(JSON.stringify({ key, status: "done", result, at: new Date().toISOString() }));
    states.set(key, { status: "done", result });
  }

  /** The state of `key`. */
  async state(key: string): Promise<JournalState> {
    return (await this.#load()).get(key) ?? { status: "none" };
  }
}
