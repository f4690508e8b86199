import "server-only";
/**
 * The thin layer every route handler uses: parse the body and params with a zod schema, call
 * lib/, answer JSON of a contract schema. Thrown errors become `{ error: { code, message, details? } }` with the
 * status of their code; anything unexpected is logged and answered as a 500 without internals.
 */
import { NextResponse } from "next/server";
import type { z } from "zod";
import { AstrionError, ValidationError, zodIssues } from "@/lib/contracts/errors";
import { bodyLimitFor, DEFAULT_BODY_LIMIT, parseJsonWithin } from "@/lib/input-limits";

/** A JSON answer with `cache-control: no-store` (API answers describe live state). */
function json(data: unknown, init?: { status?: number; headers?: Record<string, string> }) {
  return NextResponse.json(data, {
    status: init?.status ?? 200,
    headers: { "cache-control": "no-store", ...init?.headers },
  });
}

/**
 * A JSON answer of the contract: `data` must be what `schema` describes, which the compiler
 * checks against the schema's output type (nothing is parsed at run time). The route table
 * (lib/openapi) names the same schema for the route's answer and its test holds the handler to
 * it, so what the API documents and what the handler sends cannot drift apart.
 */
export function answer<S extends z.ZodType>(schema: S, data: z.output<S>, init?: { status?: number; headers?: Record<string, string> }) {
  return json(data, init);
}

/** The error answer for any thrown value. */
function errorResponse(error: unknown) {
  if (error instanceof AstrionError) {
    if (error.status >= 500) console.error(`[astrion] ${error.name}: ${error.message}`);
    const body: { code: string; message: string; details?: unknown } = { code: error.code, message: error.message };
    if (error.details !== undefined && error.status < 500) body.details = error.details;
    // A rate-limited caller is told when to come back, in the header HTTP clients honour.
    const retryAfter = (error.details as { retry_after_seconds?: unknown } | undefined)?.retry_after_seconds;
    const headers: Record<string, string> = typeof retryAfter === "number" ? { "retry-after": String(Math.max(1, Math.ceil(retryAfter))) } : {};
    return json({ error: body }, { status: error.status, headers });
  }
  console.error("[astrion] unexpected error", error);
  return json({ error: { code: "internal", message: "Something went wrong on the server; see its log." } }, { status: 500 });
}

/** The body limit of a request's route (lib/input-limits is the one table of them). */
function routeBodyLimit(request: Request): number {
  return bodyLimitFor(request.method, new URL(request.url).pathname) ?? DEFAULT_BODY_LIMIT;
}

/**
 * Reads a JSON body of at most `limit` bytes (default: the route's row of `BODY_LIMITS`) and
 * parses it with `schema`. 413 when larger (checked while streaming, not only from
 * content-length), 400 when not JSON, nested deeper than `MAX_JSON_DEPTH`, or not of the
 * schema's shape.
 */
export async function readBody<S extends z.ZodType>(request: Request, schema: S, limit = routeBodyLimit(request)): Promise<z.infer<S>> {
  const text = (await readBytes(request, limit)).toString("utf8");
  if (text.trim() === "") return parseWith(schema, {}, "The request body is not valid");
  const parsed = parseJsonWithin(text, Number.POSITIVE_INFINITY);
  if (!parsed.ok) throw new AstrionError("bad_request", `The request body is not accepted: ${parsed.message}.`);
  return parseWith(schema, parsed.value, "The request body is not valid");
}

/**
 * Reads a request body of at most `limit` bytes (default: the route's row of `BODY_LIMITS`) as
 * bytes: 413 when larger, checked against content-length first and then while streaming.
 */
export async function readBytes(request: Request, limit = routeBodyLimit(request)): Promise<Buffer> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > limit) throw new AstrionError("payload_too_large", `The request body is larger than ${limit} bytes.`);
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => undefined);
        throw new AstrionError("payload_too_large", `The request body is larger than ${limit} bytes.`);
      }
      chunks.push(value);
    }
  }
  return Buffer.concat(chunks);
}

/** Parses `data` with `schema`, throwing a ValidationError whose details list every issue by path. */
export function parseWith<S extends z.ZodType>(schema: S, data: unknown, what: string): z.infer<S> {
  const result = schema.safeParse(data);
  if (!result.success) {
    const details = zodIssues(result.error);
    const first = details[0];
    throw new ValidationError(`${what}${first ? `: ${first.path ? `${first.path}: ` : ""}${first.message}` : ""}`, details);
  }
  return result.data;
}

/** The query string of a request as a plain object (last value wins). */
export function queryOf(request: Request): Record<string, string> {
  return Object.fromEntries(new URL(request.url).searchParams.entries());
}

type RouteContext<P> = { params: Promise<P> };

/**
 * Wraps a route handler: errors thrown inside become JSON error answers.
 * `params` arrive as a Promise (Next 16) and are awaited before the handler runs.
 */
export function route<P = Record<string, never>>(
  handler: (request: Request, params: P) => Promise<Response>,
): (request: Request, context: RouteContext<P>) => Promise<Response> {
  return async (request, context) => {
    try {
      const params = context?.params !== undefined ? await context.params : ({} as P);
      return await handler(request, params);
    } catch (error) {
      return errorResponse(error);
    }
  };
}

export { authorOf, identityOf, pageIdentity } from "./identity";
