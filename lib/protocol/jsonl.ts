/**
 * Durable append-only JSON Lines files (the audit timeline). Besides "server-only" it imports only
 * Node built-ins and the store's lock, so a test can transpile it and run it in a child process
 * that is killed mid-append.
 *
 * Why one line is one `write` + `fsync`: the bus publishes an envelope only after its line is on
 * disk, so a client never sees an event that a crash could lose. A crash can still cut the last
 * line short (power loss mid-write); readers drop such a tail, and the next append first ends it
 * with a newline, so a torn fragment never glues itself to the front of a good record. The
 * fragment is kept (an audit log is never rewritten) and readers report it as a bad line.
 */
import "server-only";
import { promises as fs } from "node:fs";
import path from "node:path";
import { fsyncDir, withFileLock } from "@/lib/store/atomic";

const NEWLINE = 0x0a;

/** What an append did besides writing its line. */
export interface AppendResult {
  /** True when the file ended in a torn line (left by a crash) that this append closed off. */
  sealedTornLine: boolean;
}

/**
 * Appends `line` and a `\n` to `file` (creating it, not its folder) and resolves only once the
 * line is fsynced. Appends to one file are serialized in call order through `withFileLock`, so
 * lines land in the order their promises resolve.
 * @throws RangeError when `line` contains a newline (it would become two records).
 */
export async function appendJsonLine(file: string, line: string): Promise<AppendResult> {
  if (line.includes("\n") || line.includes("\r")) throw new RangeError("a JSON line must not contain a line break");
  const abs = path.resolve(file);
  return withFileLock(abs, async () => {
    const existed = await fs.stat(abs).then(
      () => true,
      (error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") return false;
        throw error;
      },
    );
    // "a+": O_APPEND, so every write lands at the current end of the file.
    const handle = await fs.open(abs, "a+", 0o644);
    let sealedTornLine = false;
    try {
      const { size } = await handle.stat();
      if (size > 0) {
        const last = Buffer.alloc(1);
        await handle.read(last, 0, 1, size - 1);
        sealedTornLine = last[0] !== NEWLINE;
      }
      const data = Buffer.from(`${sealedTornLine ? "\n" : ""}${line}\n`, "utf8");
      // One write call for the whole line; the loop only matters if the kernel writes short.
      let offset = 0;
      while (offset < data.length) {
        const { bytesWritten } = await handle.write(data, offset, data.length - offset);
        offset += bytesWritten;
      }
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (!existed) await fsyncDir(path.dirname(abs));
    return { sealedTornLine };
  });
}

/** A line in the middle of a JSON Lines file that could not be used. */
export interface BadLine {
  /** 1-based line number. */
  line: number;
  reason: string;
  /** The start of the line (at most 200 characters), for the log. */
  excerpt: string;
}

/** The outcome of parsing one line: a value, or why it was refused. */
export type LineParse<T> = { ok: true; value: T } | { ok: false; reason: string };

/** What {@link parseJsonLines} found. */
export interface JsonLinesResult<T> {
  records: T[];
  /** Unusable lines before the end of the file: reported, skipped, never thrown. */
  bad: BadLine[];
  /** True when a torn last line was dropped (no final newline, or it did not parse). */
  tornTail: boolean;
}

/**
 * Parses JSON Lines text line by line with `parse` (given the `JSON.parse`d value). A last line
 * that lacks its `\n` or does not parse is a write cut short by a crash and is dropped; a bad line
 * anywhere else is reported in `bad`. Blank lines carry nothing and are skipped.
 */
export function parseJsonLines<T>(text: string, parse: (value: unknown) => LineParse<T>): JsonLinesResult<T> {
  const parts = text.split("\n");
  // After the final "\n" split leaves "", so a non-empty last part is a line without its newline.
  const tail = parts.pop() ?? "";
  let tornTail = tail.trim().length > 0;
  const records: T[] = [];
  const bad: BadLine[] = [];
  let lastContentIndex = -1;
  for (let i = parts.length - 1; i >= 0; i--) {
    if ((parts[i] ?? "").trim()) {
      lastContentIndex = i;
      break;
    }
  }
  parts.forEach((raw, index) => {
    if (!raw.trim()) return;
    let result: LineParse<T>;
    try {
      result = parse(JSON.parse(raw));
    } catch (error) {
      result = { ok: false, reason: `not JSON: ${(error as Error).message}` };
    }
    if (result.ok) records.push(result.value);
    else if (index === lastContentIndex && !tornTail) tornTail = true;
    else bad.push({ line: index + 1, reason: result.reason, excerpt: raw.slice(0, 200) });
  });
  return { records, bad, tornTail };
}
