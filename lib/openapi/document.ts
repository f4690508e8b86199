/**
 * The OpenAPI 3.1 document of the HTTP API, built from the route table (./routes.ts): paths,
 * parameters, request bodies, answers and error answers, with every schema generated from the zod
 * contract (./components.ts). Served at `GET /api/openapi.json` and written to docs/openapi.json
 * by `npm run openapi`; the route-table test fails when the file is not what this builds.
 */
import { z } from "zod";
import pkg from "@/package.json";
import { STATUS_BY_CODE, type ErrorCode } from "@/lib/contracts/errors";
import { ApiErrorBodySchema, type OpenApiDocument } from "@/lib/contracts/http";
import { bodyLimitFor } from "@/lib/input-limits";
import { TOKEN_COOKIE } from "@/lib/security";
import { Components, inlineSchema, type Json } from "./components";
import { CATCH_ALL, ROUTES } from "./routes";
import { concretePath, errorStatuses, HTTP_METHODS, type Answer, type ErrorStatus, type HttpMethod, type Operation, type RouteSpec } from "./spec";

/** What each error status means; its codes come from STATUS_BY_CODE. */
const ERROR_MEANING: Readonly<Record<ErrorStatus, string>> = {
  400: "The request does not fit: `validation_failed` (`details` lists `{path, message}` per field; a refused project folder adds a stable `reason` and, for the data/app folder rules, the `folder`), or `bad_request` (a body that is not JSON or nested too deep, a path with malformed percent-encoding).",
  401: "Token mode (ASTRION_TOKEN set) and the request carries no right token.",
  403: "The Host is not one of this machine's names (or ASTRION_ALLOWED_HOSTS), or a state-changing request comes from another Origin.",
  404: "What the path or body names does not exist.",
  409: "`conflict`: it exists already, changed on disk since it was read, is in a state that refuses this (archived, already decided, running), or its file does not load and is not overwritten.",
  413: "`payload_too_large`: the body is over the route's limit (`x-body-limit-bytes`; see docs/limits.md).",
  415: "`unsupported_media_type`: a state-changing request must be `content-type: application/json` (the import: `application/zip`).",
  429: "`rate_limited`: try again after `Retry-After` seconds.",
  500: "A fault of the server or of its data folder; the message says what, the log says more.",
};

const SUCCESS_TEXT: Readonly<Record<number, string>> = { 200: "OK", 201: "Created", 202: "Accepted: the work goes on in the background" };

function codesOf(status: ErrorStatus): [ErrorCode, ...ErrorCode[]] {
  const codes = (Object.keys(STATUS_BY_CODE) as ErrorCode[]).filter((code) => STATUS_BY_CODE[code] === status);
  if (codes.length === 0) throw new Error(`No error code answers ${status}.`);
  return codes as [ErrorCode, ...ErrorCode[]];
}

/** The error body of one status: the API's error body with `code` one of that status's codes. */
function errorBody(status: ErrorStatus) {
  return z.object({ error: ApiErrorBodySchema.shape.error.extend({ code: z.enum(codesOf(status)) }) });
}

function errorResponse(status: ErrorStatus, c: Components): Json {
  const retry = status === 429 ? { headers: { "Retry-After": { description: "Seconds to wait before trying again.", schema: { type: "integer", minimum: 1 } } } } : {};
  return { description: ERROR_MEANING[status], ...retry, content: { "application/json": { schema: c.use("output", errorBody(status), `Error${status}`) } } };
}

function answerResponse(answer: Answer, c: Components): Json {
  const description = answer.description ?? SUCCESS_TEXT[answer.status] ?? "OK";
  if ("json" in answer) return { description, content: { "application/json": { schema: c.use("output", answer.json) } } };
  if ("event" in answer) {
    return {
      description,
      content: { "text/event-stream": { schema: { type: "string", description: "Server-sent events; each `data:` line is one JSON event (`x-event-data`)." }, "x-event-data": c.use("output", answer.event) } },
    };
  }
  const headers = Object.fromEntries(Object.entries(answer.headers ?? {}).map(([name, what]) => [name, { description: what, schema: { type: "string" } }]));
  const content = Object.fromEntries(Object.entries(answer.media).map(([type, what]) => [type, { schema: { description: what } }]));
  return { description, headers, content };
}

function requestBody(op: Operation, c: Components): Json | undefined {
  if (!op.body) return undefined;
  if ("json" in op.body) return { required: true, content: { "application/json": { schema: c.use("input", op.body.json) } } };
  return { required: true, description: op.body.description, content: { [op.body.raw]: {} } };
}

function parameters(route: RouteSpec, op: Operation): Json[] {
  const path = Object.entries(route.params ?? {}).map(([name, schema]) => ({ name, in: "path", required: true, schema: inlineSchema(schema, "input") }));
  if (!op.query) return path;
  const query = inlineSchema(op.query, "input") as { properties?: Record<string, Json>; required?: string[] };
  return [...path, ...Object.entries(query.properties ?? {}).map(([name, schema]) => ({ name, in: "query", required: query.required?.includes(name) ?? false, schema }))];
}

/** `GET /api/conversations/{id}` → `getConversationsById`. */
function operationId(method: HttpMethod, path: string): string {
  const cap = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);
  const words = path
    .split("/")
    .slice(2)
    .flatMap((segment) => (segment.startsWith("{") ? [`by${cap(segment.slice(1, -1))}`] : segment.split(/[-.]/)));
  return method.toLowerCase() + words.map(cap).join("");
}

function operation(route: RouteSpec, method: HttpMethod, op: Operation, c: Components): Json {
  const responses: Json = {};
  for (const answer of op.answers) {
    if (Object.hasOwn(responses, String(answer.status))) throw new Error(`${method} ${route.path} lists status ${answer.status} twice.`);
    responses[String(answer.status)] = answerResponse(answer, c);
  }
  for (const status of errorStatuses(method, op)) responses[String(status)] = { $ref: `#/components/responses/Error${status}` };
  const params = parameters(route, op);
  const limit = bodyLimitFor(method, concretePath(route.path));
  return {
    operationId: operationId(method, route.path),
    tags: [route.path.split("/")[2]!.replace(/\.json$/, "")],
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    ...(params.length ? { parameters: params } : {}),
    ...(op.body ? { requestBody: requestBody(op, c) } : {}),
    responses,
    // A public operation needs no token even in token mode.
    ...(op.public ? { security: [] } : {}),
    ...(limit !== null ? { "x-body-limit-bytes": limit } : {}),
  };
}

const DESCRIPTION = [
  "The HTTP API of Astrion Team: JSON in and out, generated from the route table (lib/openapi) and the zod schemas the handlers parse with and answer. Request bodies and parameters are described as zod accepts them (a field with a default may be left out), answers as the server sends them; a part JSON Schema cannot express is any value with an `x-unrepresentable` note.",
  "Errors are `{error: {code, message, details?}}`; each status's codes are in its `Error<status>` schema. Every state-changing request must be `content-type: application/json` (the import: `application/zip`) and, with an `Origin`, same-origin. In token mode (ASTRION_TOKEN set) every operation without `security: []` needs the token, as a bearer header or the cookie the sign-in sets.",
  `Any other path under /api answers 404 \`not_found\` (JSON) for ${CATCH_ALL.methods.join(", ")}. Before a request reaches a route, the HTTP server of \`npm start\` answers in the same error shape 501 \`method_not_implemented\` (a method it does not serve), 431 \`headers_too_large\` and 408 \`request_timeout\` (scripts/http-refusals.mjs).`,
].join("\n\n");

/** Builds the document from `routes` (the route table by default). */
export function buildOpenApiDocument(routes: readonly RouteSpec[] = ROUTES): OpenApiDocument {
  const c = new Components();
  const paths: Record<string, Json> = {};
  const errors = new Set<ErrorStatus>();
  for (const route of routes) {
    const item: Json = {};
    for (const method of HTTP_METHODS) {
      const op = route.methods[method];
      if (!op) continue;
      item[method.toLowerCase()] = operation(route, method, op, c);
      for (const status of errorStatuses(method, op)) errors.add(status);
    }
    paths[route.path] = item;
  }
  const responses = Object.fromEntries([...errors].sort((a, b) => a - b).map((status) => [`Error${status}`, errorResponse(status, c)]));
  return {
    openapi: "3.1.0",
    info: { title: "Astrion Team HTTP API", version: pkg.version, description: DESCRIPTION, license: { name: pkg.license, identifier: pkg.license } },
    security: [{ bearerToken: [] }, { tokenCookie: [] }],
    paths,
    components: {
      schemas: c.schemas(),
      responses,
      securitySchemes: {
        bearerToken: { type: "http", scheme: "bearer", description: "ASTRION_TOKEN, in token mode; a server started without it needs no token." },
        tokenCookie: { type: "apiKey", in: "cookie", name: TOKEN_COOKIE, description: "The HttpOnly cookie `POST /api/auth/signin` sets." },
      },
    },
  };
}

/** The document as docs/openapi.json holds it: two-space JSON and a final newline. */
export function renderOpenApiJson(document: OpenApiDocument = buildOpenApiDocument()): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
