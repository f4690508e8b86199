/**
 * The role editor's form state and its conversion to `RoleFields`. Optional fields left empty
 * are omitted, and a list field the user did not touch is sent back exactly as it was read, so a
 * save changes only what the user changed.
 */
import { RoleFieldsSchema, type RoleFields } from "@/lib/roles/schema";

/** What the inputs hold: text as typed. */
export interface RoleFormState {
  id: string;
  name: string;
  description: string;
  model: string;
  thinking_mode: "" | "fast" | "thinking";
  capabilities: string;
  tools: string;
  mcp_servers: string;
  read: boolean;
  write: boolean;
  execute: boolean;
  max_concurrency: string;
  /** Protocol gateway sources, comma-separated. */
  gateway: string;
  body: string;
}

/** The editable field names, as they appear in `details[].path` after `fields.`. */
export type RoleFieldName = keyof RoleFields;

export const EMPTY_FORM: RoleFormState = {
  id: "",
  name: "",
  description: "",
  model: "",
  thinking_mode: "",
  capabilities: "",
  tools: "",
  mcp_servers: "",
  read: true,
  write: false,
  execute: false,
  max_concurrency: "",
  gateway: "",
  body: "",
};

/** The form state for a role as loaded. */
export function formFromFields(fields: RoleFields, body: string): RoleFormState {
  return {
    id: fields.id,
    name: fields.name,
    description: fields.description,
    model: fields.model ?? "",
    thinking_mode: fields.thinking_mode ?? "",
    capabilities: (fields.capabilities ?? []).join(", "),
    tools: (fields.tools ?? []).join(", "),
    mcp_servers: (fields.mcp_servers ?? []).join(", "),
    read: fields.permissions?.includes("read") ?? false,
    write: fields.permissions?.includes("write") ?? false,
    execute: fields.permissions?.includes("execute") ?? false,
    max_concurrency: fields.max_concurrency === undefined ? "" : String(fields.max_concurrency),
    gateway: (fields.gateway ?? []).join(", "),
    body,
  };
}

/** Capability tags from text: commas, spaces or `|` (the seed's own separator) split them. */
export function splitTags(text: string): string[] {
  return text.split(/[\s,|]+/).filter(Boolean);
}

/** Tool names from text: commas split them (a tool name never holds one). */
export function splitTools(text: string): string[] {
  return text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * The fields to validate and send. `initial` is what was loaded (undefined for a new role):
 * untouched list fields are sent back unchanged.
 */
export function fieldsFromForm(
  form: RoleFormState,
  initial: { form: RoleFormState; fields: RoleFields } | undefined,
  invalidNumberMessage: string,
): { fields: Record<string, unknown>; numberError?: string } {
  const fields: Record<string, unknown> = {
    id: form.id,
    name: form.name,
    description: form.description,
  };
  const same = <K extends keyof RoleFormState>(key: K) => initial !== undefined && initial.form[key] === form[key];

  if (form.model.trim()) fields.model = form.model;
  if (form.thinking_mode) fields.thinking_mode = form.thinking_mode;

  if (same("capabilities")) {
    if (initial?.fields.capabilities !== undefined) fields.capabilities = initial.fields.capabilities;
  } else {
    const tags = splitTags(form.capabilities);
    if (tags.length > 0) fields.capabilities = tags;
  }

  if (same("tools")) {
    if (initial?.fields.tools !== undefined) fields.tools = initial.fields.tools;
  } else {
    const tools = splitTools(form.tools);
    if (tools.length > 0) fields.tools = tools;
  }

  if (same("mcp_servers")) {
    if (initial?.fields.mcp_servers !== undefined) fields.mcp_servers = initial.fields.mcp_servers;
  } else {
    const servers = splitTools(form.mcp_servers);
    if (servers.length > 0) fields.mcp_servers = servers;
  }

  if (same("read") && same("write") && same("execute")) {
    if (initial?.fields.permissions !== undefined) fields.permissions = initial.fields.permissions;
  } else {
    const permissions = [form.read ? "read" : null, form.write ? "write" : null, form.execute ? "execute" : null].filter((p) => p !== null);
    if (permissions.length > 0 || initial?.fields.permissions !== undefined) fields.permissions = permissions;
  }

  if (same("gateway")) {
    if (initial?.fields.gateway !== undefined) fields.gateway = initial.fields.gateway;
  } else {
    const sources = splitTools(form.gateway);
    if (sources.length > 0) fields.gateway = sources;
  }

  let numberError: string | undefined;
  const mc = form.max_concurrency.trim();
  if (mc) {
    const n = Number(mc);
    if (Number.isFinite(n)) fields.max_concurrency = n;
    else numberError = invalidNumberMessage;
  }
  return numberError === undefined ? { fields } : { fields, numberError };
}

/**
 * Validates with the server's own schema; errors keyed by field name (first message wins). A
 * text over its limit is worded by `tooLong` (the page's sentence naming the limit) when given.
 */
export function validateFields(
  fields: Record<string, unknown>,
  tooLong?: (field: RoleFieldName, max: number) => string | undefined,
): { ok: true; data: RoleFields } | { ok: false; errors: Partial<Record<RoleFieldName, string>> } {
  const parsed = RoleFieldsSchema.safeParse(fields);
  if (parsed.success) return { ok: true, data: parsed.data };
  const errors: Partial<Record<RoleFieldName, string>> = {};
  for (const issue of parsed.error.issues) {
    const key = String(issue.path[0] ?? "") as RoleFieldName;
    const index = issue.path[1];
    const list = fields[key];
    const item = typeof index === "number" && Array.isArray(list) ? list[index] : undefined;
    const limit = issue.code === "too_big" && issue.origin === "string" && item === undefined ? tooLong?.(key, Number(issue.maximum)) : undefined;
    errors[key] ??= limit ?? (item === undefined ? issue.message : `“${String(item)}”: ${issue.message}`);
  }
  return { ok: false, errors };
}

/** A field issue of the server's `validation_failed` answer (lib/client/api.ts `FieldIssue`). */
interface ServerIssue {
  path: string;
  message: string;
  code?: string;
  limit?: number;
}

const FIELD_NAMES: ReadonlySet<string> = new Set(["id", "name", "description", "model", "thinking_mode", "capabilities", "tools", "permissions", "max_concurrency", "gateway"]);

/**
 * Maps a server `validation_failed` answer's issues (`fields.name`, `body`, …) to form fields, and
 * the rest (the prompt body's) to other errors. A text over its limit is worded by `tooLong` (the
 * page's sentence naming the limit) when it words that field, never with the server's English.
 */
export function serverErrors(
  issues: readonly ServerIssue[],
  tooLong: (field: RoleFieldName | "body", max: number) => string | undefined,
): { fields: Partial<Record<RoleFieldName, string>>; other: string[] } {
  const fields: Partial<Record<RoleFieldName, string>> = {};
  const other: string[] = [];
  for (const issue of issues) {
    const parts = issue.path.split(".");
    const name = parts[0] === "fields" ? parts[1] : parts[0];
    const limit = (field: RoleFieldName | "body") => (issue.code === "too_long" && issue.limit !== undefined ? tooLong(field, issue.limit) : undefined);
    if (name && FIELD_NAMES.has(name)) fields[name as RoleFieldName] ??= limit(name as RoleFieldName) ?? issue.message;
    else other.push((name === "body" ? limit("body") : undefined) ?? (issue.path ? `${issue.path}: ${issue.message}` : issue.message));
  }
  return { fields, other };
}
