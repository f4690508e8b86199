/**
 * What the offline sub-agent knows at one call: its notes (lib/models/offline/notes.ts) merged
 * with the tool results still in view. A result not noted yet becomes a note to write now, so
 * the next call finds it in the private slice even when the context window leaves the result
 * out. Every call the agent made is known by its key (`read <path>`, `listed <path>`,
 * `searched "<q>"`), so it never makes the same call twice. Pure.
 */
import type { ChatMessage } from "@/lib/models/types";
import { describeFile, type FileFacts } from "./files";
import { pastCalls, type PastCall } from "./history";
import {
  commandNote,
  commandOf,
  commandOutcome,
  didOf,
  failureNote,
  failureOf,
  type CommandOutcome,
  fileFactsOf,
  fileNote,
  listingNote,
  listingOf,
  parseNote,
  privateNotes,
  searchNote,
  searchOf,
  stepOf,
  type ListingDigest,
  type SearchDigest,
} from "./notes";
import { baseOf, importGraph, listingShape, type Entry } from "./project-map";
import { isRecord, str } from "./text";


/** Picks the entries of a listing worth noting (most relevant first). */
export type ListingPicker = (entries: readonly Entry[]) => { dirs: string[]; files: string[]; tests: string[] };

/** Everything the agent knows. */
export interface Known {
  /** Keys of the calls made (whatever their outcome). */
  done: Set<string>;
  listings: ListingDigest[];
  files: FileFacts[];
  searches: SearchDigest[];
  failed: Array<{ key: string; error: string }>;
  /** Entries of the listings still in view (all of them, not only those noted). */
  entries: Entry[];
  /** Model calls made for the task before this one (from the step notes). */
  step: number;
  /** Notes to write now: results in view that no note holds yet. */
  fresh: string[];
  /** The text of the note of each call noted (by its key: `read README.md`, `listed .`). */
  noteOf: Map<string, string>;
  /** The answer to the agent's question, once it came back. */
  asked?: { answer?: string; answeredBy?: string; error?: string };
  /** The command run for the goal (`run_command`), once asked for: its outcome once it came back. */
  command?: CommandOutcome;
  /** The report call, once made (and whether it failed). */
  reported?: { at: number; error?: string; count: number };
}

/** The path as a key uses it: no leading `./`, no trailing `/`, "." for the root. */
export function normalPath(path: unknown): string {
  const p = String(path ?? ".").trim().replace(/^\.\/+/, "").replace(/\/+$/, "");
  return p === "" ? "." : p;
}

/** The key of a call, in the runtime's work-note wording (lib/context/markers.ts). */
export function callKey(name: string, args: Record<string, unknown>): string {
  if (name === "read_file") return `read ${normalPath(args.path)}`;
  if (name === "list_files") return `listed ${normalPath(args.path)}`;
  if (name === "search_files") return `searched "${String(args.query ?? "")}"${typeof args.path === "string" && args.path ? ` in ${args.path}` : ""}`;
  return `${name} ${JSON.stringify(args)}`;
}

function entriesOf(c: PastCall): Entry[] {
  if (c.error || !isRecord(c.result) || !Array.isArray(c.result.entries)) return [];
  return c.result.entries.flatMap((e) => {
    const path = str(e, "path");
    const type = str(e, "type");
    if (!path || !type) return [];
    return [{ path, type, ...(isRecord(e) && typeof e.size === "number" ? { size: e.size } : {}) }];
  });
}

function omittedOf(result: unknown): number {
  if (!isRecord(result)) return 0;
  return typeof result.omitted === "number" ? result.omitted : result.truncated === true ? 1 : 0;
}

/** The matches of a search result. */
function matchesOf(c: PastCall): Array<{ path: string; line: number; text: string }> {
  if (c.error || !isRecord(c.result) || !Array.isArray(c.result.matches)) return [];
  return c.result.matches.flatMap((m) => {
    const path = str(m, "path");
    const line = isRecord(m) && typeof m.line === "number" ? m.line : undefined;
    return path && line !== undefined ? [{ path, line, text: str(m, "text") ?? "" }] : [];
  });
}

/** True for a search of import lines (its digest keeps the modules imported most). */
function isImportQuery(query: string): boolean {
  return /^(import |from |require\()$/.test(query);
}

function searchDigest(c: PastCall, topLevel: ReadonlySet<string>): SearchDigest {
  const ms = matchesOf(c);
  const hits: SearchDigest["hits"] = [];
  const perFile = new Map<string, number>();
  for (const m of ms) {
    // one hit per file first, so the note points at as many files as it can
    if (perFile.has(m.path) || hits.length >= 6) continue;
    perFile.set(m.path, m.line);
    hits.push({ path: m.path, line: m.line });
  }
  const path = typeof c.args.path === "string" && c.args.path ? c.args.path : undefined;
  const query = String(c.args.query ?? "");
  const modules = isImportQuery(query) ? importGraph(ms, topLevel) : [];
  return { query, ...(path ? { path } : {}), matches: ms.length, omitted: omittedOf(c.result), hits, ...(ms[0]?.text ? { first: ms[0].text.trim() } : {}), ...(modules.length ? { modules } : {}) };
}

/**
 * Merges the private notes of `messages` with the results in view after the task message at
 * `taskIdx`. `pick` chooses what a listing's note keeps.
 */
export function knownState(messages: readonly ChatMessage[], taskIdx: number, pick: ListingPicker): Known {
  const k: Known = { done: new Set(), listings: [], files: [], searches: [], failed: [], entries: [], step: 0, fresh: [], noteOf: new Map() };
  const noted = new Set<string>();
  for (const text of privateNotes(messages)) {
    const did = didOf(text);
    if (did) {
      for (const key of did) k.done.add(key);
      continue;
    }
    const step = stepOf(text);
    if (step !== null) {
      k.step = Math.max(k.step, step);
      continue;
    }
    const n = parseNote(text);
    const file = fileFactsOf(n);
    const listing = file ? null : listingOf(n);
    const search = file || listing ? null : searchOf(n);
    const ran = file || listing || search ? null : commandOf(n);
    if (ran) {
      k.command = ran;
      k.done.add("ran");
      continue;
    }
    const failure = file || listing || search ? null : failureOf(n);
    if (file) k.files.push(file);
    else if (listing) k.listings.push(listing);
    else if (search) k.searches.push(search);
    else if (failure) k.failed.push(failure);
    const key = failure ? failure.key : n.head;
    // a digest note, or the runtime's note of a call (`read a.ts`): either way the call was made
    k.done.add(key);
    if (file || listing || search || failure) {
      noted.add(key);
      k.noteOf.set(key, text);
    }
  }
  const calls = pastCalls(messages, taskIdx);
  for (const c of calls) {
    if (c.name === "report_to_leader") {
      k.reported = { at: c.at, count: (k.reported?.count ?? 0) + 1, ...(c.error ? { error: c.error } : {}) };
      continue;
    }
    if (c.name === "run_command") {
      k.done.add("ran");
      if (c.resultText === undefined) {
        k.command ??= { command: String(c.args.command ?? ""), pending: true };
        continue;
      }
      const outcome = commandOutcome(String(c.args.command ?? ""), c);
      if (!k.command || k.command.pending) {
        k.command = outcome;
        k.fresh.push(commandNote(outcome));
      }
      continue;
    }
    if (c.name === "ask_master") {
      k.done.add("asked");
      if (c.resultText !== undefined) k.asked = { answer: str(c.result, "answer"), answeredBy: str(c.result, "answered_by"), ...(c.error ? { error: c.error } : {}) };
      continue;
    }
    const key = callKey(c.name, c.args);
    k.done.add(key);
    if (c.resultText === undefined) continue;
    if (c.name === "list_files") k.entries.push(...entriesOf(c));
    if (noted.has(key)) continue;
    noted.add(key);
    if (c.error) {
      k.failed.push({ key, error: c.error });
      k.fresh.push(failureNote(key, c.error));
    } else if (c.name === "read_file") {
      const content = str(c.result, "content");
      if (content === undefined) {
        k.failed.push({ key, error: "unreadable result" });
        k.fresh.push(failureNote(key, "unreadable result"));
        continue;
      }
      // a result the context window cut ends with its note and a partial line: both are left out
      const cutAt = content.search(/\n…\[cut to fit the context budget[^\]\n]*\]\s*$/);
      const shown = cutAt >= 0 ? content.slice(0, content.lastIndexOf("\n", cutAt - 1) + 1) : content;
      const facts = describeFile(str(c.result, "path") ?? normalPath(c.args.path), shown, cutAt >= 0 || (isRecord(c.result) && c.result.truncated === true));
      k.files.push(facts);
      k.fresh.push(fileNote(facts));
      k.noteOf.set(key, fileNote(facts));
    } else if (c.name === "list_files") {
      const entries = entriesOf(c);
      const picked = pick(entries);
      const digest: ListingDigest = { path: normalPath(c.args.path), entries: entries.length, omitted: omittedOf(c.result), ...picked, ...listingShape(entries) };
      k.listings.push(digest);
      k.fresh.push(listingNote(digest));
      k.noteOf.set(key, listingNote(digest));
    } else if (c.name === "search_files") {
      // the project's own top-level folders (and those under src/): an absolute Python import of one is internal
      const topLevel = new Set(k.listings.flatMap((l) => (l.path === "." || l.path === "src" ? l.dirs.map(baseOf) : [])));
      for (const e of k.entries) if (e.type === "dir" && (!e.path.includes("/") || e.path.startsWith("src/"))) topLevel.add(baseOf(e.path));
      const digest = searchDigest(c, topLevel);
      k.searches.push(digest);
      k.fresh.push(searchNote(digest));
    }
  }
  return k;
}
