import "server-only";
/**
 * The files of long-term memory in the data folder: `memory/entries.json` (the entries, the one
 * source of truth) and `memory/index.json` (the search index, derived). Both are written
 * atomically in the store's seed-style JSON (lib/store). A broken entries.json is never written
 * over: it is renamed aside (`entries.json.broken-<time>`) and reported.
 */
import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import { describeZodIssues, parseJsonText, toPythonJsonBytes, writeFileAtomic, type FileQueues } from "@/lib/store";
import { IndexFileSchema, type IndexFile } from "./search-index";
import { MemoryEntriesFileSchema, type MemoryEntry } from "./schema";

/** `memory/` in the data folder. */
function memoryDir(root: string): string {
  return path.join(root, "memory");
}
/** `memory/entries.json`. */
export function entriesPath(root: string): string {
  return path.join(memoryDir(root), "entries.json");
}
/** `memory/index.json`. */
export function indexPath(root: string): string {
  return path.join(memoryDir(root), "index.json");
}

/** sha256 (hex) of bytes. */
function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** What loading entries.json found. */
export type EntriesLoad =
  | { ok: true; entries: MemoryEntry[]; sha256: string }
  /** Broken: the reason, and where the broken file now is (null when it could not be moved). */
  | { ok: false; reason: string; keptAs: string | null };

/** Reads entries.json (missing: no entries). A broken file is renamed aside, never overwritten. */
export async function loadEntries(root: string): Promise<EntriesLoad> {
  const file = entriesPath(root);
  let bytes: Buffer;
  try {
    bytes = await fs.readFile(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { ok: true, entries: [], sha256: "" };
    return { ok: false, reason: `cannot be read (${code ?? (error as Error).message})`, keptAs: null };
  }
  let text = bytes.toString("utf8");
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const json = parseJsonText(text);
  let reason: string | null = null;
  if (!json.ok) reason = json.reason;
  else {
    const parsed = MemoryEntriesFileSchema.safeParse(json.value);
    if (parsed.success) {
      const ids = new Set<string>();
      const repeated = parsed.data.entries.find((e) => (ids.has(e.id) ? true : (ids.add(e.id), false)));
      if (!repeated) return { ok: true, entries: parsed.data.entries, sha256: sha256(bytes) };
      reason = `the id ${repeated.id} is used twice`;
    } else reason = `does not match its schema: ${describeZodIssues(parsed.error)}`;
  }
  const keptAs = `${file}.broken-${new Date().toISOString().replace(/[:.]/g, "-")}`;
  try {
    await fs.rename(file, keptAs);
    return { ok: false, reason, keptAs };
  } catch {
    return { ok: false, reason, keptAs: null };
  }
}

/** Broken copies kept aside by earlier loads (file names in `memory/`). */
export async function brokenCopies(root: string): Promise<string[]> {
  try {
    return (await fs.readdir(memoryDir(root))).filter((n) => n.startsWith("entries.json.broken-")).sort();
  } catch {
    return [];
  }
}

/** Writes entries.json atomically (seed-style JSON); returns the sha256 of what was written. */
export async function writeEntries(queues: FileQueues, root: string, entries: readonly MemoryEntry[]): Promise<string> {
  await fs.mkdir(memoryDir(root), { recursive: true });
  // Each entry was checked against MemoryEntrySchema when it was made; the file is not re-validated whole.
  const bytes = toPythonJsonBytes({ version: 1, entries });
  await writeFileAtomic(queues, entriesPath(root), bytes);
  return sha256(bytes);
}

/** Reads the saved index, or null (with why) when it is missing or unusable. */
export async function readIndexFile(root: string): Promise<{ file: IndexFile; raw: unknown } | { file: null; raw: unknown; reason: string }> {
  let text: string;
  try {
    text = await fs.readFile(indexPath(root), "utf8");
  } catch {
    return { file: null, raw: null, reason: "missing" };
  }
  const json = parseJsonText(text);
  if (!json.ok) return { file: null, raw: null, reason: json.reason };
  const parsed = IndexFileSchema.safeParse(json.value);
  if (!parsed.success) return { file: null, raw: json.value, reason: "not of the index's layout" };
  return { file: parsed.data, raw: json.value };
}

/** Writes the index atomically; derived data, so not fsynced (a lost write means a rebuild). */
export async function writeIndexFile(queues: FileQueues, root: string, file: IndexFile): Promise<void> {
  await fs.mkdir(memoryDir(root), { recursive: true });
  await writeFileAtomic(queues, indexPath(root), toPythonJsonBytes(file), { durable: false });
}
