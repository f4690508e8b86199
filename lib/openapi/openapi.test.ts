/**
 * The route table cannot drift from the code, nor the documents from the table: every route file
 * and method under app/api is in the table and nothing else is; each handler parses its body,
 * query and path parameters with the schemas its row names, answers with `answer(Schema, …)` of
 * the schema its row names (the compiler checks the value against it) and the statuses it lists;
 * public rows are exactly what the request guard lets through without a token; docs/openapi.json
 * and the table of docs/http-api.md are what the generator writes now; the document is OpenAPI
 * 3.1 whose every `$ref` resolves and whose every schema zod can compile back.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { StopResponseSchema } from "@/lib/contracts/http";
import { SearchAgentSchema } from "@/lib/contracts/search";
import { checkRequest } from "@/lib/security";
import { validatorFor } from "@/test/helpers/openapi";
import {
  buildOpenApiDocument,
  CATCH_ALL,
  concretePath,
  HTTP_METHODS,
  pathParamNames,
  renderHttpApiTable,
  renderOpenApiJson,
  routeFileOf,
  ROUTES,
  schemaAliases,
  withGeneratedTable,
  type HttpMethod,
  type Operation,
} from "@/lib/openapi";

const ROOT = path.resolve(__dirname, "..", "..");
const read = (file: string) => readFileSync(path.join(ROOT, file), "utf8");
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Every `route.ts` under app/api, relative to the repository. */
function routeFiles(): string[] {
  return readdirSync(path.join(ROOT, "app/api"), { recursive: true, encoding: "utf8" })
    .filter((f) => path.basename(f) === "route.ts")
    .map((f) => `app/api/${f.split(path.sep).join("/")}`)
    .sort();
}

/** The methods a route file exports: `export const GET =`, `export async function POST`, `export { x as PUT }`. */
function exportedMethods(source: string): string[] {
  const direct = [...source.matchAll(/export\s+(?:const|let|async\s+function|function)\s+(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS)\b/g)].map((m) => m[1]!);
  const renamed = [...source.matchAll(/export\s*\{([^}]*)\}/g)].flatMap((m) => [...m[1]!.matchAll(/\bas\s+(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS)\b/g)].map((n) => n[1]!));
  return [...direct, ...renamed].sort();
}

/** The source of one handler: from its `export const METHOD` to the next export of a method. */
function handlerSource(source: string, method: HttpMethod): string {
  const starts = [...source.matchAll(/export\s+const\s+(GET|POST|PUT|PATCH|DELETE)\b/g)];
  const at = starts.findIndex((m) => m[1] === method);
  expect(at, `export const ${method}`).toBeGreaterThanOrEqual(0);
  return source.slice(starts[at]!.index, starts[at + 1]?.index ?? source.length);
}

const operations = ROUTES.flatMap((route) => HTTP_METHODS.filter((m) => route.methods[m]).map((method) => ({ route, method, op: route.methods[method] as Operation })));

describe("the route table and app/api", () => {
  it("lists every route file and exactly the methods it exports", () => {
    const inCode = Object.fromEntries(routeFiles().map((f) => [f, exportedMethods(read(f))]));
    const inTable: Record<string, string[]> = { [CATCH_ALL.file]: [...CATCH_ALL.methods].sort() };
    for (const route of ROUTES) {
      const file = routeFileOf(route.path);
      expect(inTable[file], `${route.path} is in the table once`).toBeUndefined();
      inTable[file] = HTTP_METHODS.filter((m) => route.methods[m]).sort();
    }
    expect(inTable).toEqual(inCode);
  });

  it("names each path parameter's schema, in path order", () => {
    for (const route of ROUTES) expect(Object.keys(route.params ?? {}), route.path).toEqual(pathParamNames(route.path));
  });

  it.each(operations.map((o) => [`${o.method} ${o.route.path}`, o] as const))("%s parses and answers what its row says", (_, { route, method, op }) => {
    const source = handlerSource(read(routeFileOf(route.path)), method);
    const named = (schema: unknown) => schemaAliases(schema as never);

    const body = /readBody\(request,\s*(\w+)/.exec(source)?.[1];
    if (op.body && "json" in op.body) expect(named(op.body.json).map((n) => `${n}Schema`)).toContain(body);
    else expect(body, "a JSON body the row does not name").toBeUndefined();
    expect(/readBytes\(/.test(source), "a raw body").toBe(Boolean(op.body && "raw" in op.body));

    const query = /parseWith\((\w+),\s*queryOf\(request\)/.exec(source)?.[1];
    if (op.query) expect(named(op.query).map((n) => `${n}Schema`)).toContain(query);
    else expect(query, "a query the row does not name").toBeUndefined();

    for (const [, ident, param] of source.matchAll(/parseWith\((\w+),\s*params\.(\w+)/g)) {
      expect(named(route.params?.[param!]).map((n) => `${n}Schema`), `param ${param}`).toContain(ident);
    }

    const answered = [...new Set([...source.matchAll(/\banswer\((\w+),/g)].map((m) => m[1]!))];
    const documented = [...new Set(op.answers.flatMap((a) => ("json" in a ? [a.json] : [])))];
    expect(answered.length, "one answer(Schema, …) per schema the row documents").toBe(documented.length);
    for (const schema of documented) expect(answered.some((ident) => named(schema).map((n) => `${n}Schema`).includes(ident)), `answer(${named(schema)[0]}Schema, …)`).toBe(true);
    expect(/\bjson\(/.test(source), "a JSON answer outside the contract (use answer(Schema, …))").toBe(false);

    const statuses = [...source.matchAll(/status:([^}]*)\}/g)].flatMap((m) => [...m[1]!.matchAll(/\b[1-5]\d\d\b/g)].map((n) => Number(n[0])));
    expect(op.answers.map((a) => a.status).sort()).toEqual((statuses.length ? [...new Set(statuses)] : [200]).sort());
  });

  it("marks public exactly the operations the request guard lets through without the token", () => {
    for (const { route, method, op } of operations) {
      const verdict = checkRequest(
        { method, pathname: concretePath(route.path), host: "127.0.0.1:3000", origin: null, contentType: "application/json", authorization: null, tokenCookie: null },
        { allowedHosts: [], token: "secret" },
      );
      expect(verdict.ok, `${method} ${route.path}`).toBe(op.public === true);
    }
  });
});

describe("the generated files", () => {
  const document = buildOpenApiDocument();

  it("docs/openapi.json is what the generator writes now (run `npm run openapi`)", () => {
    expect(read("docs/openapi.json")).toBe(renderOpenApiJson(document));
  });

  it("the table of docs/http-api.md is what the generator writes now (run `npm run openapi`)", () => {
    const page = read("docs/http-api.md");
    expect(page).toBe(withGeneratedTable(page, renderHttpApiTable(document)));
  });
});

describe("the document", () => {
  const document = buildOpenApiDocument() as Json;

  it("is OpenAPI 3.1 with an operation per row, each with a unique id, a success answer and the errors it can answer", () => {
    expect(document.openapi).toBe("3.1.0");
    const ids = new Set<string>();
    for (const { route, method } of operations) {
      const op = document.paths[route.path][method.toLowerCase()];
      expect(ids.has(op.operationId), op.operationId).toBe(false);
      ids.add(op.operationId);
      expect(Object.keys(op.responses).some((s) => s.startsWith("2")), `${method} ${route.path}`).toBe(true);
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(["400", "403", "500"]));
      for (const name of pathParamNames(route.path)) expect(op.parameters.some((p: Json) => p.in === "path" && p.name === name)).toBe(true);
    }
  });

  it("resolves every $ref", () => {
    const refs: string[] = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === "object") {
        for (const [k, v] of Object.entries(node)) {
          if (k === "$ref") refs.push(String(v));
          else walk(v);
        }
      }
    };
    walk(document);
    expect(refs.length).toBeGreaterThan(100);
    for (const ref of new Set(refs)) {
      expect(ref.startsWith("#/"), ref).toBe(true);
      const target = ref.slice(2).split("/").reduce<unknown>((at, key) => (at as Json | undefined)?.[key.replace(/~1/g, "/").replace(/~0/g, "~")], document);
      expect(target, ref).toBeDefined();
    }
  });

  it("has schemas zod compiles back, which accept what the contract produces", () => {
    for (const [name, schema] of Object.entries(document.components.schemas as Record<string, Json>)) {
      expect(schema.$schema ?? schema.$id, name).toBeUndefined();
      expect(() => validatorFor(document, schema), name).not.toThrow();
    }
    const stop = validatorFor(document, { $ref: "#/components/schemas/StopResponse" });
    expect(stop.safeParse({ stopped: true }).success).toBe(true);
    expect(stop.safeParse({ stopped: true, extra: 1 }).success).toBe(false);
    const create = validatorFor(document, { $ref: "#/components/schemas/CreateConversationBody" });
    expect(create.safeParse({ project_path: "/tmp/p" }).success, "a field with a default may be left out").toBe(true);
  });

  it("describes a transform's output as any value with a note (unrepresentable: any), its input as what it takes", () => {
    const get = { summary: "x", answers: [{ status: 200, json: SearchAgentSchema }] } as const;
    const post = { summary: "x", body: { json: SearchAgentSchema }, answers: [{ status: 200, json: StopResponseSchema }] } as const;
    const answer = buildOpenApiDocument([{ path: "/api/x", methods: { GET: get } }]) as Json;
    expect(answer.components.schemas.SearchAgent).toEqual({ "x-unrepresentable": expect.stringMatching(/transform/i) });
    const request = buildOpenApiDocument([{ path: "/api/x", methods: { POST: post } }]) as Json;
    expect(request.components.schemas.SearchAgent).toMatchObject({ type: "string", pattern: expect.any(String) });
    expect(() => buildOpenApiDocument([{ path: "/api/x", methods: { GET: get, POST: { ...post, body: { json: SearchAgentSchema } } } }])).toThrow(/both a request and an answer/);
  });

  it("refuses a schema the contract does not export by name", () => {
    expect(() => buildOpenApiDocument([{ path: "/api/x", methods: { GET: { summary: "x", answers: [{ status: 200, json: z.object({}) }] } } }])).toThrow(/exports as <Name>Schema/);
  });
});
