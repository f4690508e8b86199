/**
 * The one error family of Astrion Team. Every failure that reaches a route handler is an
 * `AstrionError` (or becomes an `internal` one), and its `code` decides the HTTP status, so a
 * route never chooses a status by hand.
 */

/** Stable, documented error codes; each maps to one HTTP status in {@link STATUS_BY_CODE}. */
export type ErrorCode =
  | "bad_request"
  | "validation_failed"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "payload_too_large"
  | "unsupported_media_type"
  | "rate_limited"
  | "corrupt_file"
  | "storage_error"
  | "data_root_locked"
  | "unavailable"
  | "internal";

/** HTTP status for each error code. */
export const STATUS_BY_CODE: Record<ErrorCode, number> = {
  bad_request: 400,
  validation_failed: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  corrupt_file: 500,
  storage_error: 500,
  data_root_locked: 500,
  unavailable: 503,
  internal: 500,
};

const BRAND = Symbol.for("astrion.error");

/**
 * Base class: `name` is the concrete subclass's `kind` so logs say what failed.
 *
 * Next bundles server code per entry (instrumentation, each route), so one process can hold
 * several copies of this module; an error thrown by the store started at boot must still be
 * recognized by a route's copy. `instanceof` therefore checks a global brand and the `kind`
 * names along the prototype chain (explicit strings: class names do not survive minification).
 */
export class AstrionError extends Error {
  static readonly kind: string = "AstrionError";
  readonly code: ErrorCode;
  readonly details?: unknown;
  readonly [BRAND] = true;

  constructor(code: ErrorCode, message: string, details?: unknown, options?: { cause?: unknown }) {
    super(message, options);
    this.name = (new.target as typeof AstrionError).kind;
    this.code = code;
    this.details = details;
  }

  static [Symbol.hasInstance](value: unknown): boolean {
    // A subclass that declares no `kind` of its own is checked the ordinary way.
    if (!Object.prototype.hasOwnProperty.call(this, "kind")) return Function.prototype[Symbol.hasInstance].call(this, value);
    if (typeof value !== "object" || value === null || (value as Record<symbol, unknown>)[BRAND] !== true) return false;
    for (let proto = Object.getPrototypeOf(value); proto; proto = Object.getPrototypeOf(proto)) {
      if ((proto.constructor as { kind?: string } | undefined)?.kind === this.kind) return true;
    }
    return false;
  }

  /** The HTTP status this error is answered with. */
  get status(): number {
    return STATUS_BY_CODE[this.code];
  }
}

/** A request body, query or id that does not fit its schema. `details` lists the issues by path. */
export class ValidationError extends AstrionError {
  static override readonly kind: string = "ValidationError";
  constructor(message: string, details?: unknown) {
    super("validation_failed", message, details);
  }
}

/** The named conversation, role, agent or file does not exist. */
export class NotFoundError extends AstrionError {
  static override readonly kind: string = "NotFoundError";
  constructor(message: string, details?: unknown) {
    super("not_found", message, details);
  }
}

/** The request fights the current state: the thing exists already, or changed since it was read. */
export class ConflictError extends AstrionError {
  static override readonly kind: string = "ConflictError";
  constructor(message: string, details?: unknown) {
    super("conflict", message, details);
  }
}

/**
 * A file on disk that exists but cannot be used: not JSON, or JSON that does not fit its schema.
 * It names the file and says what is wrong; the file itself is never overwritten with defaults.
 */
export class CorruptFileError extends AstrionError {
  static override readonly kind: string = "CorruptFileError";
  readonly file: string;

  constructor(file: string, reason: string, options?: { cause?: unknown }) {
    super("corrupt_file", `${file}: ${reason}`, { file, reason }, options);
    this.file = file;
  }
}

/** Another live process owns the data folder. */
export class DataRootLockedError extends AstrionError {
  static override readonly kind: string = "DataRootLockedError";
  constructor(message: string, details?: unknown) {
    super("data_root_locked", message, details);
  }
}

/**
 * One issue of a 400 answer's `details`: where (`path`, dotted), what in English (`message`, for
 * API clients and logs) and, for a limit, a stable `code` with the `limit` itself, which a page
 * words in its own language ("The goal is too long: at most 100,000 characters.").
 */
export interface FieldIssueDetail {
  path: string;
  message: string;
  /** `too_long` (a text over its most characters), `too_many` (a list over its most items), `too_short`, `too_big`, `too_small`. */
  code?: "too_long" | "too_many" | "too_short" | "too_big" | "too_small";
  limit?: number;
}

/** The zod issue fields {@link zodIssues} reads (zod 4's `too_big` / `too_small` carry `origin` and the bound). */
interface ZodIssueLike {
  path: ReadonlyArray<PropertyKey>;
  message: string;
  code?: string;
  origin?: string;
  maximum?: number | bigint;
  minimum?: number | bigint;
}

/** The limit code of a zod issue, and its bound, when it is one. */
function limitOf(issue: ZodIssueLike): Pick<FieldIssueDetail, "code" | "limit"> {
  const big = issue.code === "too_big";
  if (!big && issue.code !== "too_small") return {};
  const bound = Number(big ? issue.maximum : issue.minimum);
  if (!Number.isFinite(bound)) return {};
  const code = issue.origin === "string" ? (big ? "too_long" : "too_short") : issue.origin === "array" ? (big ? "too_many" : "too_small") : big ? "too_big" : "too_small";
  return { code, limit: bound };
}

/**
 * Turns a zod error into the `details` shape used in every 400 answer: `[{ path, message, code?, limit? }]`.
 * This is the one place zod issues become words: never the zod error's own `message` (its issues as JSON).
 */
export function zodIssues(error: { issues: ReadonlyArray<ZodIssueLike> }): FieldIssueDetail[] {
  return error.issues.map((issue) => ({
    path: issue.path.map((p) => (typeof p === "symbol" ? p.toString() : p)).join("."),
    message: issue.message,
    ...limitOf(issue),
  }));
}
