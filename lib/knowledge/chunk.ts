/**
 * Cutting a file into passages: Markdown by its headings (each section keeps the path of headings
 * above it), code and other text by windows of lines. A passage knows its lines and heading, so a
 * hit can be cited as `file:start-end`. Long sections and windows are cut again so no passage is
 * larger than {@link CHUNK_LIMITS.maxChars}. Pure.
 */
import type { Passage } from "./schema";

/** Sizes of passages. */
export const CHUNK_LIMITS = {
  /** Lines of one code/text window. */
  windowLines: 40,
  /** Lines two neighbouring windows share, so a fact on a window's edge is whole in one of them. */
  overlapLines: 8,
  /** Lines of a Markdown section before it is cut into windows. */
  sectionLines: 60,
  /** Characters of one passage; a longer single line (minified code) keeps only its beginning. */
  maxChars: 3000,
} as const;

const MARKDOWN = /\.(md|mdx|markdown|mdown)$/i;
const HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** True for files chunked by headings. */
function isMarkdown(rel: string): boolean {
  return MARKDOWN.test(rel);
}

/** Cuts lines [from, to) (0-based) into passages of at most `size` lines and {@link CHUNK_LIMITS.maxChars} characters. */
function windows(lines: readonly string[], from: number, to: number, heading: string, size: number, overlap: number, out: Passage[]): void {
  let at = from;
  while (at < to) {
    let end = Math.min(to, at + size);
    let text = lines.slice(at, end).join("\n");
    // Too many characters: fewer lines, down to one (whose text is then cut).
    while (text.length > CHUNK_LIMITS.maxChars && end - at > 1) {
      end = at + Math.max(1, Math.floor((end - at) / 2));
      text = lines.slice(at, end).join("\n");
    }
    if (text.length > CHUNK_LIMITS.maxChars) text = text.slice(0, CHUNK_LIMITS.maxChars);
    if (text.trim() !== "") out.push({ start: at + 1, end, heading, text });
    if (end >= to) break;
    // Overlap only between full windows; a window cut short for its characters moves on without one.
    at = end - at === size ? Math.max(at + 1, end - overlap) : end;
  }
}

/** Passages of a Markdown text: one per section (heading and body), long sections in windows. */
export function chunkMarkdown(text: string): Passage[] {
  const lines = text.split("\n").map((l) => l.replace(/\r$/, ""));
  const out: Passage[] = [];
  const stack: Array<{ level: number; title: string }> = [];
  let fence: string | null = null;
  let sectionStart = 0;
  let heading = "";
  const flush = (end: number) => {
    if (end > sectionStart) windows(lines, sectionStart, end, heading, CHUNK_LIMITS.sectionLines, 0, out);
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const f = FENCE.exec(line);
    if (f) {
      if (fence === null) fence = f[1]![0]!;
      else if (f[1]![0] === fence) fence = null;
      continue;
    }
    if (fence !== null) continue;
    const h = HEADING.exec(line);
    if (!h) continue;
    flush(i);
    const level = h[1]!.length;
    while (stack.length && stack[stack.length - 1]!.level >= level) stack.pop();
    stack.push({ level, title: h[2]!.replace(/\s+/g, " ").slice(0, 200) });
    heading = stack.map((s) => s.title).join(" > ");
    sectionStart = i;
  }
  flush(lines.length);
  return out;
}

/** Passages of code or plain text: overlapping windows of lines. */
export function chunkLines(text: string): Passage[] {
  const lines = text.split("\n").map((l) => l.replace(/\r$/, ""));
  const out: Passage[] = [];
  windows(lines, 0, lines.length, "", CHUNK_LIMITS.windowLines, CHUNK_LIMITS.overlapLines, out);
  return out;
}

/** Passages of one file, by its kind. */
export function chunkFile(rel: string, text: string): Passage[] {
  return isMarkdown(rel) ? chunkMarkdown(text) : chunkLines(text);
}
