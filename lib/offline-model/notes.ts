/**
 * The offline sub-agent's memory: private notes (`NOTE:` lines it writes, which the runtime keeps
 * in the private slice of every later call of its task, lib/context/markers.ts) plus the work
 * notes the runtime derives from its tool calls (`read <path>`, `listed <path>`, `searched "<q>"`).
 * The context window may leave old tool results out; these notes stay. Pure.
 *
 * A note of ours is one line `<head>; key: value; key: value`, readable by a person in the agent
 * drawer and parsed back here. Values never hold "; " or a line break (they are cleaned).
 */
import { PRIVATE_NOTES_HEADING } from "@/lib/context/lines";
import type { ChatMessage } from "@/lib/models/types";
import type { FileFacts, Flag } from "./files";
import type { ImportedModule } from "./project-map";
import { clip } from "./text";

/** The private notes in a request's system message, oldest first ([] when there are none). */
export function privateNotes(messages: readonly ChatMessage[]): string[] {
  const system = messages.find((m) => m.role === "system");
  const text = typeof system?.content === "string" ? system.content : "";
  const at = text.lastIndexOf(PRIVATE_NOTES_HEADING);
  if (at < 0) return [];
  const out: string[] = [];
  for (const line of text.slice(at + PRIVATE_NOTES_HEADING.length).split("\n").slice(1)) {
    if (!line.startsWith("- ")) break;
    out.push(line.slice(2));
  }
  return out.reverse();
}

/** A value safe inside a note (no field separator, no line break). */
function clean(value: string, max: number): string {
  return clip(value.replace(/[\r\n]+/g, " ").replace(/;\s/g, ", ").replace(/;$/, ""), max);
}

/** One note line (without the `NOTE: ` marker): the head, then the fields that have a value. */
function noteLine(head: string, fields: ReadonlyArray<readonly [string, string | number | undefined]>): string {
  const parts = [clean(head, 160)];
  for (const [key, value] of fields) if (value !== undefined && value !== "") parts.push(`${key}: ${typeof value === "number" ? value : clean(value, 200)}`);
  return parts.join("; ");
}

/** A note split into its head and fields (a key may repeat). */
export interface ParsedNote {
  head: string;
  fields: Map<string, string[]>;
}

/** Parses a note line written by {@link noteLine}. */
export function parseNote(text: string): ParsedNote {
  const [head = "", ...rest] = text.split("; ");
  const fields = new Map<string, string[]>();
  for (const part of rest) {
    const at = part.indexOf(": ");
    if (at <= 0) continue;
    const key = part.slice(0, at);
    fields.set(key, [...(fields.get(key) ?? []), part.slice(at + 2)]);
  }
  return { head, fields };
}

const first = (n: ParsedNote, key: string) => n.fields.get(key)?.[0];
const list = (n: ParsedNote, key: string) => (first(n, key) ?? "").split(", ").filter(Boolean);

// ------------------------------------------------------------------ what a read file showed

/** The note of a file read: enough of its facts for the report. */
export function fileNote(f: FileFacts): string {
  // Short: every note of the task shares the private slice's budget (1,000 tokens by default).
  const flag = (x: Flag) => `${x.line} ${clip(x.why, 40)} | ${clip(x.text, 30)}`;
  return noteLine(`read ${f.path}`, [
    ["lines", f.lines],
    ["quote", f.quote ? clip(f.quote, 50) : undefined],
    ["pkg", f.packageName],
    ["exports", f.exports.slice(0, 3).map((e, i) => (f.exportLines[i] ? `${e}@${f.exportLines[i]}` : e)).join(", ")],
    ["entries", f.entries.map((e) => `${e.field.replace(/[=,]/g, " ")}=${e.path}`).join(", ")],
    ["targets", f.targets.slice(0, 6).join(", ")],
    ...f.todos.slice(0, 1).map((t) => ["todo", flag(t)] as const),
    ...f.risks.slice(0, 2).map((r) => ["risk", flag(r)] as const),
    // the test and build commands first: they are the test setup every report states
    ["scripts", Object.entries(f.scripts).sort(([a], [b]) => Number(b === "test" || b === "build") - Number(a === "test" || a === "build")).slice(0, 4).map(([k, v]) => `${k}=${clip(v, k === "test" || k === "build" ? 60 : 25).replace(/,/g, " ")}`).join(", ")],
    ["headings", f.headings.slice(0, 4).map((h) => clip(h.replace(/,/g, " "), 20)).join(", ")],
    ["colors", f.colors.slice(0, 6).join(", ")],
    ["css", f.path.match(/\.(css|scss|sass|less)$/i) ? `${f.media ? "media" : "no-media"} ${f.focus ? "focus" : "no-focus"}` : undefined],
    ["noalt", f.imagesWithoutAlt || undefined],
    ["test", f.isTest ? "yes" : undefined],
    ["cut", f.finding.includes(", truncated)") ? "yes" : undefined],
  ]);
}

function flagOf(path: string, raw: string): Flag | null {
  const m = /^(\d+) (.*?)(?: \| (.*))?$/.exec(raw);
  return m ? { path, line: Number(m[1]), why: m[2] ?? "", text: m[3] ?? "" } : null;
}

/** The facts a file note holds (null when `n` is not one). */
export function fileFactsOf(n: ParsedNote): FileFacts | null {
  const path = /^read (.+)$/.exec(n.head)?.[1];
  // the runtime's own note of the call (`read a.ts`) has no fields: it says the call was made
  if (!path || !n.fields.has("lines")) return null;
  const lines = Number(first(n, "lines") ?? 0);
  const cut = first(n, "cut") === "yes";
  const quote = first(n, "quote");
  const css = first(n, "css") ?? "";
  const exports = list(n, "exports").map((e) => e.split("@"));
  const scripts: Record<string, string> = {};
  for (const s of list(n, "scripts")) {
    const at = s.indexOf("=");
    if (at > 0) scripts[s.slice(0, at)] = s.slice(at + 1);
  }
  return {
    path,
    finding: `\`${path}\` (${lines} ${lines === 1 ? "line" : "lines"}${cut ? ", truncated" : ""})${quote ? `: "${quote}"` : ""}.`,
    ...(quote ? { quote } : {}),
    ...(first(n, "pkg") ? { packageName: first(n, "pkg") } : {}),
    entries: list(n, "entries").flatMap((e) => {
      const at = e.indexOf("=");
      return at > 0 ? [{ field: e.slice(0, at), path: e.slice(at + 1) }] : [];
    }),
    targets: list(n, "targets"),
    lines,
    headings: list(n, "headings"),
    exports: exports.map(([name]) => name!),
    exportLines: exports.map(([, line]) => Number(line ?? 0)),
    colors: list(n, "colors"),
    scripts,
    risks: (n.fields.get("risk") ?? []).flatMap((r) => flagOf(path, r) ?? []),
    todos: (n.fields.get("todo") ?? []).flatMap((t) => flagOf(path, t) ?? []),
    media: css.startsWith("media"),
    focus: css.endsWith(" focus"),
    imagesWithoutAlt: Number(first(n, "noalt") ?? 0),
    isTest: first(n, "test") === "yes",
  };
}

// ------------------------------------------------------------------ listings and searches

/** What a listing showed, as kept in a note: counts and the entries worth coming back to. */
export interface ListingDigest {
  path: string;
  entries: number;
  omitted: number;
  dirs: string[];
  files: string[];
  tests: string[];
  /** Files by extension (`ts:10`), most first: what the folder holds. */
  kinds: string[];
  /** Files that mark what the folder is (package.json, __init__.py, __main__.py, pyproject.toml…). */
  marks: string[];
  /** Test files in the listing, counted. */
  testCount: number;
}

/** `path` relative to the listed folder `dir` (the note is shorter; {@link listingOf} puts it back). */
function rel(dir: string, path: string): string {
  return dir !== "." && path.startsWith(`${dir}/`) ? path.slice(dir.length + 1) : path;
}

function unrel(dir: string, name: string): string {
  return dir === "." ? name : `${dir}/${name}`;
}

/** The note of a listing (names relative to the folder: every note shares the private slice's budget). */
export function listingNote(d: ListingDigest): string {
  const names = (xs: readonly string[], n: number) => xs.slice(0, n).map((x) => rel(d.path, x)).join(", ");
  return noteLine(`listed ${d.path}`, [
    ["entries", d.entries],
    ["omitted", d.omitted || undefined],
    ["dirs", names(d.dirs, 8)],
    ["files", names(d.files, 4)],
    ["tests", names(d.tests, 2)],
    ["ntests", d.testCount || undefined],
    ["kinds", d.kinds.slice(0, 3).join(", ")],
    ["marks", d.marks.join(", ")],
  ]);
}

/** The listing a note holds (null when `n` is not one). */
export function listingOf(n: ParsedNote): ListingDigest | null {
  const path = /^listed (.+)$/.exec(n.head)?.[1];
  if (!path || !n.fields.has("entries")) return null;
  const names = (key: string) => list(n, key).map((x) => unrel(path, x));
  return {
    path,
    entries: Number(first(n, "entries")),
    omitted: Number(first(n, "omitted") ?? 0),
    dirs: names("dirs"),
    files: names("files"),
    tests: names("tests"),
    testCount: Number(first(n, "ntests") ?? 0),
    kinds: list(n, "kinds"),
    marks: list(n, "marks"),
  };
}

/** What a search found, as kept in a note. */
export interface SearchDigest {
  query: string;
  path?: string;
  matches: number;
  omitted: number;
  hits: Array<{ path: string; line: number }>;
  first?: string;
  /** For a search of import lines: the modules imported most, with how many files import each and one line that does. */
  modules?: ImportedModule[];
}

/** The note of a search. */
export function searchNote(d: SearchDigest): string {
  // the runtime's wording of the call (lib/context/markers.ts), so both name it alike
  return noteLine(`searched "${d.query}"${d.path ? ` in ${d.path}` : ""}`, [
    ["matches", d.matches],
    ["omitted", d.omitted || undefined],
    ["hits", d.hits.slice(0, 4).map((h) => `${h.path}:${h.line}`).join(", ")],
    ["first", d.first ? clip(d.first, 60) : undefined],
    ["modules", d.modules?.map((m) => `${m.module}*${m.files}@${m.at.path}:${m.at.line}`).join(", ")],
  ]);
}

/** The search a note holds (null when `n` is not one). */
export function searchOf(n: ParsedNote): SearchDigest | null {
  const m = /^searched "(.*)"(?: in (.+))?$/.exec(n.head);
  if (!m || !n.fields.has("matches")) return null;
  const query = m[1]!;
  const hits = list(n, "hits").flatMap((h) => {
    const at = h.lastIndexOf(":");
    const line = Number(h.slice(at + 1));
    return at > 0 && Number.isInteger(line) ? [{ path: h.slice(0, at), line }] : [];
  });
  const modules = list(n, "modules").flatMap((x) => {
    const mm = /^(.+)\*(\d+)@(.+):(\d+)$/.exec(x);
    return mm ? [{ module: mm[1]!, files: Number(mm[2]), at: { path: mm[3]!, line: Number(mm[4]) } }] : [];
  });
  return { query, ...(m[2] ? { path: m[2] } : {}), matches: Number(first(n, "matches")), omitted: Number(first(n, "omitted") ?? 0), hits, ...(first(n, "first") ? { first: first(n, "first") } : {}), ...(modules.length ? { modules } : {}) };
}

/** The note of a call that failed. */
export function failureNote(key: string, error: string): string {
  return noteLine(`failed ${key}`, [["error", clip(error, 100)]]);
}

/** The failure a note holds: the call's key ("read src/a.ts") and the error. */
export function failureOf(n: ParsedNote): { key: string; error: string } | null {
  const key = /^failed (.+)$/.exec(n.head)?.[1];
  return key ? { key, error: first(n, "error") ?? "" } : null;
}

// ------------------------------------------------------------------ a command run

/** What came of the command the agent asked to run. */
export interface CommandOutcome {
  command: string;
  /** True while no result has come back (waiting for a person's approval, or running). */
  pending: boolean;
  exitCode?: number | null;
  timedOut?: boolean;
  /** The last lines of its output (a summary, not the whole). */
  tail?: string;
  /** Why it did not run: a person refused it, the policy denied it, it could not start. */
  refused?: string;
  durationMs?: number;
}

/** The outcome of a `run_command` call from its result. */
export function commandOutcome(command: string, c: { result?: unknown; error?: string; resultText?: string }): CommandOutcome {
  const r = (c.result ?? {}) as Record<string, unknown>;
  // a result with an exit code ran (or could not start: its error is the output); an error alone is a refusal
  if (!("exit_code" in r)) return { command, pending: false, refused: clip(c.error ?? (typeof r.error === "string" ? r.error : c.resultText ?? ""), 160) };
  const output = typeof r.error === "string" ? r.error : typeof r.output === "string" ? r.output : "";
  const lines = output.split("\n").map((l) => l.trimEnd()).filter((l) => l.trim());
  return {
    command,
    pending: false,
    exitCode: typeof r.exit_code === "number" ? r.exit_code : null,
    timedOut: r.timed_out === true,
    tail: clip(lines.slice(-3).join(" / "), 160),
    ...(typeof r.duration_ms === "number" ? { durationMs: r.duration_ms } : {}),
  };
}

/** The note of a command's outcome. */
export function commandNote(o: CommandOutcome): string {
  return noteLine(`ran ${o.command}`, [
    ["exit", o.exitCode === undefined ? undefined : String(o.exitCode)],
    ["timeout", o.timedOut ? "yes" : undefined],
    ["out", o.tail],
    ["refused", o.refused],
    ["ms", o.durationMs],
  ]);
}

/** The command outcome a note holds (null when `n` is not one). */
export function commandOf(n: ParsedNote): CommandOutcome | null {
  const command = /^ran (.+)$/.exec(n.head)?.[1];
  if (!command) return null;
  const exit = first(n, "exit");
  const ms = first(n, "ms");
  return {
    command,
    pending: false,
    ...(exit !== undefined ? { exitCode: exit === "null" ? null : Number(exit) } : {}),
    ...(first(n, "timeout") ? { timedOut: true } : {}),
    ...(first(n, "out") ? { tail: first(n, "out") } : {}),
    ...(first(n, "refused") ? { refused: first(n, "refused") } : {}),
    ...(ms ? { durationMs: Number(ms) } : {}),
  };
}

// ------------------------------------------------------------------ what was done

const DID: ReadonlyArray<[string, string]> = [["read ", "did read: "], ["listed ", "did list: "], ["searched ", "did search: "]];

/**
 * Notes that name every call made so far (`did read: a.ts | b.ts`), written again at every step:
 * the newest notes are the ones the private slice keeps, so however many older notes its budget
 * leaves out, the agent still knows what it did and never does it twice.
 */
export function didNotes(done: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (const [prefix, head] of DID) {
    const items = [...done].filter((d) => d.startsWith(prefix)).map((d) => d.slice(prefix.length));
    let line = "";
    for (const item of items) {
      const next = line ? `${line} | ${item}` : `${head}${item}`;
      if (next.length > 380 && line) {
        out.push(line);
        line = `${head}${item}`;
      } else line = next;
    }
    if (line) out.push(line);
  }
  const flags = ["asked", "ran"].filter((f) => done.has(f));
  if (flags.length) out.push(`did: ${flags.join(" | ")}`);
  return out;
}

/** The call keys a {@link didNotes} note names (null when `text` is not one). */
export function didOf(text: string): string[] | null {
  if (text.startsWith("did: ")) return text.slice(5).split(" | ");
  for (const [prefix, head] of DID) if (text.startsWith(head)) return text.slice(head.length).split(" | ").map((x) => `${prefix}${x}`);
  return null;
}

/** The note that counts the agent's model calls for its task. */
export function stepNote(step: number, max: number): string {
  return `step ${step} of at most ${max}`;
}

/** The step a note counts (null when `text` is not a step note). */
export function stepOf(text: string): number | null {
  const m = /^step (\d+) of at most \d+$/.exec(text);
  return m ? Number(m[1]) : null;
}
