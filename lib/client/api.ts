/**
 * The browser's way to call the Astrion HTTP API: same-origin fetch, JSON in and out, every
 * answer parsed with the contract's zod schema, and every failure turned into an {@link ApiError}
 * that carries the server's `{error:{code,message,details}}`.
 */
import type { z } from "zod";
import { zodIssues } from "@/lib/contracts/errors";
import { ApiErrorBodySchema } from "@/lib/contracts/http";

/**
 * One field-level problem from a `validation_failed` answer (`path` like `fields.name` or `raw`);
 * a limit carries its `code` (`too_long`, …) and `limit`, which the page words in its language.
 */
export interface FieldIssue {
  path: string;
  message: string;
  line?: number;
  code?: string;
  limit?: number;
}

/** A failed API call: the HTTP status plus the server's error code, message and details. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: unknown;

  constructor(status: number, code: string, message: string, details?: unknown) {
    super(message);
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    this.details = details;
  }

  /** True for 409: the thing exists already, or changed on disk since it was read. */
  get isConflict(): boolean {
    return this.status === 409 || this.code === "conflict";
  }

  /** The `details` of a validation answer as field issues; empty when there are none. */
  get fieldIssues(): FieldIssue[] {
    return toFieldIssues(this.details);
  }
}

/** Reads `[{path, message, line?}]` out of an unknown `details` value, ignoring anything else. */
function toFieldIssues(details: unknown): FieldIssue[] {
  if (!Array.isArray(details)) return [];
  const issues: FieldIssue[] = [];
  for (const d of details) {
    if (d && typeof d === "object" && "message" in d && typeof d.message === "string") {
      const path = "path" in d && typeof d.path === "string" ? d.path : "";
      const issue: FieldIssue = { path, message: d.message };
      if ("line" in d && typeof d.line === "number") issue.line = d.line;
      if ("code" in d && typeof d.code === "string") issue.code = d.code;
      if ("limit" in d && typeof d.limit === "number") issue.limit = d.limit;
      issues.push(issue);
    }
  }
  return issues;
}

/**
 * `value` as the body `schema` describes, checked in the browser before it is sent: a value that
 * does not fit throws the same {@link ApiError} (`validation_failed`, issues with their codes) the
 * server would answer, never a zod error (whose message is its issues as raw JSON).
 */
export function bodyOf<S extends z.ZodType>(schema: S, value: z.input<S>): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const details = zodIssues(parsed.error);
  const first = details[0];
  throw new ApiError(400, "validation_failed", `The request body is not valid${first ? `: ${first.path ? `${first.path}: ` : ""}${first.message}` : ""}`, details);
}

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

interface RequestOptions {
  method?: Method;
  /** Sent as JSON. State-changing requests always send a body (`{}` when there is none). */
  body?: unknown;
  signal?: AbortSignal;
}

/**
 * Calls `path` and parses the JSON answer with `schema`. Mutating requests always carry
 * `content-type: application/json`, because the server refuses them otherwise (415).
 */
export async function apiFetch<S extends z.ZodType>(
  path: string,
  schema: S,
  options: RequestOptions = {},
): Promise<z.infer<S>> {
  const method = options.method ?? "GET";
  const init: RequestInit = { method, credentials: "same-origin", signal: options.signal, headers: { accept: "application/json" } };
  if (method !== "GET") {
    init.headers = { accept: "application/json", "content-type": "application/json" };
    init.body = JSON.stringify(options.body ?? {});
  }
  let res: Response;
  try {
    res = await fetch(path, init);
  } catch (cause) {
    if (cause instanceof DOMException && cause.name === "AbortError") throw cause;
    throw new ApiError(0, "network_error", "The server could not be reached. Is Astrion still running?");
  }
  const text = await res.text();
  const json = jsonOrUndefined(text);
  if (!res.ok) throw apiErrorOf(res, json);
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    throw new ApiError(res.status, "bad_response", `Unexpected answer from ${path}: ${parsed.error.issues[0]?.message ?? "invalid"}`);
  }
  return parsed.data;
}

function jsonOrUndefined(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The {@link ApiError} of a failed answer whose body (parsed JSON, or undefined) is `json`. */
function apiErrorOf(res: Response, json: unknown): ApiError {
  const parsed = ApiErrorBodySchema.safeParse(json);
  if (parsed.success) return new ApiError(res.status, parsed.data.error.code, parsed.data.error.message, parsed.data.error.details);
  return new ApiError(res.status, "http_error", `The server answered ${res.status} ${res.statusText}`.trim());
}

/**
 * Sends a request whose answer is a file (or whose body is one) and returns the answer when it
 * is a success; a failure becomes an {@link ApiError} like {@link apiFetch}'s.
 */
export async function apiRaw(path: string, init: RequestInit): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(path, { credentials: "same-origin", ...init });
  } catch (cause) {
    if (cause instanceof DOMException && cause.name === "AbortError") throw cause;
    throw new ApiError(0, "network_error", "The server could not be reached. Is Astrion still running?");
  }
  if (!res.ok) throw apiErrorOf(res, jsonOrUndefined(await res.text()));
  return res;
}
