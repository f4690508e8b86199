/**
 * The shape of the route table (./routes-*.ts): one {@link RouteSpec} per `app/api/**\/route.ts`,
 * one {@link Operation} per method it exports, with the zod schemas the handler parses with and
 * answers. The OpenAPI document (./document.ts) and the table of docs/http-api.md are generated
 * from it; lib/openapi/openapi.test.ts holds it to the route files. Which error statuses an
 * operation can answer is mostly derived here from what every route shares (the request guard,
 * the body limits), so only what is particular to a route is written in its row.
 */
import type { z } from "zod";
import { isBodyMethod } from "@/lib/input-limits";

/** The methods a route file may export a handler for. */
export const HTTP_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** Error statuses of the API (lib/contracts/errors.ts's STATUS_BY_CODE, 500 for all its server codes). */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 429 | 500;

/** A request body: JSON parsed with a schema, or raw bytes of a media type (an upload). */
type RequestBody = { json: z.ZodType } | { raw: string; description: string };

/** A success answer: JSON of a schema, a file download, or a stream of server-sent events. */
export type Answer =
  | { status: number; json: z.ZodType; description?: string }
  /** A download: `media` maps each media type it may have to what it is then. */
  | { status: number; media: Readonly<Record<string, string>>; description: string; headers?: Readonly<Record<string, string>> }
  /** `text/event-stream`; `event` is the schema of each event's `data` (JSON). */
  | { status: number; event: z.ZodType; description: string };

/** One method of one route. */
export interface Operation {
  /** One line: what it does. */
  summary: string;
  /** The rest a caller needs (Markdown), when there is more. */
  description?: string;
  query?: z.ZodObject;
  body?: RequestBody;
  answers: readonly [Answer, ...Answer[]];
  /** Error statuses particular to this operation: 404, 409, 429 (the shared ones are added by {@link errorStatuses}). */
  errors?: readonly ErrorStatus[];
  /** Reachable without the access token in token mode (lib/security's public paths). */
  public?: true;
}

/** One route file. */
export interface RouteSpec {
  /** OpenAPI style: `/api/conversations/{id}`; each `{name}` is the file's `[name]` folder. */
  path: string;
  /** Schemas of the path parameters, in path order. */
  params?: Readonly<Record<string, z.ZodType>>;
  methods: Readonly<Partial<Record<HttpMethod, Operation>>>;
}

/** The `{name}` parameters of an OpenAPI path, in order. */
export function pathParamNames(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
}

/** The path with every parameter filled with `x`: what the request guard and the body limits match. */
export function concretePath(path: string): string {
  return path.replace(/\{[^}]+\}/g, "x");
}

/** The route file that serves `path`: `/api/roles/{id}` → `app/api/roles/[id]/route.ts`. */
export function routeFileOf(path: string): string {
  return `app${path.replace(/\{([^}]+)\}/g, "[$1]")}/route.ts`;
}

/**
 * Every error status an operation can answer: 400 (a malformed path or parameter), 403 (the Host
 * or Origin refused) and 500 always; 401 unless it is public; 413 and 415 for a body method (the
 * guard's size and content-type checks); then its own (404, 409, 429).
 */
export function errorStatuses(method: HttpMethod, op: Operation): ErrorStatus[] {
  const all = new Set<ErrorStatus>([400, 403, 500, ...(op.errors ?? [])]);
  if (!op.public) all.add(401);
  if (isBodyMethod(method)) {
    all.add(413);
    all.add(415);
  }
  return [...all].sort((a, b) => a - b);
}
