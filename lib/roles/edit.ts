/**
 * Writes the role form's changes back into a role file as a careful person would by hand: only
 * the lines of the fields that changed are rewritten, everything else (key order, comments,
 * blank lines, unknown keys, quoting, line endings, the body) stays byte for byte. Pure: no I/O.
 */
import { isMap, isNode, isScalar, isSeq, parseDocument, stringify, type Pair } from "yaml";
import { ValidationError } from "@/lib/contracts/errors";
import type { RoleFields } from "./schema";
import { frontmatterShapeProblem, lineContent, splitLines } from "./frontmatter";
import { analyzeRoleText, EDITABLE_KEYS, STRUCTURED_KEYS, type EditableKey, type RoleAnalysis, type RoleEditFields, type StructuredKey } from "./parse";

/** A key a save may rewrite. */
type WritableKey = EditableKey | StructuredKey;

/** What the role form sends: every editable field (unset ones `undefined`) and the prompt body. */
export interface RoleEditChanges {
  fields: RoleEditFields;
  body: string;
}

/** Characters JSON leaves raw that YAML wants escaped (C1 controls, line/paragraph separators, BOM). */
const NEEDS_ESCAPE = /[\u007f-\u009f\u2028\u2029\ufeff]/;
const NEEDS_ESCAPE_ALL = new RegExp(NEEDS_ESCAPE.source, "g");

/** A YAML double-quoted scalar (JSON's escapes are a subset of YAML's), with C1 controls escaped too. */
function doubleQuoted(value: string): string {
  return JSON.stringify(value).replace(
    NEEDS_ESCAPE_ALL,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** True when `value` written plain after `key: ` reads back as exactly the same string. */
function isPlainSafe(value: string): boolean {
  if (value === "" || value !== value.trim()) return false;
  if (/[\u0000-\u001f]/.test(value) || NEEDS_ESCAPE.test(value)) return false;
  // Plain text the YAML parser would read as deep structure is quoted without asking the parser.
  if (frontmatterShapeProblem(`k: ${value}\n`)) return false;
  try {
    const doc = parseDocument(`k: ${value}\n`);
    return (
      doc.errors.length === 0 &&
      doc.warnings.length === 0 &&
      isMap(doc.contents) &&
      doc.contents.items.length === 1 &&
      doc.get("k") === value
    );
  } catch {
    return false;
  }
}

/**
 * A string as a one-line YAML scalar: plain when that reads back the same, else double-quoted.
 * Never folded, however long, so a long description stays one line that diffs cleanly.
 */
export function scalarText(value: string): string {
  return isPlainSafe(value) ? value : doubleQuoted(value);
}

/** An item of a flow list: plain when `[item]` reads back as `[item]`, else double-quoted. */
function flowItemText(item: string): string {
  if (isPlainSafe(item) && !/[,[\]{}]/.test(item)) {
    try {
      const doc = parseDocument(`k: [${item}]\n`);
      const got = doc.toJS() as { k?: unknown } | null;
      if (doc.errors.length === 0 && Array.isArray(got?.k) && got.k.length === 1 && got.k[0] === item) return item;
    } catch {
      // fall through to quoting
    }
  }
  return doubleQuoted(item);
}

/** A list in flow style: `[a, b]`. */
function flowListText(items: readonly string[]): string {
  return `[${items.map(flowItemText).join(", ")}]`;
}

function normText(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  return trimmed === "" ? undefined : trimmed;
}

/** Whether the form's value equals the file's normalized value (so the field is left alone). */
function sameValue(key: EditableKey, before: unknown, after: unknown): boolean {
  if (key === "max_concurrency") return before === after;
  if (key === "capabilities" || key === "tools" || key === "permissions" || key === "mcp_servers" || key === "gateway") {
    const a = before as string[] | undefined;
    const b = (after as string[] | undefined)?.map((s) => s.trim()).filter((s) => s.length > 0);
    if (a === undefined || b === undefined) return a === b;
    return a.length === b.length && a.every((v, i) => v === b[i]);
  }
  return normText(before as string | undefined) === normText(after as string | undefined);
}

function toLf(text: string): string {
  return text.replace(/\r\n/g, "\n");
}

function withEol(text: string, eol: string): string {
  const lf = toLf(text);
  return eol === "\n" ? lf : lf.replace(/\n/g, eol);
}

/** How a list field was written, so a rewrite keeps that style. */
type ListStyle = { kind: "string"; separator: string } | { kind: "flow" } | { kind: "block"; indent: string };

function defaultSeparator(key: WritableKey): string {
  return key === "capabilities" ? "|" : ", ";
}

function listStyleOf(key: WritableKey, pair: Pair | undefined, yaml: string): ListStyle {
  const node = pair?.value;
  if (isScalar(node) && typeof node.value === "string") {
    const text = node.value;
    if (key === "capabilities" && text.includes("|")) return { kind: "string", separator: "|" };
    if (text.includes(",")) return { kind: "string", separator: /,\s/.test(text) ? ", " : "," };
    return { kind: "string", separator: defaultSeparator(key) };
  }
  if (isSeq(node) && !node.flow && node.range) {
    const start = node.range[0];
    const lineStart = yaml.lastIndexOf("\n", start - 1) + 1;
    const indent = yaml.slice(lineStart, start);
    return { kind: "block", indent: /^[ ]*$/.test(indent) ? indent : "  " };
  }
  return { kind: "flow" };
}

/** Whether trimmed, non-empty `items` survive being joined into one string and split again. */
function stringListReadsBack(key: WritableKey, items: readonly string[]): boolean {
  const splitter = key === "capabilities" ? /[|,]/ : /,/;
  return !items.some((item) => splitter.test(item));
}

/** A structured value (`provides`) as block YAML under its key, indented two spaces. */
function structuredText(value: unknown, eol: string): string {
  if (Array.isArray(value) && value.length === 0) return " []";
  const block = stringify(value, { lineWidth: 0, minContentWidth: 0 }).replace(/\n$/, "");
  return block
    .split("\n")
    .map((line) => `${eol}  ${line}`)
    .join("");
}

/** The text after `key:` for a new value: ` value` on the same line, or the lines of a block list. */
function valueText(key: WritableKey, value: unknown, style: ListStyle | undefined, eol: string): string {
  if (key === "provides") return structuredText(value, eol);
  if (key === "max_concurrency") return ` ${String(value)}`;
  if (key === "capabilities" || key === "tools" || key === "permissions" || key === "mcp_servers" || key === "gateway") {
    const items = (value as string[]).map((s) => s.trim()).filter((s) => s.length > 0);
    if (items.length === 0) return " []";
    const s = style ?? { kind: "flow" };
    if (s.kind === "string" && stringListReadsBack(key, items)) {
      return ` ${scalarText(items.join(s.separator))}`;
    }
    if (s.kind === "block") return items.map((item) => `${eol}${s.indent}- ${scalarText(item)}`).join("");
    return ` ${flowListText(items)}`;
  }
  return ` ${scalarText((value as string).trim())}`;
}

/** 0-based line index, in the frontmatter text, of a character offset. */
function lineIndexOf(analysis: RoleAnalysis, offset: number): number {
  return analysis.lineCounter.linePos(offset).line - 1;
}

interface Span {
  start: number;
  end: number;
}

/** The lines a top-level pair occupies: from its key's line to the last line of its value. */
function spanOf(analysis: RoleAnalysis, pair: Pair): Span | undefined {
  const keyRange = isNode(pair.key) ? pair.key.range : undefined;
  if (!keyRange) return undefined;
  const yaml = analysis.parts.yaml;
  const valueRange = isNode(pair.value) ? pair.value.range : undefined;
  const valueEnd = valueRange ? valueRange[1] : keyRange[1];
  const lastChar = valueEnd > 0 && yaml[valueEnd - 1] === "\n" ? valueEnd - 1 : valueEnd;
  return { start: lineIndexOf(analysis, keyRange[0]), end: lineIndexOf(analysis, Math.max(lastChar, keyRange[0])) };
}

/**
 * Applies the form's fields and body to a role file's text. Returns the original string itself
 * when nothing changed. Throws a ValidationError when the original does not load (it must then
 * be fixed as raw text).
 */
export function applyRoleEdit(originalText: string, changes: RoleEditChanges): string {
  const analysis = analyzeRoleText("role.md", originalText);
  if (!analysis.ok) {
    throw new ValidationError("this role file does not load; fix it in the raw editor first", [
      { path: "raw", message: analysis.error.message, ...(analysis.error.line ? { line: analysis.error.line } : {}) },
    ]);
  }
  const { parts } = analysis;
  const changed: WritableKey[] = EDITABLE_KEYS.filter(
    (key) => !sameValue(key, analysis.fields[key], (changes.fields as Partial<RoleEditFields>)[key]),
  );
  // A structured key the save does not name is kept as it is (the form does not edit it); one it
  // names is rewritten only when its value differs.
  for (const key of STRUCTURED_KEYS) {
    const next = (changes.fields as Partial<RoleEditFields>)[key];
    if (next !== undefined && JSON.stringify(next) !== JSON.stringify(analysis.fields[key])) changed.push(key);
  }
  const bodyChanged = toLf(changes.body) !== toLf(parts.body);
  if (changed.length === 0 && !bodyChanged) return originalText;

  const yaml = changed.length === 0 ? parts.yaml : rewriteFrontmatter(analysis, changed, changes.fields);
  let close = parts.close;
  let body = parts.body;
  if (bodyChanged) {
    body = withEol(changes.body, parts.eol);
    if (body !== "" && !close.endsWith("\n")) close += parts.eol;
  }
  return parts.bom + parts.open + yaml + close + body;
}

function rewriteFrontmatter(analysis: RoleAnalysis, changed: readonly WritableKey[], fields: RoleEditFields): string {
  const { parts, entries } = analysis;
  const eol = parts.eol;
  const yaml = parts.yaml;
  const map = analysis.doc.contents;
  const spans = new Map<string, Span>();
  let separable = isMap(map) && !map.flow;
  let previousEnd = -1;
  for (const entry of entries) {
    const span = spanOf(analysis, entry.pair);
    if (!span || span.start <= previousEnd) {
      separable = false;
      break;
    }
    previousEnd = span.end;
    spans.set(entry.key, span);
  }
  // An optional text field cleared in the form is removed, not written as `model: ""`.
  const values: Partial<Record<WritableKey, unknown>> = {};
  for (const [key, value] of Object.entries(fields) as [WritableKey, unknown][]) {
    values[key] = typeof value === "string" && value.trim() === "" ? undefined : value;
  }
  if (!separable) return rewriteWithDocument(analysis, changed, values);

  const lines = splitLines(yaml);
  const lineStarts: number[] = [];
  let offset = 0;
  for (const line of lines) {
    lineStarts.push(offset);
    offset += line.length;
  }
  const replacements = new Map<number, { end: number; text: string }>();
  const appended: string[] = [];
  for (const key of changed) {
    const value = values[key];
    const entry = entries.find((e) => e.key === key);
    const span = entry ? spans.get(key) : undefined;
    if (!entry || !span) {
      if (value !== undefined) appended.push(`${key}:${valueText(key, value, undefined, eol)}${eol}`);
      continue;
    }
    const lastLine = lines[span.end] ?? "";
    const lineEnding = lastLine.slice(lineContent(lastLine).length) || eol;
    if (value === undefined) {
      replacements.set(span.start, { end: span.end, text: "" });
      continue;
    }
    const keyRange = isNode(entry.pair.key) ? entry.pair.key.range : undefined;
    const lineStart = lineStarts[span.start] ?? 0;
    const colon = keyRange ? yaml.indexOf(":", keyRange[1]) : -1;
    const keyLineEnd = lineStart + lineContent(lines[span.start] ?? "").length;
    if (colon < 0 || colon >= keyLineEnd) return rewriteWithDocument(analysis, changed, values);
    const prefix = yaml.slice(lineStart, colon + 1);
    const style =
      key === "capabilities" || key === "tools" || key === "permissions" || key === "mcp_servers" || key === "gateway"
        ? listStyleOf(key, entry.pair, yaml)
        : undefined;
    let text = prefix + valueText(key, value, style, eol);
    // Keep a comment that followed a one-line value (`model: opus # fast enough`).
    const valueRange = isNode(entry.pair.value) ? entry.pair.value.range : undefined;
    if (span.start === span.end && valueRange && !text.includes("\n")) {
      const rest = yaml.slice(valueRange[1], keyLineEnd);
      if (/^[ \t]+#/.test(rest)) text += rest;
    }
    replacements.set(span.start, { end: span.end, text: text + lineEnding });
  }

  let out = "";
  for (let i = 0; i < lines.length; i++) {
    const replacement = replacements.get(i);
    if (replacement) {
      out += replacement.text;
      i = replacement.end;
    } else out += lines[i];
  }
  if (appended.length > 0 && out !== "" && !out.endsWith("\n")) out += eol;
  return out + appended.join("");
}

/**
 * Fallback for frontmatter whose keys cannot be told apart by line (a flow mapping such as
 * `{name: a, description: b}`): edit through the yaml Document, which keeps comments but may
 * re-space the mapping.
 */
function rewriteWithDocument(
  analysis: RoleAnalysis,
  changed: readonly WritableKey[],
  values: Partial<Record<WritableKey, unknown>>,
): string {
  const doc = parseDocument(analysis.parts.yaml);
  for (const key of changed) {
    const value = values[key];
    if (value === undefined) doc.delete(key);
    else if (Array.isArray(value)) doc.set(key, doc.createNode(value, { flow: key !== "provides" }));
    else doc.set(key, typeof value === "string" ? value.trim() : value);
  }
  return withEol(doc.toString({ lineWidth: 0, minContentWidth: 0 }), analysis.parts.eol);
}

/**
 * The text of a role created in the form: the fields in a fixed order (id, name, description,
 * model, thinking_mode, capabilities, tools, permissions, max_concurrency), then any extra keys,
 * then the body (with LF line endings, like the rest of a new file).
 */
export function serializeNewRole(fields: RoleFields, body: string, extra?: Record<string, unknown>): string {
  let out = "---\n";
  out += `id: ${scalarText(fields.id)}\n`;
  const values = fields as Partial<Record<EditableKey, unknown>>;
  for (const key of EDITABLE_KEYS) {
    const value = values[key];
    if (value === undefined) continue;
    if (typeof value === "string" && value.trim() === "" && key !== "name" && key !== "description") continue;
    out += `${key}:${valueText(key, value, undefined, "\n")}\n`;
  }
  for (const key of STRUCTURED_KEYS) {
    if (fields[key] !== undefined) out += `${key}:${valueText(key, fields[key], undefined, "\n")}\n`;
  }
  for (const [key, value] of Object.entries(extra ?? {})) {
    if (key === "id" || (EDITABLE_KEYS as readonly string[]).includes(key) || (STRUCTURED_KEYS as readonly string[]).includes(key) || value === undefined) continue;
    out += stringify({ [key]: value }, { lineWidth: 0, minContentWidth: 0 });
  }
  return `${out}---\n${toLf(body)}`;
}
