/**
 * Splits a role file into its exact parts (BOM, fences, frontmatter, body) and parses the
 * frontmatter with `yaml`, keeping the Document so callers can find each key's source lines.
 * Pure: no I/O. Nothing here changes a byte; joining the parts gives the input back.
 */
import { isCollection, isScalar, LineCounter, parseDocument, visit, type Document, type YAMLError } from "yaml";

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
  /** The language named after the opening fence (`---yaml`, read by gray-matter), lower case; `""` when none. */
  language: string;
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

// gray-matter's convention: a language may follow the opening fence (`---yaml`).
const OPEN_FENCE = /^---(?:[ \t]*([A-Za-z][\w-]*))?[ \t]*$/;
const CLOSE_FENCE = /^(?:---|\.\.\.)[ \t]*$/;

/**
 * Finds the frontmatter fences. The first line must be `---`; the frontmatter ends at the first
 * later line that is `---` or `...`, so `---` rules in the body are left alone.
 */
export function splitFrontmatter(text: string): SplitResult {
  const bom = text.startsWith("\uFEFF") ? "\uFEFF" : "";
  const lines = splitLines(text.slice(bom.length));
  const first = lines[0];
  const opening = first === undefined ? null : OPEN_FENCE.exec(lineContent(first));
  if (first === undefined || !opening) {
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
          language: (opening[1] ?? "").toLowerCase(),
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

/**
 * The options every YAML parse of frontmatter uses: the editor's `parseDocument` and the YAML
 * engine gray-matter reads with (lib/roles/matter.ts), so both read a file alike.
 */
export const YAML_PARSE_OPTIONS = { prettyErrors: false, uniqueKeys: true } as const;

/** Frontmatter languages read: YAML, however the opening fence names it. */
const YAML_LANGUAGES: readonly string[] = ["", "yaml", "yml"];

/** Parsed frontmatter: the yaml Document (with node ranges into `parts.yaml`) and its line index. */
interface ParsedFrontmatter {
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
 * Limits on frontmatter checked before it reaches the YAML parser. The parser recurses once per
 * nesting level (a few thousand levels of `- - - …` make V8 abort the whole process while
 * compiling a regular expression near the stack limit) and some of its checks grow with the
 * square of the number of keys, anchors or tags. Real role frontmatter is well under a kilobyte.
 */
export const FRONTMATTER_LIMITS = {
  /** Characters of frontmatter. */
  maxChars: 8192,
  /** Lines of frontmatter. */
  maxLines: 200,
  /** Columns of indentation (each nesting level of a block collection needs one more). */
  maxIndent: 64,
  /** `- `, `? ` or `: ` indicators at the start of one line (`- - a` nests two lists). */
  maxLineIndicators: 4,
  /** Such indicators in all (each block list item has one). */
  maxIndicators: 512,
  /** Open `[` / `{` at once. */
  maxFlowDepth: 8,
  /** Items of `[…]` / `{…}` in all (commas inside brackets). */
  maxFlowItems: 256,
  /** Anchors (`&a`), tags (`!t`) and aliases (`*a`), each. */
  maxNodeProperties: 64,
} as const;

/**
 * Why `yaml` (frontmatter text) is outside {@link FRONTMATTER_LIMITS}, or null when it is within.
 * A linear scan; brackets, commas and `&`/`!`/`*` inside quoted text count too, which only
 * matters for text far outside anything a role file holds.
 */
export function frontmatterShapeProblem(yaml: string): string | null {
  const L = FRONTMATTER_LIMITS;
  if (yaml.length > L.maxChars) return `the frontmatter is ${yaml.length} characters; at most ${L.maxChars}`;
  const props: Record<string, number> = { "&": 0, "!": 0, "*": 0 };
  let lines = 0;
  let depth = 0;
  let items = 0;
  let lineStart = true;
  let indent = 0;
  let lineIndicators = 0;
  let indicators = 0;
  for (let i = 0; i < yaml.length; i++) {
    const c = yaml[i]!;
    if (c === "\n") {
      if (++lines > L.maxLines) return `more than ${L.maxLines} lines`;
      lineStart = true;
      indent = 0;
      lineIndicators = 0;
      continue;
    }
    if (lineStart) {
      if (c === " " || c === "\t") {
        if (++indent > L.maxIndent) return `a line is indented more than ${L.maxIndent} columns`;
        continue;
      }
      const next = yaml[i + 1];
      if ((c === "-" || c === "?" || c === ":") && (next === " " || next === "\t" || next === "\n" || next === undefined)) {
        if (++lineIndicators > L.maxLineIndicators) return `a line opens more than ${L.maxLineIndicators} nested collections`;
        if (++indicators > L.maxIndicators) return `more than ${L.maxIndicators} list items or keys`;
        continue;
      }
      lineStart = false;
    }
    if (c === "[" || c === "{") {
      if (++depth > L.maxFlowDepth) return `more than ${L.maxFlowDepth} nested [ or {`;
    } else if (c === "]" || c === "}") {
      depth = Math.max(0, depth - 1);
    } else if (c === ",") {
      if (depth > 0 && ++items > L.maxFlowItems) return `more than ${L.maxFlowItems} items in [ ] or { }`;
    } else if (c === "&" || c === "!" || c === "*") {
      const before = i === 0 ? " " : yaml[i - 1]!;
      const after = yaml[i + 1] ?? " ";
      if (/[\s[{,]/.test(before) && !/\s/.test(after) && ++props[c]! > L.maxNodeProperties) {
        return `more than ${L.maxNodeProperties} "${c}" anchors, tags or aliases`;
      }
    }
  }
  return null;
}

/**
 * What a person can do about a YAML error, in plain words, when the error has a usual cause: a
 * plain value holding ": " (a Claude Code description such as `Use this agent when: …`) reads as
 * a mapping nested in the line, which YAML refuses.
 */
function plainWordsHint(code: string, lineText: string): string | null {
  if (code !== "BLOCK_AS_IMPLICIT_KEY" && code !== "MULTILINE_IMPLICIT_KEY") return null;
  const key = /^\s*([\w-]{1,64})\s*:\s/.exec(lineText)?.[1];
  return key ? `${key} contains ": " — put the value in quotes` : null;
}

/**
 * Where the quote or bracket that a YAML error says is never closed was opened. `yaml` reports
 * an unclosed `"`, `'`, `[` or `{` where it gave up looking for the closing one — the end of the
 * frontmatter, or the next line that is not indented — but the mistake is on the line that
 * opened it: the node that runs up to the error's position and began with that quote or bracket.
 */
function unclosedOpening(doc: Document.Parsed, error: YAMLError): number | undefined {
  if (error.code !== "MISSING_CHAR" && error.code !== "BAD_INDENT") return undefined;
  const at = error.pos[0];
  let opened: number | undefined;
  visit(doc, (_key, node) => {
    const range = isScalar(node) || isCollection(node) ? node.range : undefined;
    if (!range || range[1] !== at || range[0] >= at) return;
    const quoted = isScalar(node) && (node.type === "QUOTE_DOUBLE" || node.type === "QUOTE_SINGLE");
    // visit goes outer to inner: the innermost opener wins
    if (quoted || (isCollection(node) && node.flow)) opened = range[0];
  });
  return opened;
}

/**
 * Splits and parses a file's frontmatter. YAML errors come back with their first message and
 * the file line they point at; nothing throws.
 */
export function parseFrontmatter(text: string): ParseFrontmatterResult {
  const split = splitFrontmatter(text);
  if (!split.ok) return split;
  const parts = split.parts;
  if (!YAML_LANGUAGES.includes(parts.language)) {
    return { ok: false, error: { message: `the frontmatter language "${parts.language}" is not supported: only YAML (write '---' or '---yaml')`, line: 1 } };
  }
  const shape = frontmatterShapeProblem(parts.yaml);
  if (shape) return { ok: false, error: { message: `frontmatter too large or too deeply nested: ${shape}`, line: parts.firstLine } };
  const lineCounter = new LineCounter();
  let doc: Document.Parsed;
  try {
    doc = parseDocument(parts.yaml, { ...YAML_PARSE_OPTIONS, lineCounter });
  } catch (error) {
    return { ok: false, error: { message: `YAML error: ${(error as Error).message}`, line: parts.firstLine } };
  }
  const first = doc.errors[0];
  if (first) {
    const yamlLine = lineCounter.linePos(unclosedOpening(doc, first) ?? first.pos[0]).line;
    const line = yamlLine + parts.firstLine - 1;
    const hint = plainWordsHint(first.code, parts.yaml.split("\n")[yamlLine - 1] ?? "");
    return { ok: false, error: { message: `YAML error: ${first.message.split("\n")[0]}${hint ? ` — ${hint}` : ""}`, line } };
  }
  return { ok: true, value: { parts, doc, lineCounter } };
}
