/**
 * Putting text from a conversation into a Markdown report without letting it change the report's
 * structure: a message may hold `</details>`, a fence, a heading or a table row. Pure.
 *
 * - Whole texts (messages, tool output) go into a fenced code block whose fence is longer than
 *   any run of backticks inside, so nothing in the text can close it.
 * - Short texts (titles, names, table cells) are flattened to one line with Markdown syntax
 *   backslash-escaped; in `<summary>` (an HTML line) with HTML's special characters as references.
 */

/** Characters that can start Markdown syntax inside a line (CommonMark escapable punctuation that matters). */
const MARKDOWN_SPECIAL = /[\\`*_[\]<>|~&#!]/g;

function flatten(text: string, maxChars: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > maxChars ? `${flat.slice(0, maxChars - 1).replace(/[\uD800-\uDBFF]$/, "")}…` : flat;
}

/**
 * One line of inert Markdown text: whitespace runs (line breaks included) become one space and
 * every character that could start syntax inside a line is backslash-escaped. Safe after a
 * heading marker, in a paragraph or a table cell; not at the start of a line (use a prefix).
 */
export function inline(text: string, maxChars = 300): string {
  return flatten(text, maxChars).replace(MARKDOWN_SPECIAL, (c) => `\\${c}`);
}

/**
 * One line of inert HTML text, for `<summary>` (Markdown is not read inside an HTML line): flattened,
 * with `& < > " '` as character references.
 */
export function htmlInline(text: string, maxChars = 300): string {
  return flatten(text, maxChars).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The longest run of `char` in `text`. */
function longestRun(text: string, char: string): number {
  let longest = 0;
  let run = 0;
  for (const c of text) {
    run = c === char ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  return longest;
}

/**
 * `text` as a fenced code block (lines ending in `\n`), fenced with one backtick more than the
 * longest run inside (at least three). `info` names the language (`text`, `json`).
 */
export function fenced(text: string, info = "text"): string {
  const fence = "`".repeat(Math.max(3, longestRun(text, "`") + 1));
  const body = text.replace(/\r\n?/g, "\n").replace(/\n+$/, "");
  return `${fence}${info}\n${body}\n${fence}\n`;
}

/** `block` (Markdown lines) as a block quote: every line prefixed with `> `. */
export function quoted(block: string): string {
  return block
    .replace(/\n$/, "")
    .split("\n")
    .map((line) => (line ? `> ${line}` : ">"))
    .join("\n")
    .concat("\n");
}

/** At most `max` characters of `text`, with a note of how much was left out. */
export function clipped(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max).replace(/[\uD800-\uDBFF]$/, "");
  return `${cut}\n… (${text.length - cut.length} more characters)`;
}

/** A Markdown table; every cell is made inert with {@link inline}. */
export function table(header: string[], rows: Array<Array<string | number>>): string {
  const line = (cells: Array<string | number>) => `| ${cells.map((c) => (typeof c === "number" ? c.toLocaleString("en-US") : inline(c))).join(" | ")} |`;
  return [line(header), `|${header.map(() => " --- ").join("|")}|`, ...rows.map(line)].join("\n").concat("\n");
}
