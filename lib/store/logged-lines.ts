import "server-only";
/**
 * The JSON Lines files beside an open conversation's seed files (the timeline, the context
 * reports, the action journal) made durable by its step log rather than by an fsync of their own:
 * a line is recorded in the log (one fsync per tick for every change of the conversation) and
 * written to its file in the same tick without a sync. A checkpoint syncs the files before the
 * log is emptied; after a crash, {@link restoreLines} appends what the log holds and the file
 * lacks. So a step costs one fsync, whatever it appends where.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import type { JsonLineFiles } from "./jsonl";
import type { LoggedLineFile } from "./step-records";

/** The logged-line files of one conversation folder, written through the process's {@link JsonLineFiles}. */
export class LineFiles {
  readonly #dir: string;
  readonly #lines: JsonLineFiles;
  /** Files written since the last {@link sync}. */
  readonly #written = new Set<LoggedLineFile>();
  /** Writes under way (a checkpoint waits for them before it syncs). */
  readonly #pending = new Set<Promise<unknown>>();

  constructor(dir: string, lines: JsonLineFiles) {
    this.#dir = dir;
    this.#lines = lines;
  }

  /** Writes `line` to `name` without a sync; resolves once written (the log makes it durable). */
  write(name: LoggedLineFile, line: string): Promise<void> {
    this.#written.add(name);
    const write = this.#lines.append(path.join(this.#dir, name), line, { durable: false });
    this.#pending.add(write);
    void write.finally(() => this.#pending.delete(write)).catch(() => undefined);
    return write.then(() => undefined);
  }

  /** Makes every line written so far durable (before the log that holds them is emptied). */
  async sync(): Promise<void> {
    await Promise.allSettled([...this.#pending]);
    const names = [...this.#written];
    this.#written.clear();
    for (const name of names) await this.#lines.sync(path.join(this.#dir, name));
  }
}

/**
 * After a crash: appends to each file, durably and in log order, the logged lines it does not
 * hold (a write the crash cut off, or one a power loss undid). A file is read whole, once, and
 * only when the log holds lines for it. Returns how many lines were put back.
 */
export async function restoreLines(lines: JsonLineFiles, dir: string, logged: ReadonlyArray<{ f: LoggedLineFile; line: string }>): Promise<number> {
  const byFile = new Map<LoggedLineFile, string[]>();
  for (const { f, line } of logged) {
    const held = byFile.get(f);
    if (held) held.push(line);
    else byFile.set(f, [line]);
  }
  let restored = 0;
  for (const [name, missing] of byFile) {
    const file = path.join(dir, name);
    const text = await fs.readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return "";
      throw error;
    });
    // Complete lines only: a torn last line is not a written record.
    const held = new Set(text.slice(0, text.lastIndexOf("\n") + 1).split("\n"));
    for (const line of missing) {
      if (held.has(line)) continue;
      await lines.append(file, line);
      held.add(line);
      restored++;
    }
  }
  return restored;
}
