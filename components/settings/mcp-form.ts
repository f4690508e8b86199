/**
 * The MCP server form's text fields and their conversion to an mcp.json entry: arguments one
 * per line, environment as `NAME=value` lines, headers as `Name: value` lines. Masked values
 * (lib/mcp/config.ts `MASK`) go back as they are, so the server keeps what it stored. Pure.
 */
import { McpServerConfigSchema, type McpServerConfig, type McpServerView } from "@/lib/mcp/schema";

/** What the inputs hold. */
export interface McpFormState {
  name: string;
  type: "stdio" | "http";
  command: string;
  args: string;
  env: string;
  url: string;
  headers: string;
}

export const EMPTY_MCP_FORM: McpFormState = { name: "", type: "stdio", command: "", args: "", env: "", url: "", headers: "" };

/** The form for a listed (masked) server. */
export function formFromView(v: McpServerView): McpFormState {
  return {
    name: v.name,
    type: v.type,
    command: v.command ?? "",
    args: (v.args ?? []).join("\n"),
    env: Object.entries(v.env ?? {}).map(([k, val]) => `${k}=${val}`).join("\n"),
    url: v.url ?? "",
    headers: Object.entries(v.headers ?? {}).map(([k, val]) => `${k}: ${val}`).join("\n"),
  };
}

/** A problem in one line of a map field. */
export interface LineProblem {
  field: "env" | "headers";
  line: number;
}

function parseMap(text: string, separator: "=" | ":", field: LineProblem["field"]): { map: Record<string, string> } | { problem: LineProblem } {
  const map: Record<string, string> = {};
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line.trim()) continue;
    const at = line.indexOf(separator);
    const key = at < 0 ? "" : line.slice(0, at).trim();
    if (!key) return { problem: { field, line: i + 1 } };
    map[key] = separator === ":" ? line.slice(at + 1).trim() : line.slice(at + 1);
  }
  return { map };
}

/** The entry to send, or the first line that cannot be read, or the schema's first message. */
export function configFromForm(form: McpFormState): { ok: true; config: McpServerConfig } | { ok: false; problem?: LineProblem; message?: string } {
  let raw: Record<string, unknown>;
  if (form.type === "http") {
    const headers = parseMap(form.headers, ":", "headers");
    if ("problem" in headers) return { ok: false, problem: headers.problem };
    raw = { type: "http", url: form.url.trim(), ...(Object.keys(headers.map).length ? { headers: headers.map } : {}) };
  } else {
    const env = parseMap(form.env, "=", "env");
    if ("problem" in env) return { ok: false, problem: env.problem };
    const args = form.args.split(/\r?\n/).filter((a) => a.trim() !== "");
    raw = { command: form.command.trim(), ...(args.length ? { args } : {}), ...(Object.keys(env.map).length ? { env: env.map } : {}) };
  }
  const parsed = McpServerConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, message: issue ? `${issue.path.join(".") || "config"}: ${issue.message}` : "invalid" };
  }
  return { ok: true, config: parsed.data };
}
