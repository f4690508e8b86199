/**
 * What the workspace tools return to a model, and how each result is made to fit the tool output
 * cap without slicing its JSON: a listing or a search keeps as many whole entries or matches as
 * fit and says how many it left out; a file is cut at a line boundary and says which lines it
 * shows. One zod schema per result (the types are inferred from them). Pure: no I/O.
 */
import { z } from "zod";
import { jsonPrefixLength, keepWholeItems } from "@/lib/tools/shape";

/** One entry of a listing. */
const FileEntrySchema = z
  .object({
    /** Project-relative path with `/` separators. */
    path: z.string(),
    /** Symlinks are reported, never followed: following one could reveal what lies outside. */
    type: z.enum(["file", "dir", "symlink", "other"]),
    /** Size in bytes, for files. */
    size: z.number().int().nonnegative().optional(),
  })
  .strict();
/** One entry of a listing. */
export type FileEntry = z.infer<typeof FileEntrySchema>;

/** How many were left out, and what to do about it; present only when something was. */
const omissionFields = {
  omitted: z.number().int().positive().optional(),
  note: z.string().optional(),
};

/** What `list_files` returns. */
export const ListResultSchema = z
  .object({
    /** The listed folder, project-relative. */
    path: z.string(),
    entries: z.array(FileEntrySchema),
    /** True when entries exist that are not shown. */
    truncated: z.boolean(),
    ...omissionFields,
  })
  .strict();
/** What `list_files` returns. */
export type ListResult = z.infer<typeof ListResultSchema>;

/** One matching line. */
const SearchMatchSchema = z
  .object({
    path: z.string(),
    /** 1-based line number. */
    line: z.number().int().positive(),
    /** The line, shortened around the match when long. */
    text: z.string(),
  })
  .strict();
/** One matching line. */
export type SearchMatch = z.infer<typeof SearchMatchSchema>;

/** What `search_files` returns. */
export const SearchResultSchema = z
  .object({
    matches: z.array(SearchMatchSchema),
    /** True when matches exist that are not shown, or the search stopped before the end. */
    truncated: z.boolean(),
    filesScanned: z.number().int().nonnegative(),
    ...omissionFields,
  })
  .strict();
/** What `search_files` returns. */
export type SearchResult = z.infer<typeof SearchResultSchema>;

/** What `read_file` returns. */
export const ReadResultSchema = z
  .object({
    path: z.string(),
    /** The file's first lines, UTF-8 text, ending at a line boundary when cut (inside line 1 only when that line alone is too long). */
    content: z.string(),
    /** Size of the whole file in bytes. */
    size: z.number().int().nonnegative(),
    /** True when `content` is not the whole file. */
    truncated: z.boolean(),
    /** Lines in `content` (a cut line 1 counts as one). */
    linesShown: z.number().int().nonnegative(),
    /** Lines in the whole file; null when it was too large to count. */
    totalLines: z.number().int().nonnegative().nullable(),
    /** Says what was cut; present only when something was. */
    note: z.string().optional(),
  })
  .strict();
/** What `read_file` returns. */
export type ReadResult = z.infer<typeof ReadResultSchema>;

/** Lines of a text: its newlines, and one more when it does not end with one. */
export function countLines(text: string): number {
  let n = 0;
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) n++;
  return text.length > 0 && !text.endsWith("\n") ? n + 1 : n;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** How a note begins when the count after it is only a lower bound (the walk or search stopped early). */
const LOWER_BOUND = "at least ";
/** The note of a search that stopped early with nothing left out of what it found. */
const SEARCH_STOPPED_NOTE = "the search stopped before the end (too many files); more may match; narrow it with path or glob";

/** What a listing found: every entry kept (in order) and how many it saw in all. */
export interface ListFound {
  path: string;
  entries: FileEntry[];
  /** Entries seen, shown or not (≥ `entries.length`). */
  seen: number;
  /** False when the walk stopped counting: `seen` is then a lower bound. */
  complete: boolean;
}

/** The listing as sent: as many whole entries as fit in `maxChars` characters of JSON, and a count of the rest. */
export function shapeListResult(found: ListFound, maxChars: number): ListResult {
  const extra = found.seen - found.entries.length;
  return keepWholeItems(found.entries, maxChars, (entries, omitted): ListResult => {
    const left = omitted + extra;
    if (left === 0 && found.complete) return { path: found.path, entries, truncated: false };
    const note = `${found.complete ? "" : LOWER_BOUND}${plural(left, "more file", "more files")} not shown; list a subfolder`;
    return { path: found.path, entries, truncated: true, ...(left > 0 ? { omitted: left } : {}), note };
  }).value;
}

/** What a search found: the matches kept (in order) and how many it found in all. */
export interface SearchFound {
  matches: SearchMatch[];
  /** Matches found, kept or not (≥ `matches.length`). */
  found: number;
  filesScanned: number;
  /** False when a limit stopped the search before the end: `found` is then a lower bound. */
  complete: boolean;
}

/** The search as sent: as many whole matches as fit in `maxChars` characters of JSON, and a count of the rest. */
export function shapeSearchResult(found: SearchFound, maxChars: number): SearchResult {
  const extra = found.found - found.matches.length;
  return keepWholeItems(found.matches, maxChars, (matches, omitted): SearchResult => {
    const left = omitted + extra;
    const base = { matches, truncated: left > 0 || !found.complete, filesScanned: found.filesScanned };
    if (left > 0) {
      const note = `${found.complete ? "" : LOWER_BOUND}${plural(left, "more match", "more matches")} not shown; narrow the query (a more specific word, or path/glob)`;
      return { ...base, omitted: left, note };
    }
    if (!found.complete) return { ...base, note: SEARCH_STOPPED_NOTE };
    return base;
  }).value;
}

/** What was read of a file. */
export interface ReadFound {
  path: string;
  /** The text read: the whole file, or its first bytes (never ending in half a character). */
  text: string;
  /** Size of the whole file in bytes. */
  size: number;
  /** True when `text` is the whole file. */
  complete: boolean;
  /** Lines of the whole file when only its beginning was read; null when it was too large to count. Ignored when `complete`. */
  totalLines: number | null;
}

/**
 * The file as sent: whole when it was read whole and fits in `maxChars` characters of JSON;
 * otherwise its first whole lines that fit (line 1 cut only when it alone does not fit), with
 * `truncated`, the lines shown and the total, and a note. Longer than `maxChars` only when even
 * an empty `content` does not fit (a path of thousands of characters): the runtime's cap then
 * shrinks the JSON.
 */
export function shapeReadResult(found: ReadFound, maxChars: number): ReadResult {
  const { path, text, size } = found;
  // A file read whole is counted here; the I/O counts one it read only the beginning of.
  const totalLines = found.complete ? countLines(text) : found.totalLines;
  const whole: ReadResult = { path, content: text, size, truncated: false, linesShown: countLines(text), totalLines };
  if (found.complete && JSON.stringify(whole).length <= maxChars) return whole;

  const note = (shown: number, partial: boolean) =>
    partial
      ? `line 1 alone is too long to show: only its first ${shown} characters are shown (read_file has no line range; search_files with this file as path finds text further on)`
      : `lines 1-${shown} of ${totalLines ?? `a file of ${size} bytes`} shown; the rest was cut (read_file has no line range; search_files with this file as path finds text further on)`;
  const result = (content: string, linesShown: number, partial: boolean): ReadResult => ({
    path,
    content,
    size,
    truncated: true,
    linesShown,
    totalLines,
    note: note(partial ? content.length : linesShown, partial),
  });
  // Each envelope is measured with the largest count it can hold (no more digits than that).
  const linesRoom = maxChars - JSON.stringify(result("", countLines(text), false)).length;
  const fits = jsonPrefixLength(text, Math.max(0, linesRoom));
  let lineEnd = fits > 0 ? text.lastIndexOf("\n", fits - 1) + 1 : 0;
  if (lineEnd > 0) {
    let best = result(text.slice(0, lineEnd), countLines(text.slice(0, lineEnd)), false);
    // The counts have fewer digits than budgeted: the characters saved may hold a line or two more.
    for (let tries = 0; tries < 8; tries++) {
      const next = text.indexOf("\n", lineEnd) + 1;
      if (next === 0) break;
      const more = result(text.slice(0, next), best.linesShown + 1, false);
      if (JSON.stringify(more).length > maxChars) break;
      best = more;
      lineEnd = next;
    }
    return best;
  }
  const partialRoom = maxChars - JSON.stringify(result("", text.length, true)).length;
  const cut = jsonPrefixLength(text, Math.max(0, partialRoom));
  return result(text.slice(0, cut), cut > 0 ? 1 : 0, true);
}

/**
 * A result of `tool` that was already sent, made to fit `maxChars` characters again the way the
 * tool shapes it (whole entries or matches with the counts brought up to date, a file cut at a
 * line boundary), for the context window when it must shrink an older result. Null when `value`
 * is not such a result or even its emptiest form does not fit: the caller then shrinks it as
 * plain JSON.
 */
export function reshapeToolResult(tool: string, value: unknown, maxChars: number): string | null {
  const fitting = (result: unknown) => {
    const text = JSON.stringify(result);
    return text.length <= maxChars ? text : null;
  };
  if (tool === "list_files") {
    const parsed = ListResultSchema.safeParse(value);
    if (!parsed.success) return null;
    const r = parsed.data;
    const complete = !r.note?.startsWith(LOWER_BOUND);
    return fitting(shapeListResult({ path: r.path, entries: r.entries, seen: r.entries.length + (r.omitted ?? 0), complete }, maxChars));
  }
  if (tool === "search_files") {
    const parsed = SearchResultSchema.safeParse(value);
    if (!parsed.success) return null;
    const r = parsed.data;
    const complete = !(r.note?.startsWith(LOWER_BOUND) || r.note === SEARCH_STOPPED_NOTE);
    return fitting(shapeSearchResult({ matches: r.matches, found: r.matches.length + (r.omitted ?? 0), filesScanned: r.filesScanned, complete }, maxChars));
  }
  if (tool === "read_file") {
    const parsed = ReadResultSchema.safeParse(value);
    if (!parsed.success) return null;
    const r = parsed.data;
    return fitting(shapeReadResult({ path: r.path, text: r.content, size: r.size, complete: !r.truncated, totalLines: r.totalLines }, maxChars));
  }
  return null;
}
