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

/** Turns a zod error into the `details` shape used in every 400 answer: `[{ path, message }]`. */
export function zodIssues(error: { issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }> }) {
  return error.issues.map((issue) => ({
    path: issue.path.map((p) => (typeof p === "symbol" ? p.toString() : p)).join("."),
    message: issue.message,
  }));
}
