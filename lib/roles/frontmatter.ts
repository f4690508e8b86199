/**
 * Splits a role file into its exact parts (BOM, fences, frontmatter, body) and parses the
 * frontmatter with `yaml`, keeping the Document so callers can find each key's source lines.
 * Pure: no I/O. Nothing here changes a byte; joining the parts gives the input back.
 */
import { LineCounter, parseDocument, type Document } from "yaml";

/** The parts of a file with frontmatter. `bom + open + yaml + close + body` is the original text. */
export interface FrontmatterParts {
  /** `"\uFEFF"` when the file starts with a byte order mark, else `""`. */
  bom: string;
  /** The opening `---` line, with its line ending. */
  open: string;
  /** The frontmatter text between the fences: whole lines, each with its line ending. */
  yaml: string;
  /** The closing `---` (or `...`) line, with its line ending if it has one. */
  close: string;
  /** Everything after the closing fence line: the role's prompt. */
  body: string;
  /** The file's line ending, taken from the opening fence. */
  eol: "\n" | "\r\n";
  /** 1-based line number in the file of the first frontmatter line. */
  firstLine: number;
}

/** A problem found while reading a file; `line` is 1-based in the whole file when known. */
export interface FrontmatterProblem {
  message: string;
  line?: number;
}

export type SplitResult = { ok: true; parts: FrontmatterParts } | { ok: false; error: FrontmatterProblem };

/** Splits `text` into lines that keep their endings (`\n` or `\r\n`); the last may have none. */
export function splitLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** A line without its trailing `\n` / `\r\n`. */
export function lineContent(line: string): string {
  return line.replace(/\r?\n$/, "");
}

const OPEN_FENCE = /^---[ \t]*$/;
const CLOSE_FENCE = /^(?:---|\.\.\.)[ \t]*$/;

/**
 * Finds the frontmatter fences. The first line must be `---`; the frontmatter ends at the first
 * later line that is `---` or `...`, so `---` rules in the body are left alone.
 */
export function splitFrontmatter(text: string): SplitResult {
  const bom = text.startsWith("\uFEFF") ? "\uFEFF" : "";
  const lines = splitLines(text.slice(bom.length));
  const first = lines[0];
  if (first === undefined || !OPEN_FENCE.test(lineContent(first))) {
    return {
      ok: false,
      error: { message: "no frontmatter: the file must start with a '---' line, then the fields, then '---'", line: 1 },
    };
  }
  let yaml = "";
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] as string;
    if (CLOSE_FENCE.test(lineContent(line))) {
      return {
        ok: true,
        parts: {
          bom,
          open: first,
          yaml,
          close: line,
          body: lines.slice(i + 1).join(""),
          eol: first.endsWith("\r\n") ? "\r\n" : "\n",
          firstLine: 2,
        },
      };
    }
    yaml += line;
  }
  return {
    ok: false,
    error: { message: "unclosed frontmatter: no closing '---' line after the opening one", line: 1 },
  };
}

/** Parsed frontmatter: the yaml Document (with node ranges into `parts.yaml`) and its line index. */
export interface ParsedFrontmatter {
  parts: FrontmatterParts;
  doc: Document.Parsed;
  lineCounter: LineCounter;
}

export type ParseFrontmatterResult = { ok: true; value: ParsedFrontmatter } | { ok: false; error: FrontmatterProblem };

/** Converts an offset in the frontmatter text to a 1-based line of the whole file. */
export function fileLineOf(parsed: { parts: FrontmatterParts; lineCounter: LineCounter }, offset: number): number {
  return parsed.lineCounter.linePos(offset).line + parsed.parts.firstLine - 1;
}

/**
 * Splits and parses a file's frontmatter. YAML errors come back with their first message and
 * the file line they point at; nothing throws.
 */
export function parseFrontmatter(text: string): ParseFrontmatterResult {
  const split = splitFrontmatter(text);
  if (!split.ok) return split;
  const parts = split.parts;
  const lineCounter = new LineCounter();
  let doc: Document.Parsed;
  try {
    doc = parseDocument(parts.yaml, { lineCounter, prettyErrors: false, uniqueKeys: true });
  } catch (error) {
    return { ok: false, error: { message: `YAML error: ${(error as Error).message}`, line: parts.firstLine } };
  }
  const first = doc.errors[0];
  if (first) {
    const line = lineCounter.linePos(first.pos[0]).line + parts.firstLine - 1;
    return { ok: false, error: { message: `YAML error: ${first.message.split("\n")[0]}`, line } };
  }
  return { ok: true, value: { parts, doc, lineCounter } };
}
