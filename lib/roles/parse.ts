import "server-only";
/**
 * Reads one role file (`agents/<id>.md`) into a {@link RoleDetail}, or into a
 * {@link RoleErrorDetail} that says what is wrong and on which line. Pure: no I/O, never throws.
 *
 * Files written by other tools load too: Claude Code subagent files have no `id` (the file name
 * is the id), write `tools` as a comma string and carry keys of their own such as `color`, which
 * are kept in `extra`.
 */
import { isMap, isNode, isScalar, type Document, type LineCounter, type Pair } from "yaml";
import {
  RoleFieldsSchema,
  type RoleDetail,
  type RoleErrorDetail,
  type RoleFields,
} from "./schema";
import { fileLineOf, parseFrontmatter, type FrontmatterParts, type FrontmatterProblem } from "./frontmatter";
import { readMatter } from "./matter";
import { setOwn } from "@/lib/own";
import { computeEtag } from "@/lib/store/etag";

/** The frontmatter keys the role form edits, in the order a new file writes them. */
export const EDITABLE_KEYS = [
  "name",
  "description",
  "model",
  "thinking_mode",
  "capabilities",
  "tools",
  "permissions",
  "max_concurrency",
  "mcp_servers",
  // protocol gateway (issue 10)
  "gateway",
] as const;
export type EditableKey = (typeof EDITABLE_KEYS)[number];

/**
 * Structured keys: validated like the editable ones, but the form does not edit them. A form
 * save leaves their lines as they are unless it names a new value (lib/roles/edit.ts); they are
 * edited as raw text. `provides`: the role's abilities (lib/abilities).
 */
export const STRUCTURED_KEYS = ["provides"] as const;
export type StructuredKey = (typeof STRUCTURED_KEYS)[number];

/**
 * The approval policy's keys (issue 10): read and validated like the form's fields, but written
 * by hand in the file (the form shows them and never rewrites their lines).
 */
const POLICY_KEYS = ["tool_policy", "allowed_commands"] as const;

/** Keys with a meaning in this product; every other key is "extra" and kept as it is. */
const KNOWN_KEYS: readonly string[] = ["id", ...EDITABLE_KEYS, ...STRUCTURED_KEYS, ...POLICY_KEYS];

/** The editable fields of a role (everything but the id, which is the file name). */
export type RoleEditFields = Omit<RoleFields, "id">;

/** `ui-operator.md` → `ui-operator`; any folder part is ignored. */
export function roleIdFromFileName(fileName: string): string {
  const base = fileName.split(/[\\/]/).pop() ?? fileName;
  return base.replace(/\.md$/i, "");
}

type Normalized<T> = { ok: true; value: T | undefined } | { ok: false; message: string };

/** Splits a tag or tool string: capabilities take `|` or `,`, tools and permissions take `,`. */
function splitList(text: string, separators: RegExp): string[] {
  return text
    .split(separators)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

function normalizeList(key: string, value: unknown, separators: RegExp): Normalized<string[]> {
  if (value === null || value === undefined) return { ok: true, value: undefined };
  if (typeof value === "string") return { ok: true, value: splitList(value, separators) };
  if (Array.isArray(value)) {
    const out: string[] = [];
    for (const item of value) {
      if (typeof item === "string") {
        const trimmed = item.trim();
        if (trimmed) out.push(trimmed);
      } else if (typeof item === "number" || typeof item === "boolean") out.push(String(item));
      else return { ok: false, message: `${key}: every item must be a word (found ${describe(item)})` };
    }
    return { ok: true, value: out };
  }
  return { ok: false, message: `${key}: must be a list or a comma separated string (found ${describe(value)})` };
}

function describe(value: unknown): string {
  if (value === null) return "nothing";
  if (Array.isArray(value)) return "a list";
  if (value instanceof Date) return "a date";
  if (typeof value === "object") return "a mapping";
  return `${typeof value} ${JSON.stringify(value)}`;
}

/**
 * Normalizes one editable frontmatter value to the form's shape without validating it against
 * the schema: strings stay as written (so `description` equals what YAML parsed), list fields
 * become `string[]`, an empty value is `undefined`.
 */
function normalizeFieldValue(key: EditableKey, value: unknown): Normalized<unknown> {
  switch (key) {
    case "name":
    case "description":
    case "model":
    case "thinking_mode": {
      if (value === null || value === undefined) return { ok: true, value: undefined };
      if (typeof value !== "string") return { ok: false, message: `${key}: must be text (found ${describe(value)})` };
      if ((key === "model" || key === "thinking_mode") && value.trim() === "") return { ok: true, value: undefined };
      return { ok: true, value };
    }
    case "capabilities":
      return normalizeList(key, value, /[|,]/);
    case "tools":
    case "permissions":
    case "mcp_servers":
    case "gateway":
      return normalizeList(key, value, /,/);
    case "max_concurrency": {
      if (value === null || value === undefined) return { ok: true, value: undefined };
      if (typeof value === "number") return { ok: true, value };
      if (typeof value === "string" && /^\s*\d+\s*$/.test(value)) return { ok: true, value: Number(value) };
      return { ok: false, message: `max_concurrency: must be a whole number (found ${describe(value)})` };
    }
  }
}

/** The schema message for one field, or undefined when it is valid. */
function schemaProblem(key: EditableKey, value: unknown): string | undefined {
  const result = RoleFieldsSchema.shape[key].safeParse(value);
  if (result.success) return undefined;
  const issue = result.error.issues[0];
  if (!issue) return `${key}: invalid value`;
  const where = issue.path.length > 0 ? `[${issue.path.join(".")}]` : "";
  if (key === "thinking_mode") return `thinking_mode: must be "fast" or "thinking" (found ${JSON.stringify(value)})`;
  if (key === "permissions") return `permissions: each must be "read", "write" or "execute" (found ${JSON.stringify(value)})`;
  return `${key}${where}: ${issue.message}`;
}

/** One top-level frontmatter key, with its yaml pair (for source ranges). */
interface FrontmatterEntry {
  key: string;
  pair: Pair;
  value: unknown;
}

/** A role file that loaded, with what the editor needs to rewrite it line by line. */
export interface RoleAnalysis {
  ok: true;
  id: string;
  parts: FrontmatterParts;
  doc: Document.Parsed;
  lineCounter: LineCounter;
  entries: FrontmatterEntry[];
  fields: RoleFields;
  extra: Record<string, unknown>;
  warnings: string[];
}

export type RoleAnalysisResult = RoleAnalysis | { ok: false; id: string; error: FrontmatterProblem };

function keyString(pair: Pair, doc: Document.Parsed): string {
  const key = pair.key;
  if (isScalar(key)) return String(key.value);
  if (isNode(key)) return JSON.stringify(key.toJS(doc));
  return String(key);
}

/**
 * Parses and normalizes a role file's text. The id is the file name's stem; a frontmatter `id`
 * that differs only earns a warning.
 */
export function analyzeRoleText(fileName: string, text: string): RoleAnalysisResult {
  // A file name that is no valid id (`powershell-5.1-expert.md`) still loads: the library lists it
  // with a rename fix, and nothing addresses it by this id.
  const id = roleIdFromFileName(fileName);
  const parsed = parseFrontmatter(text);
  if (!parsed.ok) return { ok: false, id, error: parsed.error };
  const { parts, doc, lineCounter } = parsed.value;
  const contents = doc.contents;
  if (contents === null || (isScalar(contents) && contents.value === null)) {
    return {
      ok: false,
      id,
      error: { message: "the frontmatter is empty: name and description are required", line: parts.firstLine },
    };
  }
  if (!isMap(contents)) {
    const line = contents.range ? fileLineOf(parsed.value, contents.range[0]) : parts.firstLine;
    return { ok: false, id, error: { message: "the frontmatter must be a mapping of 'key: value' lines", line } };
  }

  const entries: FrontmatterEntry[] = [];
  const lineOfKey = new Map<string, number>();
  try {
    for (const pair of contents.items) {
      const key = keyString(pair, doc);
      const value: unknown = isNode(pair.value) ? pair.value.toJS(doc) : pair.value;
      entries.push({ key, pair, value });
      const range = isNode(pair.key) ? pair.key.range : undefined;
      if (range) lineOfKey.set(key, fileLineOf(parsed.value, range[0]));
    }
  } catch (error) {
    return { ok: false, id, error: { message: `YAML error: ${(error as Error).message}`, line: parts.firstLine } };
  }

  // The values come from gray-matter (lib/roles/matter.ts); the Document above only places them
  // on lines, for error messages and the editor. Both parse with the same YAML options.
  const read = readMatter(parts);
  if (!read.ok) return { ok: false, id, error: { message: `frontmatter: ${read.message}`, line: parts.firstLine } };
  const data = read.value.data;
  const valueOf = (entry: FrontmatterEntry): unknown => (Object.prototype.hasOwnProperty.call(data, entry.key) ? data[entry.key] : entry.value);

  const problems: FrontmatterProblem[] = [];
  const fields: Record<string, unknown> = { id };
  const extra: Record<string, unknown> = {};
  const warnings: string[] = [];
  const values = new Map(entries.map((e) => [e.key, valueOf(e)]));

  for (const entry of entries) {
    // setOwn: a `__proto__` key is kept as data, not made the object's prototype.
    if (!KNOWN_KEYS.includes(entry.key)) setOwn(extra, entry.key, values.get(entry.key));
  }
  if (values.has("id")) {
    const declared = values.get("id");
    const same = (typeof declared === "string" || typeof declared === "number") && String(declared) === id;
    if (!same) {
      warnings.push(
        `the frontmatter id ${JSON.stringify(declared)} differs from the file name; the role's id is "${id}"`,
      );
    }
  }
  for (const key of EDITABLE_KEYS) {
    const line = lineOfKey.get(key);
    const normalized = normalizeFieldValue(key, values.get(key));
    if (!normalized.ok) {
      problems.push({ message: normalized.message, line });
      continue;
    }
    if (normalized.value === undefined) {
      if (key === "name" || key === "description") {
        problems.push({ message: `${key}: is required`, line: line ?? parts.firstLine });
      }
      continue;
    }
    const problem = schemaProblem(key, normalized.value);
    if (problem) problems.push({ message: problem, line });
    else fields[key] = normalized.value;
  }
  const provides = values.get("provides");
  if (provides !== undefined && provides !== null) {
    const result = RoleFieldsSchema.shape.provides.safeParse(provides);
    if (result.success) fields.provides = result.data;
    else {
      const issue = result.error.issues[0]!;
      problems.push({ message: `provides${issue.path.length ? `[${issue.path.join(".")}]` : ""}: ${Array.isArray(provides) ? issue.message : "must be a list of abilities (name, description, input, output)"}`, line: lineOfKey.get("provides") });
    }
  }
  for (const key of POLICY_KEYS) {
    if (!values.has(key) || values.get(key) === null) continue;
    const result = RoleFieldsSchema.shape[key].safeParse(values.get(key));
    if (result.success) fields[key] = result.data;
    else {
      const issue = result.error.issues[0];
      problems.push({ message: `${key}${issue?.path.length ? `[${issue.path.join(".")}]` : ""}: ${issue?.message ?? "invalid value"}`, line: lineOfKey.get(key) });
    }
  }
  for (const warning of doc.warnings) warnings.push(`YAML: ${warning.message.split("\n")[0]}`);

  const first = problems[0];
  if (first) {
    const message = problems.map((p) => p.message + (p.line ? ` (line ${p.line})` : "")).join("; ");
    return { ok: false, id, error: { message, line: first.line } };
  }
  return {
    ok: true,
    id,
    parts,
    doc,
    lineCounter,
    entries,
    fields: fields as RoleFields,
    extra,
    warnings,
  };
}

/**
 * Reads a role file. `content` is the file's bytes or text; the etag is the hash of its bytes.
 * A file that is not valid UTF-8 is an error entry, so a form save can never drop its bytes.
 */
export function parseRoleFile(fileName: string, content: string | Uint8Array): RoleDetail | RoleErrorDetail {
  const etag = computeEtag(content);
  const file = fileName.split(/[\\/]/).pop() ?? fileName;
  let text: string;
  if (typeof content === "string") text = content;
  else {
    try {
      text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(content);
    } catch {
      const raw = new TextDecoder("utf-8", { ignoreBOM: true }).decode(content);
      return {
        kind: "error",
        id: roleIdFromFileName(file),
        file,
        etag,
        raw,
        error: { message: "the file is not valid UTF-8 text" },
      };
    }
  }
  const result = analyzeRoleText(file, text);
  if (!result.ok) {
    const error = result.error.line === undefined ? { message: result.error.message } : result.error;
    return { kind: "error", id: result.id, file, etag, raw: text, error };
  }
  return {
    kind: "role",
    id: result.id,
    file,
    etag,
    fields: result.fields,
    extra: result.extra,
    body: result.parts.body,
    raw: text,
    warnings: result.warnings,
  };
}
