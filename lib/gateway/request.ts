/**
 * One gateway call's HTTP request and its result, without the I/O: the tool's arguments (internal
 * dialect) become a URL, header parameters and a JSON body in the API's dialect; a response
 * becomes what the model reads, back in the internal dialect, or a tool error naming the status.
 * Header values from gateway.json (tokens) are added by the caller and never pass through here.
 * Pure.
 */
import { toApi, toInternal, type CompiledMappings } from "./mapping";
import { BODY_ARGUMENT, type GatewayOperation } from "./openapi";
import { GatewayMappingError } from "./time";

/** The HTTP request of one call, before the source's own headers are added. */
export interface BuiltRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function scalar(value: unknown): string {
  return typeof value === "string" ? value : typeof value === "number" || typeof value === "boolean" ? String(value) : JSON.stringify(value);
}

/**
 * A path parameter's text, percent-encoded (a `/` stays inside the segment). A value of `.` or
 * `..` is refused: URLs treat those (encoded or not) as moves to another path.
 */
function segment(name: string, value: unknown): string {
  const text = scalar(value);
  if (/^\.{1,2}$/.test(text)) throw new GatewayMappingError(`path parameter ${name} cannot be ${JSON.stringify(text)}`);
  return encodeURIComponent(text);
}

/** `base` + `path` with its parameters filled; only http(s) and the base's own origin. */
export function joinUrl(base: string, path: string): URL {
  const b = new URL(base);
  const url = new URL(`${b.pathname.replace(/\/+$/, "")}${path.startsWith("/") ? path : `/${path}`}`, b.origin);
  if (url.origin !== b.origin) throw new GatewayMappingError(`the request would leave ${b.origin}`);
  return url;
}

/**
 * The request for `args` (already validated against the tool's input schema). Throws a
 * {@link GatewayMappingError} for a value that does not map (a time in the wrong format…).
 */
export function buildRequest(op: GatewayOperation, args: Record<string, unknown>, mappings: CompiledMappings, baseUrl: string): BuiltRequest {
  const wrapped = op.body?.mode === "wrap";
  const { [BODY_ARGUMENT]: wrappedBody, ...rest } = args;
  const api = toApi(wrapped ? rest : args, mappings) as Record<string, unknown>;
  const paramNames = new Set(op.params.map((p) => p.name));
  let path = op.path;
  const query = new URLSearchParams();
  const headers: Record<string, string> = {};
  for (const p of op.params) {
    const value = api[p.name];
    if (value === undefined || value === null) {
      if (p.required) throw new GatewayMappingError(`${p.name} is required`);
      continue;
    }
    if (p.in === "path") path = path.split(`{${p.name}}`).join(segment(p.name, value));
    else if (p.in === "query") for (const v of Array.isArray(value) ? value : [value]) query.append(p.name, scalar(v));
    else {
      const text = scalar(value);
      if (/[\r\n\0]/.test(text)) throw new GatewayMappingError(`header parameter ${p.name} cannot hold a line break`);
      headers[p.name] = text;
    }
  }
  const url = joinUrl(baseUrl, path);
  for (const [k, v] of query) url.searchParams.append(k, v);
  let body: string | undefined;
  if (op.body) {
    const value = wrapped ? (wrappedBody === undefined ? undefined : toApi(wrappedBody, mappings)) : Object.fromEntries(Object.entries(api).filter(([k]) => !paramNames.has(k)));
    if (value !== undefined && !(op.body.mode === "merge" && !op.body.required && isObj(value) && Object.keys(value).length === 0)) {
      body = JSON.stringify(value);
      headers["content-type"] = op.body.contentType.includes("json") ? op.body.contentType : "application/json";
    }
  }
  headers.accept = "application/json, */*;q=0.5";
  return { method: op.method, url: url.toString(), headers, body };
}

/** `text` at most `max` characters: its head and tail kept, the middle replaced by a marker. */
export function headTail(text: string, max: number): string {
  if (text.length <= max) return text;
  const marker = `\n…[${text.length - max} characters elided]…\n`;
  const room = Math.max(0, max - marker.length);
  const head = Math.ceil(room / 2);
  return `${text.slice(0, head)}${marker}${text.slice(text.length - (room - head))}`;
}

/** Every occurrence of each secret replaced; secrets shorter than 4 characters are not looked for. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of [...secrets].filter((x) => x.length >= 4).sort((a, b) => b.length - a.length)) out = out.split(s).join("[redacted]");
  return out;
}

/** A response as the model reads it: `{ ok: true, text }` or a tool error's message. */
export type CallResult = { ok: true; text: string } | { ok: false; message: string };

/** The API's response (status, content type, text) → the model's reading of it, internal dialect. */
export function readResponse(res: { status: number; statusText: string; contentType: string | null; text: string; truncated: boolean }, mappings: CompiledMappings, maxChars: number): CallResult {
  const isJson = /\bjson\b/i.test(res.contentType ?? "") && !res.truncated;
  let parsed: unknown;
  let jsonOk = false;
  if (isJson && res.text.trim() !== "") {
    try {
      parsed = JSON.parse(res.text);
      jsonOk = true;
    } catch {
      jsonOk = false;
    }
  }
  if (res.status < 200 || res.status > 299) {
    let shown = res.text;
    if (jsonOk) {
      try {
        shown = JSON.stringify(toInternal(parsed, mappings));
      } catch {
        // An error body that does not map is shown as the API sent it: it is a diagnosis.
      }
    }
    const detail = shown.trim() ? `: ${headTail(shown.trim(), Math.min(2000, maxChars))}` : "";
    return { ok: false, message: `the API answered HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ""}${detail}` };
  }
  if (jsonOk) return { ok: true, text: JSON.stringify({ status: res.status, body: toInternal(parsed, mappings) }) };
  const text = res.truncated ? `${res.text}\n…[response cut at the gateway's size limit]` : res.text;
  return { ok: true, text: JSON.stringify({ status: res.status, body: headTail(text, Math.max(200, maxChars - 40)) }) };
}
