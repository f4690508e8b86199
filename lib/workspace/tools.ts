/**
 * The workspace tools a sub-agent uses on its conversation's project folder: `list_files`,
 * `read_file`, `search_files` and (with the `write` permission) `write_file`. Every path goes
 * through {@link resolveProjectPath}; results use project-relative `/` paths, which is what the
 * model should pass back in its next call. Sizes are bounded so one call can neither flood the
 * model's context nor stall the server, and each result is shaped to the tool output cap where
 * it is built (results.ts): whole entries and matches with a count of the rest, a file cut at a
 * line boundary — never JSON sliced in the middle. Each tool is given the {@link WorkspaceParts}
 * of the server (./parts.ts; ./workspace.ts binds them): its protected folders and write queues.
 */
import "server-only";
import { closeSync, constants as fsConstants, fstatSync, lstatSync, openSync, promises as fs, readSync, type Dirent } from "node:fs";
import path from "node:path";
import { AstrionError, NotFoundError, ValidationError } from "@/lib/contracts/errors";
import { writeFileAtomic } from "@/lib/store/atomic";
import { globMatcher } from "./glob";
import { totalLinesOf } from "./line-count";
import type { WorkspaceParts } from "./parts";
import { protectedMatch, type ProtectedRoot } from "./protected";
import { resolveProjectPath, toRelative, WorkspaceError } from "./resolve";
import { shapeListResult, shapeReadResult, shapeSearchResult, type FileEntry, type ListResult, type ReadResult, type SearchMatch, type SearchResult } from "./results";

/** Folders never descended into by listings and searches: large, generated, or version-control internals. */
export const SKIPPED_DIRS: ReadonlySet<string> = new Set(["node_modules", ".git", ".hg", ".svn", ".next"]);

/** How many leading bytes decide whether a file is binary (a NUL byte there means binary, as git decides). */
const BINARY_SNIFF_BYTES = 8000;

/** Default caps. */
const WORKSPACE_LIMITS = {
  /** Characters of JSON one result may take (the runtime passes its own cap, `ASTRION_TOOL_OUTPUT_MAX`). */
  outputMaxChars: 12_000,
  listMaxEntries: 200,
  listMaxDepth: 5,
  /** Entries a listing looks at in all, shown or only counted. */
  listMaxSeen: 10_000,
  readMaxBytes: 100_000,
  /** Bytes of a file whose lines are counted; a larger file's total is not given. */
  readCountMaxBytes: 16_000_000,
  searchMaxMatches: 100,
  searchMaxFileBytes: 1_000_000,
  searchMaxFiles: 5_000,
  /** Files and folders a search looks at, matching its glob or not: a glob that matches nothing must not walk a huge tree. */
  searchMaxEntries: 50_000,
  searchLineChars: 300,
  writeMaxBytes: 1_000_000,
} as const;

/** A non-security failure of a workspace tool (not a file, binary, too large…): a 400 the model can act on. */
export class WorkspaceToolError extends AstrionError {
  constructor(message: string, details?: unknown) {
    super("bad_request", message, details);
  }
}

function isBinary(buf: Uint8Array): boolean {
  return buf.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

function notFound(requested: string, what = "File or folder"): NotFoundError {
  return new NotFoundError(`${what} not found: ${JSON.stringify(requested)}`, { path: requested });
}

/** Options of {@link listFiles}. */
export interface ListOptions {
  /** Entries kept at most (the rest are counted). Default {@link WORKSPACE_LIMITS.listMaxEntries}. */
  maxEntries?: number;
  /** 1 lists the folder itself; 2 also its subfolders, …; at most {@link WORKSPACE_LIMITS.listMaxDepth}. Default 1. */
  depth?: number;
  /** Characters of JSON the result may take. Default {@link WORKSPACE_LIMITS.outputMaxChars}. */
  maxOutputChars?: number;
}

/**
 * True when a folder entry is, or leads to, one of Astrion's own folders (protected.ts): such an
 * entry is left out of listings and searches as if it did not exist. A folder is judged by name
 * and by identity (a bind mount); a symlink by where it really points.
 */
async function isProtectedEntry(full: string, d: Dirent, roots: readonly ProtectedRoot[]): Promise<boolean> {
  if (roots.length === 0) return false;
  if (d.isDirectory()) return protectedMatch(full, await fs.lstat(full, { bigint: true }).catch(() => null), roots) !== undefined;
  if (d.isSymbolicLink()) {
    const real = await fs.realpath(full).catch(() => null);
    if (real === null) return false;
    return protectedMatch(real, await fs.stat(real, { bigint: true }).catch(() => null), roots) !== undefined;
  }
  return protectedMatch(full, null, roots) !== undefined;
}

function byTypeThenName(a: Dirent, b: Dirent): number {
  const ad = a.isDirectory() ? 0 : 1;
  const bd = b.isDirectory() ? 0 : 1;
  if (ad !== bd) return ad - bd;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

function entryType(d: Dirent): FileEntry["type"] {
  if (d.isSymbolicLink()) return "symlink";
  if (d.isDirectory()) return "dir";
  if (d.isFile()) return "file";
  return "other";
}

/**
 * Lists a folder of the project, folders first then by name, breadth first down to `depth`
 * levels. `node_modules`, `.git` and the like are listed but not descended into. Keeps the first
 * `maxEntries` entries and as many of them as fit in `maxOutputChars`; the rest are counted (up
 * to {@link WORKSPACE_LIMITS.listMaxSeen} entries in all) and reported as `omitted` with a note.
 * @throws WorkspaceError for a path outside the project; NotFoundError when it does not exist;
 *   WorkspaceToolError when it is not a folder.
 */
export async function listFiles(parts: WorkspaceParts, projectRoot: string, requestedPath = ".", options: ListOptions = {}): Promise<ListResult> {
  const maxEntries = Math.max(1, Math.floor(options.maxEntries ?? WORKSPACE_LIMITS.listMaxEntries));
  const depth = Math.min(WORKSPACE_LIMITS.listMaxDepth, Math.max(1, Math.floor(options.depth ?? 1)));
  const target = await resolveProjectPath(parts.protectedFolders, projectRoot, requestedPath);
  if (!target.exists) throw notFound(requestedPath, "Folder");
  const stat = await fs.stat(target.absolute);
  if (!stat.isDirectory()) throw new WorkspaceToolError(`Not a folder: ${JSON.stringify(requestedPath)}; use read_file.`);

  const roots = parts.protectedFolders.list();
  const entries: FileEntry[] = [];
  let seen = 0;
  let complete = true;
  let queue: Array<{ dir: string; level: number }> = [{ dir: target.absolute, level: 1 }];
  walk: while (queue.length > 0) {
    const nextQueue: typeof queue = [];
    for (const { dir, level } of queue) {
      let dirents: Dirent[];
      try {
        dirents = await fs.readdir(dir, { withFileTypes: true });
      } catch (error) {
        // A subfolder that vanished or is unreadable is skipped; the listing is still useful.
        if (dir === target.absolute) throw error;
        continue;
      }
      dirents.sort(byTypeThenName);
      for (const d of dirents) {
        const full = path.join(dir, d.name);
        if (await isProtectedEntry(full, d, roots)) continue;
        if (seen >= WORKSPACE_LIMITS.listMaxSeen) {
          complete = false;
          break walk;
        }
        seen++;
        const type = entryType(d);
        if (entries.length < maxEntries) {
          const entry: FileEntry = { path: toRelative(target.root, full), type };
          if (type === "file") {
            const size = await fs.lstat(full).then(
              (st) => st.size,
              () => undefined,
            );
            if (size !== undefined) entry.size = size;
          }
          entries.push(entry);
        }
        if (type === "dir" && level < depth && !SKIPPED_DIRS.has(d.name)) nextQueue.push({ dir: full, level: level + 1 });
      }
    }
    queue = nextQueue;
  }
  return shapeListResult({ path: target.relative, entries, seen, complete }, outputCap(options.maxOutputChars));
}

/** The output cap asked for, or the default. */
function outputCap(maxOutputChars: number | undefined): number {
  return Math.max(1, Math.floor(maxOutputChars ?? WORKSPACE_LIMITS.outputMaxChars));
}

/** Options of {@link readFile}. */
export interface ReadOptions {
  /** Bytes read at most. Default {@link WORKSPACE_LIMITS.readMaxBytes}. */
  maxBytes?: number;
  /** Characters of JSON the result may take. Default {@link WORKSPACE_LIMITS.outputMaxChars}. */
  maxOutputChars?: number;
}

/**
 * Reads a text file of the project: its first `maxBytes` bytes, as many of its first whole lines
 * as fit in `maxOutputChars` (results.ts), with the lines shown and the file's total.
 * @throws WorkspaceError for a path outside the project; NotFoundError when it does not exist;
 *   WorkspaceToolError for a folder, a non-regular file (FIFO, device: reading could block) or a binary file.
 */
export async function readFile(parts: WorkspaceParts, projectRoot: string, requestedPath: string, options: ReadOptions = {}): Promise<ReadResult> {
  const maxBytes = Math.max(1, Math.floor(options.maxBytes ?? WORKSPACE_LIMITS.readMaxBytes));
  const target = await resolveProjectPath(parts.protectedFolders, projectRoot, requestedPath);
  if (!target.exists) throw notFound(requestedPath, "File");
  // The file is stat'ed, opened and its first bytes read synchronously (protected.ts says why):
  // at most `maxBytes` (100 KB by default), from the page cache in tens of microseconds.
  const before = lstatSync(target.absolute);
  if (before.isDirectory()) throw new WorkspaceToolError(`Is a folder: ${JSON.stringify(requestedPath)}; use list_files.`);
  if (!before.isFile()) throw new WorkspaceToolError(`Not a regular file: ${JSON.stringify(requestedPath)}.`);

  // O_NOFOLLOW: a symlink swapped in since the check is refused; O_NONBLOCK: a FIFO swapped in
  // cannot hang the open.
  let fd: number;
  try {
    fd = openSync(target.absolute, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP") throw new WorkspaceError("symlink_escape", requestedPath);
    if (code === "ENOENT") throw notFound(requestedPath, "File");
    throw error;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.ino !== before.ino || stat.dev !== before.dev) {
      throw new WorkspaceToolError(`File changed while it was opened: ${JSON.stringify(requestedPath)}; try again.`);
    }
    const length = Math.min(stat.size, maxBytes);
    const buf = Buffer.alloc(length);
    let read = 0;
    while (read < length) {
      const bytesRead = readSync(fd, buf, read, length - read, read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    const bytes = buf.subarray(0, read);
    if (isBinary(bytes)) throw new WorkspaceToolError(`Binary file, not shown: ${JSON.stringify(requestedPath)} (${stat.size} bytes).`);
    // stream: true holds back a multi-byte character cut by maxBytes instead of emitting U+FFFD.
    const text = new TextDecoder("utf-8").decode(bytes, { stream: true });
    const complete = stat.size <= read;
    // The rest of a longer file is counted through the thread pool, 1 MiB at a time.
    const totalLines = complete ? null : await totalLinesOf(fd, bytes, stat.size, WORKSPACE_LIMITS.readCountMaxBytes);
    return shapeReadResult({ path: target.relative, text, size: stat.size, complete, totalLines }, outputCap(options.maxOutputChars));
  } finally {
    closeSync(fd);
  }
}

/** Options of {@link searchFiles}. */
export interface SearchOptions {
  /** Only files matching this glob (`*.ts`, `src/**\/*.{ts,tsx}`). */
  glob?: string;
  /** Folder to search in, project-relative. Default the whole project. */
  path?: string;
  /** Matches kept at most (the rest are counted). Default {@link WORKSPACE_LIMITS.searchMaxMatches}. */
  maxMatches?: number;
  /** Default false. */
  caseSensitive?: boolean;
  /** Larger files are skipped. Default {@link WORKSPACE_LIMITS.searchMaxFileBytes}. */
  maxFileBytes?: number;
  /** Files read at most. Default {@link WORKSPACE_LIMITS.searchMaxFiles}. */
  maxFiles?: number;
  /** Characters of JSON the result may take. Default {@link WORKSPACE_LIMITS.outputMaxChars}. */
  maxOutputChars?: number;
}

function excerpt(line: string, at: number, width: number): string {
  if (line.length <= width) return line;
  const start = Math.max(0, Math.min(at - Math.floor(width / 3), line.length - width));
  return `${start > 0 ? "…" : ""}${line.slice(start, start + width)}${start + width < line.length ? "…" : ""}`;
}

/**
 * Plain-text search (no regular expressions: a model's pattern could be catastrophic) through the
 * project's text files, one match per line, in path order. Skips {@link SKIPPED_DIRS}, symlinks
 * (never followed), binary files and files over `maxFileBytes`. Keeps the first `maxMatches`
 * matches and as many of them as fit in `maxOutputChars`; every other match found is counted and
 * reported as `omitted` with a note (a lower bound when `maxFiles` or
 * {@link WORKSPACE_LIMITS.searchMaxEntries} stopped the search).
 * @throws ValidationError for an empty or multi-line query or a bad glob; WorkspaceError for a
 *   `path` outside the project; NotFoundError when `path` does not exist.
 */
export async function searchFiles(parts: WorkspaceParts, projectRoot: string, query: string, options: SearchOptions = {}): Promise<SearchResult> {
  if (typeof query !== "string" || query.length === 0) throw new ValidationError("query must not be empty");
  if (query.length > 1000 || /[\r\n]/.test(query)) throw new ValidationError("query must be one line of at most 1000 characters");
  const maxMatches = Math.max(1, Math.floor(options.maxMatches ?? WORKSPACE_LIMITS.searchMaxMatches));
  const maxFileBytes = options.maxFileBytes ?? WORKSPACE_LIMITS.searchMaxFileBytes;
  const maxFiles = options.maxFiles ?? WORKSPACE_LIMITS.searchMaxFiles;
  const matchesGlob = options.glob ? globMatcher(options.glob) : () => true;
  const caseSensitive = options.caseSensitive ?? false;
  const needle = caseSensitive ? query : query.toLowerCase();

  const start = await resolveProjectPath(parts.protectedFolders, projectRoot, options.path ?? ".");
  if (!start.exists) throw notFound(options.path ?? ".", "Folder");
  const matches: SearchMatch[] = [];
  let found = 0;
  let filesScanned = 0;
  let entriesSeen = 0;
  let complete = true;

  const startStat = await fs.stat(start.absolute);
  const roots = parts.protectedFolders.list();

  // Depth-first in name order, so results are stable between runs.
  async function* walk(dir: string): AsyncGenerator<string> {
    let dirents: Dirent[];
    try {
      dirents = await fs.readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const d of dirents) {
      if (++entriesSeen > WORKSPACE_LIMITS.searchMaxEntries) return;
      const full = path.join(dir, d.name);
      if (d.isDirectory()) {
        if (!SKIPPED_DIRS.has(d.name) && !(await isProtectedEntry(full, d, roots))) yield* walk(full);
      } else if (d.isFile()) {
        yield full;
      }
    }
  }

  async function* single(file: string): AsyncGenerator<string> {
    yield file;
  }

  // `path` may name one file, which is then the only file searched.
  const source = startStat.isDirectory() ? walk(start.absolute) : single(start.absolute);
  for await (const file of source) {
    const rel = toRelative(start.root, file);
    if (!matchesGlob(rel)) continue;
    if (filesScanned >= maxFiles) {
      complete = false;
      break;
    }
    let buf: Buffer;
    try {
      const stat = await fs.lstat(file);
      if (!stat.isFile() || stat.size > maxFileBytes) continue;
      buf = await fs.readFile(file);
    } catch {
      continue;
    }
    filesScanned++;
    if (isBinary(buf)) continue;
    const lines = buf.toString("utf8").split("\n");
    for (let i = 0; i < lines.length; i++) {
      const line = (lines[i] ?? "").replace(/\r$/, "");
      const at = (caseSensitive ? line : line.toLowerCase()).indexOf(needle);
      if (at < 0) continue;
      found++;
      if (matches.length < maxMatches) matches.push({ path: rel, line: i + 1, text: excerpt(line, at, WORKSPACE_LIMITS.searchLineChars) });
    }
  }
  if (entriesSeen > WORKSPACE_LIMITS.searchMaxEntries) complete = false;
  return shapeSearchResult({ matches, found, filesScanned, complete }, outputCap(options.maxOutputChars));
}

/** Options of {@link writeFile}. */
export interface WriteOptions {
  /** Largest content accepted, in UTF-8 bytes. Default {@link WORKSPACE_LIMITS.writeMaxBytes}. */
  maxBytes?: number;
}

/** What {@link writeFile} returns. */
export interface WriteResult {
  path: string;
  /** UTF-8 bytes written. */
  bytes: number;
  /** True when the file did not exist before. */
  created: boolean;
}

/**
 * Writes a text file of the project atomically (temp file + rename: a reader never sees half a
 * file), creating missing parent folders, which are inside the project by construction.
 * Replacing a symlink that points inside the project writes its target. The write is queued in
 * `parts.queues` behind other writes of the file.
 * @throws WorkspaceError for a path outside the project or inside `.git`; WorkspaceToolError for
 *   a folder or a non-regular file at the path; AstrionError `payload_too_large` for content over `maxBytes`.
 */
export async function writeFile(parts: WorkspaceParts, projectRoot: string, requestedPath: string, content: string, options: WriteOptions = {}): Promise<WriteResult> {
  if (typeof content !== "string") throw new ValidationError("content must be a string");
  const maxBytes = options.maxBytes ?? WORKSPACE_LIMITS.writeMaxBytes;
  const bytes = Buffer.byteLength(content, "utf8");
  if (bytes > maxBytes) {
    throw new AstrionError("payload_too_large", `Content is ${bytes} bytes; at most ${maxBytes} may be written at once.`, {
      bytes,
      maxBytes,
    });
  }
  const target = await resolveProjectPath(parts.protectedFolders, projectRoot, requestedPath, { forWrite: true });
  if (target.relative === ".") throw new WorkspaceToolError("write_file needs a file path, not the project folder.");
  if (target.exists) {
    const stat = await fs.lstat(target.absolute);
    if (stat.isDirectory()) throw new WorkspaceToolError(`Is a folder: ${JSON.stringify(requestedPath)}.`);
    if (!stat.isFile()) throw new WorkspaceToolError(`Not a regular file: ${JSON.stringify(requestedPath)}.`);
  } else {
    try {
      await fs.mkdir(path.dirname(target.absolute), { recursive: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOTDIR" || code === "EEXIST") {
        throw new WorkspaceToolError(`A parent of ${JSON.stringify(requestedPath)} is a file, not a folder.`);
      }
      throw error;
    }
    // Check again now that the folders exist: a symlink planted meanwhile must not redirect the write.
    const again = await resolveProjectPath(parts.protectedFolders, projectRoot, requestedPath, { forWrite: true });
    if (again.absolute !== target.absolute) throw new WorkspaceError("symlink_escape", requestedPath);
  }
  await writeFileAtomic(parts.queues, target.absolute, content);
  return { path: target.relative, bytes, created: !target.exists };
}
