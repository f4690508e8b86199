import "server-only";
/**
 * How far each conversation's leader history was distilled into long-term memory: the count of
 * messages read and the last one's id (so a history that no longer continues it is read again).
 *
 * Kept in memory per data folder and written as `memory/distilled.jsonl`, one line per
 * distillation, appended with an fsync (the last line of a conversation wins). A distillation
 * therefore costs one small append, whatever the number of conversations; the whole file is read
 * once per process. When the lines outnumber the conversations by more than
 * {@link COMPACT_SLACK} (and twice), the file is rewritten with one line per conversation
 * (atomically), so it stays proportional to the conversations. `memory/distilled.json`, the
 * whole-map file of earlier versions (read and rewritten in full by every distillation), is read
 * as the starting point when present and is no longer written.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { fsyncDir, writeFileAtomic, type FileQueues } from "@/lib/store/atomic";
import { readJsonFile } from "@/lib/store/files";
import { parseJsonLines } from "@/lib/store/jsonl";
import { NotFoundError } from "@/lib/contracts/errors";

/** One conversation's progress. */
const DistilledProgressSchema = z.looseObject({
  /** Leader messages read so far. */
  through: z.number().int().nonnegative(),
  /** The `message_id` of the last of them, to tell that a history still continues the one read. */
  last_message_id: z.string().nullable(),
  /** When the last run ended (ISO 8601), also when it found nothing new. */
  at: z.string(),
});
export type DistilledProgress = z.infer<typeof DistilledProgressSchema>;

/** A line of `memory/distilled.jsonl`. */
const LineSchema = DistilledProgressSchema.extend({ conversation_id: z.string().min(1) });

/** `memory/distilled.json` of earlier versions: every conversation's progress in one object. */
const LegacySchema = z.looseObject({ version: z.literal(1), conversations: z.record(z.string(), DistilledProgressSchema) });

/** Lines beyond the conversations' count (and beyond twice it) before the file is compacted. */
const COMPACT_SLACK = 1000;

/** The progress file of a data folder. */
export function distilledProgressFile(root: string): string {
  return path.join(root, "memory", "distilled.jsonl");
}

function legacyFile(root: string): string {
  return path.join(root, "memory", "distilled.json");
}

/** Every conversation's progress in one data folder; its only writer in this process. */
export class DistilledProgressLog {
  readonly #root: string;
  readonly #queues: FileQueues;
  readonly #slack: number;
  #loaded: Promise<Map<string, DistilledProgress>> | null = null;
  #lines = 0;
  /** The file ends without a newline (a line a crash cut short): the next line starts a new one. */
  #torn = false;
  /** The file is not there yet: its name is synced in its folder after the first append. */
  #missing = false;
  #chain: Promise<unknown> = Promise.resolve();

  /**
   * `queues`: the process's per-file write queues (a compaction is queued there); `slack`: lines
   * beyond the conversations' count before a compaction (default {@link COMPACT_SLACK}).
   */
  constructor(root: string, queues: FileQueues, slack = COMPACT_SLACK) {
    this.#root = root;
    this.#queues = queues;
    this.#slack = slack;
  }

  /** The progress of `convId`, or undefined when it was never distilled. */
  async get(convId: string): Promise<DistilledProgress | undefined> {
    return (await this.#load()).get(convId);
  }

  /** Records `convId`'s progress; resolves once durable. Records are written one after another. */
  record(convId: string, progress: DistilledProgress): Promise<void> {
    const run = this.#chain.then(async () => {
      const map = await this.#load();
      const file = distilledProgressFile(this.#root);
      await fs.mkdir(path.dirname(file), { recursive: true });
      await appendDurably(file, `${this.#torn ? "\n" : ""}${JSON.stringify({ conversation_id: convId, ...progress })}\n`);
      this.#torn = false;
      if (this.#missing) {
        await fsyncDir(path.dirname(file));
        this.#missing = false;
      }
      map.set(convId, progress);
      this.#lines++;
      if (this.#lines > 2 * map.size && this.#lines > map.size + this.#slack) await this.#compact(map);
    });
    this.#chain = run.catch(() => undefined);
    return run;
  }

  /** The lines in the file now (tests). */
  get lines(): number {
    return this.#lines;
  }

  #load(): Promise<Map<string, DistilledProgress>> {
    this.#loaded ??= (async () => {
      const map = new Map<string, DistilledProgress>();
      try {
        const legacy = await readJsonFile(legacyFile(this.#root), LegacySchema);
        for (const [id, p] of Object.entries(legacy.conversations)) map.set(id, p);
      } catch (error) {
        // A broken legacy file only means those conversations are distilled again (upsert merges).
        if (!(error instanceof NotFoundError)) console.error(`[astrion] ${legacyFile(this.#root)} is not used:`, (error as Error).message);
      }
      let text = "";
      try {
        text = await fs.readFile(distilledProgressFile(this.#root), "utf8");
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
        this.#missing = true;
      }
      this.#torn = text.length > 0 && !text.endsWith("\n");
      // A line a crash cut short, or a bad one, is left out: that conversation is read again.
      const { records } = parseJsonLines(text, (v) => {
        const r = LineSchema.safeParse(v);
        return r.success ? { ok: true, value: r.data } : { ok: false, reason: r.error.message };
      });
      for (const { conversation_id, ...p } of records) map.set(conversation_id, p);
      this.#lines = records.length;
      return map;
    })();
    return this.#loaded;
  }

  /** Rewrites the file with one line per conversation (atomically, durably). */
  async #compact(map: Map<string, DistilledProgress>): Promise<void> {
    const text = [...map].map(([conversation_id, p]) => `${JSON.stringify({ conversation_id, ...p })}\n`).join("");
    await writeFileAtomic(this.#queues, distilledProgressFile(this.#root), text);
    this.#lines = map.size;
    this.#torn = false;
  }
}

/** Appends `text` to `file` and fsyncs it before resolving (the handle is closed again: nothing stays open). */
async function appendDurably(file: string, text: string): Promise<void> {
  const handle = await fs.open(file, "a", 0o644);
  try {
    await handle.writeFile(text, "utf8");
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * What memory distillation keeps for a data folder in this process: one distillation at a time
 * per conversation (the queue), and the progress log. Made once by the composition root.
 */
export class DistillState {
  /** Each conversation's latest scheduled distillation; the next one runs after it. */
  readonly queues = new Map<string, Promise<void>>();
  readonly progress: DistilledProgressLog;

  constructor(root: string, queues: FileQueues) {
    this.progress = new DistilledProgressLog(path.resolve(root), queues);
  }
}
