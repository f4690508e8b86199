/**
 * What one message contributes to the global and private slices, read from that message alone:
 * the conclusions it marks persistent, the work notes its tool calls make, whether it states the
 * conversation's goal. Pure. The history-wide lists are kept incrementally by `ContextWindow`.
 *
 * The marker (tell the models in their prompts): a line that starts with `CONCLUSION:` (any case)
 * or `结论：` / `结论:` — optionally after a list bullet (`-`, `*`, `•`, `1.`) or Markdown emphasis
 * (`**CONCLUSION:** …`). The rest of that line is one conclusion; it is promoted to the global
 * slice of every later call, so it survives when the message carrying it is evicted. A line that
 * starts with `NOTE:` (or `笔记：`) in an agent's own text is a private note: it joins the agent's
 * work notes (the private slice) the same way.
 */
import { parseJsonWithin } from "@/lib/input-limits";
import { ownValue } from "@/lib/own";
import type { Message } from "@/lib/contracts/on-disk";

/** The exact wording to put in prompts so models know how to promote a conclusion. */
export const PROMOTION_HINT =
  "To keep a conclusion in view for the rest of the conversation, write it on its own line starting with `CONCLUSION:` (or `结论：`). Such lines are kept in the shared context of every later model call even when older messages are left out.";

/** Longest conclusion kept (characters); a marker line is meant to be one sentence, not a report. */
const MAX_CONCLUSION_CHARS = 500;

// No two adjacent parts can match the same characters (each optional part starts with a
// character the part before cannot end with) and nothing after the captured rest can fail, so a
// line is matched in one pass: a long run of spaces or bullets cannot make it backtrack.
const MARKER = /^\s*(?:(?:[-*•]|\d+[.)])\s+)?(?:(?:\*\*|__)\s*)?(?:CONCLUSION|结论)\s*[:：]\s*(?:(?:\*\*|__)\s*)?(.*)/i;

// Where a marker can be: only the lines holding one of these words are looked at, so a text of a
// million short lines (a file's content in a tool call) is not split into a million strings.
const KEYWORD = /conclusion|结论/gi;

/** The conclusions marked persistent in `text`, in order, without duplicates. */
export function extractPromotions(text: string | null | undefined): string[] {
  return markedLines(text, KEYWORD, MARKER, MAX_CONCLUSION_CHARS);
}

/**
 * The rest of every line of `text` that `marker` matches, in order, without duplicates, each cut
 * to `max` characters. Only lines holding a `keyword` match are looked at.
 */
function markedLines(text: string | null | undefined, keywordPattern: RegExp, marker: RegExp, max: number): string[] {
  if (!text) return [];
  const out: string[] = [];
  const keyword = new RegExp(keywordPattern.source, keywordPattern.flags);
  for (let k = keyword.exec(text); k; k = keyword.exec(text)) {
    const start = text.lastIndexOf("\n", k.index) + 1;
    let lineEnd = text.indexOf("\n", k.index);
    if (lineEnd < 0) lineEnd = text.length;
    // the next search starts on the next line: one look per line, however many words it holds
    keyword.lastIndex = lineEnd + 1;
    const line = text.slice(start, text[lineEnd - 1] === "\r" ? lineEnd - 1 : lineEnd);
    const m = marker.exec(line);
    if (!m) continue;
    // only the start of a long line can be kept, so only the start is cleaned
    const body = (m[1] ?? "").slice(0, max + 8).replace(/(?:\*\*|__)\s*$/, "").trim().slice(0, max);
    if (body && !out.includes(body)) out.push(body);
  }
  return out;
}

/** The exact wording to put in a sub-agent's prompt so it knows how to keep a private note. */
export const NOTE_HINT =
  "To keep a note for yourself (what a file or search showed, what is left to do), write it on its own line starting with `NOTE:` (or `笔记：`). Such lines stay in your private notes for every later model call of your task, even when older messages are left out.";

/** Longest private note kept (characters): a note is a line, not a report. */
const MAX_NOTE_CHARS = 400;

// Same shape as MARKER (one pass, no backtracking), for `NOTE:` / `笔记：`.
const NOTE_MARKER = /^\s*(?:(?:[-*•]|\d+[.)])\s+)?(?:(?:\*\*|__)\s*)?(?:NOTE|笔记)\s*[:：]\s*(?:(?:\*\*|__)\s*)?(.*)/i;
const NOTE_KEYWORD = /note|笔记/gi;

/** The private notes an agent wrote in `text` (lines marked `NOTE:`), in order, without duplicates. */
export function extractNotes(text: string | null | undefined): string[] {
  return markedLines(text, NOTE_KEYWORD, NOTE_MARKER, MAX_NOTE_CHARS);
}

/**
 * The conclusions one message promotes, in the order they are met: from an assistant's text and
 * the string arguments of its own tool calls (a `report_to_leader` summary, a task or message it
 * sends), and from user-role messages (a person, or inter-agent texts `来自 …`: teammates'
 * reports and messages). Never from tool results: a file the agent opened must not be able to
 * plant "conclusions". May repeat a conclusion (once per text holding it).
 */
export function messagePromotions(m: Message): string[] {
  if (m.role === "assistant") {
    const out = extractPromotions(m.content);
    for (const call of m.tool_calls ?? []) out.push(...extractPromotions(stringValues(call.function.arguments).join("\n")));
    return out;
  }
  return m.role === "user" ? extractPromotions(m.content) : [];
}

/** True for inter-agent message text (`来自 <sender> 的…`, seed format). */
export function isInterAgentText(text: string | null | undefined): boolean {
  return typeof text === "string" && text.startsWith("来自 ");
}

/** True for a plain person message with text: the first one states the conversation's goal. */
export function isGoalMessage(m: Message): boolean {
  return m.role === "user" && m.metadata?.message_source !== "system" && !!m.content?.trim() && !isInterAgentText(m.content);
}

const NOTE_TOOLS: Readonly<Record<string, (args: Record<string, unknown>) => string | null>> = {
  read_file: (a) => (typeof a.path === "string" ? `read ${a.path}` : null),
  list_files: (a) => `listed ${typeof a.path === "string" && a.path ? a.path : "."}`,
  search_files: (a) => (typeof a.query === "string" ? `searched "${a.query}"${typeof a.path === "string" && a.path ? ` in ${a.path}` : ""}` : null),
  write_file: (a) => (typeof a.path === "string" ? `wrote ${a.path}` : null),
};

/** The notes a model kept apart from its text (`metadata.private_notes`, see `ChatResult.notes`). */
function keptNotes(m: Message): string[] {
  const kept = (m.metadata as { private_notes?: unknown } | undefined)?.private_notes;
  return Array.isArray(kept) ? kept.filter((n): n is string => typeof n === "string" && n.length > 0).map((n) => n.slice(0, MAX_NOTE_CHARS)) : [];
}

/**
 * The work notes of one of an agent's own messages, in order: the notes it wrote (`NOTE:` lines
 * of its text, see {@link NOTE_HINT}, and those it kept apart from its text), then those its
 * tool calls make (files read, folders listed, searches run, files written).
 */
export function messageWorkNotes(m: Message): string[] {
  if (m.role !== "assistant") return [];
  const out: string[] = [...extractNotes(m.content), ...keptNotes(m)];
  for (const call of m.tool_calls ?? []) {
    const note = ownValue(NOTE_TOOLS, call.function.name)?.(parseArgs(call.function.arguments));
    if (note) out.push(note);
  }
  return out;
}

function parseArgs(text: string): Record<string, unknown> {
  // model-written JSON: nesting is checked before parsing (see lib/input-limits)
  const result = parseJsonWithin(text, Number.POSITIVE_INFINITY);
  const v = result.ok ? result.value : null;
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function stringValues(text: string): string[] {
  return Object.values(parseArgs(text)).filter((v): v is string => typeof v === "string");
}
