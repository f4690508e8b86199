/**
 * Checks values against the schemas of an OpenAPI document with zod itself (`z.fromJSONSchema`),
 * so no second validator is needed: a schema of the document, with its `#/components/schemas/…`
 * references turned into `$defs` of its own, becomes a zod schema to parse with. Also finds an
 * operation's request and answer schemas by method, path and status.
 */
import { z } from "zod";

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const COMPONENT = "#/components/schemas/";

/** `schema` of `doc` as one standalone JSON Schema: every component becomes a `$defs` entry. */
function standalone(doc: Json, schema: Json): Json {
  const defs = JSON.parse(JSON.stringify(doc.components.schemas).replaceAll(`"${COMPONENT}`, '"#/$defs/'));
  return { ...JSON.parse(JSON.stringify(schema).replaceAll(`"${COMPONENT}`, '"#/$defs/')), $defs: defs };
}

/** A zod schema that checks what `schema` (a schema of `doc`) describes. */
export function validatorFor(doc: Json, schema: Json): z.ZodType {
  return z.fromJSONSchema(standalone(doc, schema) as Parameters<typeof z.fromJSONSchema>[0]);
}

/** The operation of `doc` for a method and a concrete path (`/api/conversations/conv_…?q=`). */
export function operationOf(doc: Json, method: string, concretePath: string): Json {
  const pathname = concretePath.split("?")[0]!;
  for (const [template, item] of Object.entries(doc.paths as Record<string, Json>)) {
    const pattern = new RegExp(`^${template.replace(/[.]/g, "\\.").replace(/\{[^}]+\}/g, "[^/]+")}$`);
    if (pattern.test(pathname) && item[method.toLowerCase()]) return item[method.toLowerCase()];
  }
  throw new Error(`the document has no ${method} ${concretePath}`);
}

/** The JSON schema of the answer with `status` (a `$ref` to a response component is followed). */
export function answerSchema(doc: Json, method: string, concretePath: string, status: number): Json {
  let response = operationOf(doc, method, concretePath).responses[String(status)];
  if (!response) throw new Error(`${method} ${concretePath} documents no ${status} answer`);
  if (response.$ref) response = doc.components.responses[String(response.$ref).replace("#/components/responses/", "")];
  const schema = response.content?.["application/json"]?.schema;
  if (!schema) throw new Error(`${method} ${concretePath} ${status} is not JSON`);
  return schema;
}

/** The JSON schema of the operation's JSON request body. */
export function requestSchema(doc: Json, method: string, concretePath: string): Json {
  const schema = operationOf(doc, method, concretePath).requestBody?.content?.["application/json"]?.schema;
  if (!schema) throw new Error(`${method} ${concretePath} takes no JSON body`);
  return schema;
}

/** The issues of `value` against `schema` of `doc`, as readable lines (empty when it fits). */
export function issuesOf(doc: Json, schema: Json, value: unknown): string[] {
  const result = validatorFor(doc, schema).safeParse(value);
  return result.success ? [] : result.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
}
