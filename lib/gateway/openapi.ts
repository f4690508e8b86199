/**
 * OpenAPI 3.0 / 3.1 → gateway tools. Each operation becomes one tool whose input schema is its
 * path, query and header parameters plus its JSON request body (an object body's properties sit
 * beside the parameters; any other body is the `body` argument), all in the INTERNAL dialect
 * after the declared mappings, so the model never sees the API's names or formats. Operations
 * that cannot be expressed (a non-local `$ref`, a body that is not JSON, a required cookie) are
 * skipped with a warning. Pure.
 */
import { fieldSchema, internalName, schemaToInternal, type CompiledMappings } from "./mapping";
import { resolveRefs, UnresolvableRefError } from "./refs";
import type { GatewayEffect } from "./schema";

/** A spec that is no usable OpenAPI 3 document. */
class GatewaySpecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "GatewaySpecError";
  }
}

/** One parameter of an operation, by its API name. */
interface GatewayParam {
  name: string;
  in: "path" | "query" | "header";
  required: boolean;
}

/** One operation as a tool. */
export interface GatewayOperation {
  /** `gw__<source>__<operation>`, a valid function name of at most 64 characters. */
  toolName: string;
  /** The operationId, or `METHOD /path` when the spec gives none. */
  operation: string;
  method: string;
  path: string;
  effect: GatewayEffect;
  description: string;
  /** JSON Schema of the tool's arguments, internal dialect. */
  inputSchema: Record<string, unknown>;
  params: GatewayParam[];
  /** `merge`: an object body whose properties sit beside the parameters; `wrap`: the `body` argument. */
  body: { mode: "merge" | "wrap"; required: boolean; contentType: string } | null;
}

/** What one spec gives: its tools, what was skipped or cut short, and its first server. */
export interface SpecConversion {
  operations: GatewayOperation[];
  warnings: string[];
  serverUrl: string | null;
}

/** Tools one source may offer; a model is offered at most 128 tools in all. */
const MAX_TOOLS_PER_SOURCE = 64;
const METHODS = ["get", "put", "post", "delete", "patch", "head"] as const;
/** The wrapped body's argument name. */
export const BODY_ARGUMENT = "body";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** A short stable hash, to keep cut or clashing names apart. */
function shortHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, "0").slice(0, 6);
}

/** `gw__<source>__<operation>` with the operation part sanitized (no `__` inside), at most 64 characters. */
export function gatewayToolName(source: string, operation: string): string {
  const prefix = `gw__${source}__`;
  let op = operation.replace(/[^A-Za-z0-9_-]+/g, "_").replace(/_{2,}/g, "_").replace(/^[_-]+|[_-]+$/g, "") || "op";
  if (prefix.length + op.length > 64) op = `${op.slice(0, 64 - prefix.length - 7)}_${shortHash(operation)}`;
  return `${prefix}${op}`;
}

/** Parses `gw__<source>__<operation>`; null for any other name. */
export function parseGatewayToolName(name: string): { source: string; operation: string } | null {
  const m = /^gw__([A-Za-z0-9](?:[A-Za-z0-9-]|_(?!_))*)__(.+)$/.exec(name);
  return m ? { source: m[1]!, operation: m[2]! } : null;
}

/** OpenAPI 3.0's `nullable`, examples and other annotations a model or validator does not need. */
function cleanSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(cleanSchema);
  if (!isObj(schema)) return schema;
  const out: Obj = {};
  for (const [k, v] of Object.entries(schema)) {
    if (["example", "examples", "xml", "externalDocs", "discriminator", "nullable", "deprecated"].includes(k)) continue;
    out[k] = k === "properties" && isObj(v) ? Object.fromEntries(Object.entries(v).map(([pk, pv]) => [pk, cleanSchema(pv)])) : cleanSchema(v);
  }
  if (schema.nullable === true && typeof schema.type === "string") out.type = [schema.type, "null"];
  return out;
}

function firstServer(spec: Obj): string | null {
  const servers = spec.servers;
  if (!Array.isArray(servers) || !isObj(servers[0]) || typeof servers[0].url !== "string") return null;
  const vars = isObj(servers[0].variables) ? servers[0].variables : {};
  return servers[0].url.replace(/\{([^}]+)\}/g, (all, name: string) => {
    const v = vars[name];
    return isObj(v) && typeof v.default === "string" ? v.default : all;
  });
}

function jsonMedia(content: unknown): { type: string; schema: unknown } | null {
  if (!isObj(content)) return null;
  const type = Object.keys(content).find((t) => /^application\/json\b/i.test(t)) ?? Object.keys(content).find((t) => /\+json\b/i.test(t));
  return type ? { type, schema: isObj(content[type]) ? ((content[type] as Obj).schema ?? {}) : {} } : null;
}

interface OpContext {
  source: string;
  root: Obj;
  path: string;
  method: string;
  op: Obj;
  pathItem: Obj;
  mappings: CompiledMappings;
  fixedHeaders: ReadonlySet<string>;
}

/** One operation → a tool, or a reason to skip it. */
function convertOperation(c: OpContext, warnings: string[]): GatewayOperation | string {
  const label = `${c.method.toUpperCase()} ${c.path}`;
  const operation = typeof c.op.operationId === "string" && c.op.operationId.trim() ? c.op.operationId.trim() : label;
  const resolve = (n: unknown) => cleanSchema(resolveRefs(n, c.root, warnings));
  const byKey = new Map<string, Obj>();
  for (const list of [c.pathItem.parameters, c.op.parameters]) {
    if (!Array.isArray(list)) continue;
    for (const raw of list) {
      const p = resolveRefs(raw, c.root, warnings);
      if (isObj(p) && typeof p.name === "string" && typeof p.in === "string") byKey.set(`${p.in}:${p.name}`, p);
    }
  }
  const properties: [string, unknown][] = [];
  const required: string[] = [];
  const params: GatewayParam[] = [];
  for (const p of byKey.values()) {
    const where = p.in as string;
    const name = p.name as string;
    if (where === "cookie") {
      if (p.required === true) return `${label}: needs cookie parameter ${name}, which the gateway does not send`;
      continue;
    }
    if (where !== "path" && where !== "query" && where !== "header") continue;
    // A header the source sets itself (a token…) is never the model's to choose.
    if (where === "header" && c.fixedHeaders.has(name.toLowerCase())) continue;
    const isRequired = where === "path" || p.required === true;
    const internal = internalName(name, c.mappings);
    const raw = isObj(p.schema) ? p.schema : (jsonMedia(p.content)?.schema ?? { type: "string" });
    const schema = fieldSchema(resolve(raw), c.mappings, name, internal) as Obj;
    if (typeof p.description === "string" && !schema.description) schema.description = p.description;
    properties.push([internal, schema]);
    if (isRequired) required.push(internal);
    params.push({ name, in: where, required: isRequired });
  }
  let body: GatewayOperation["body"] = null;
  const rb = c.op.requestBody === undefined ? undefined : resolveRefs(c.op.requestBody, c.root, warnings);
  if (isObj(rb)) {
    const media = jsonMedia(rb.content);
    const bodyRequired = rb.required === true;
    if (!media) {
      if (bodyRequired) return `${label}: its request body is not JSON (${Object.keys(isObj(rb.content) ? rb.content : {}).join(", ") || "no content"})`;
      warnings.push(`${label}: its optional non-JSON request body is not offered`);
    } else {
      const schema = schemaToInternal(resolve(media.schema), c.mappings) as Obj;
      const props = isObj(schema.properties) ? schema.properties : null;
      const taken = new Set(properties.map(([k]) => k));
      if (props && (schema.type === "object" || schema.type === undefined) && !Object.keys(props).some((k) => taken.has(k))) {
        for (const [k, v] of Object.entries(props)) properties.push([k, v]);
        if (bodyRequired && Array.isArray(schema.required)) required.push(...(schema.required as string[]));
        body = { mode: "merge", required: bodyRequired, contentType: media.type };
      } else {
        if (taken.has(BODY_ARGUMENT)) return `${label}: a parameter is already called ${BODY_ARGUMENT}`;
        properties.push([BODY_ARGUMENT, { ...schema, description: typeof schema.description === "string" ? schema.description : "The request body." }]);
        if (bodyRequired) required.push(BODY_ARGUMENT);
        body = { mode: "wrap", required: bodyRequired, contentType: media.type };
      }
    }
  }
  const effect: GatewayEffect = c.method === "get" || c.method === "head" ? "read" : "write";
  const text = [c.op.summary, c.op.description].filter((x): x is string => typeof x === "string" && x.trim() !== "").join(" — ");
  // The path as the model reads it: its parameters under their internal names.
  const shownPath = c.path.replace(/\{([^}]+)\}/g, (_all, n: string) => `{${internalName(n, c.mappings)}}`);
  const description = `${text.slice(0, 1000)}${text ? " " : ""}(${c.method.toUpperCase()} ${shownPath} on ${c.source}; ${effect === "read" ? "reads" : "changes"} data through the protocol gateway)`;
  return {
    toolName: gatewayToolName(c.source, operation),
    operation,
    method: c.method.toUpperCase(),
    path: c.path,
    effect,
    description,
    inputSchema: { type: "object", properties: Object.fromEntries(properties), required: [...new Set(required)], additionalProperties: false },
    params,
    body,
  };
}

/**
 * The tools of one OpenAPI document. `select` keeps only the operations named (operationId or
 * `METHOD /path`); `fixedHeaders` are header names the source sets (lower case). Throws a
 * {@link GatewaySpecError} for a document that is no OpenAPI 3.0/3.1.
 */
export function operationsFromSpec(source: string, spec: unknown, mappings: CompiledMappings, options: { select?: readonly string[] | undefined; fixedHeaders?: readonly string[] } = {}): SpecConversion {
  if (!isObj(spec)) throw new GatewaySpecError("the spec is not an object");
  if (typeof spec.openapi !== "string" || !/^3\.[01]\.\d+/.test(spec.openapi)) throw new GatewaySpecError(`unsupported spec version ${JSON.stringify(spec.openapi ?? spec.swagger ?? null)}: OpenAPI 3.0 or 3.1 only`);
  if (!isObj(spec.paths)) throw new GatewaySpecError("the spec has no paths");
  const warnings: string[] = [];
  const operations: GatewayOperation[] = [];
  const wanted = options.select ? new Set(options.select.map((s) => s.trim())) : null;
  const found = new Set<string>();
  const fixedHeaders = new Set((options.fixedHeaders ?? []).map((h) => h.toLowerCase()));
  for (const [p, rawItem] of Object.entries(spec.paths)) {
    let pathItem: unknown;
    try {
      // Only a path item that is itself a $ref is resolved here; its operations resolve their own, so one bad $ref skips one operation.
      pathItem = isObj(rawItem) && typeof rawItem.$ref === "string" ? resolveRefs(rawItem, spec, warnings) : rawItem;
    } catch (error) {
      warnings.push(`${p}: skipped, ${(error as Error).message}`);
      continue;
    }
    if (!isObj(pathItem)) continue;
    for (const method of METHODS) {
      const op = pathItem[method];
      if (!isObj(op)) continue;
      const label = `${method.toUpperCase()} ${p}`;
      const opId = typeof op.operationId === "string" ? op.operationId.trim() : "";
      if (wanted) {
        const hit = [opId, label].find((k) => k && wanted.has(k));
        if (!hit) continue;
        found.add(hit);
      }
      let converted: GatewayOperation | string;
      try {
        converted = convertOperation({ source, root: spec, path: p, method, op, pathItem, mappings, fixedHeaders }, warnings);
      } catch (error) {
        if (!(error instanceof UnresolvableRefError)) throw error;
        converted = `${label}: ${error.message}`;
      }
      if (typeof converted === "string") {
        warnings.push(`skipped ${converted}`);
        continue;
      }
      if (operations.some((o) => o.toolName === converted.toolName)) {
        converted.toolName = gatewayToolName(source, `${converted.operation}_${shortHash(label)}`);
        warnings.push(`${label}: its name clashed with another operation's; offered as ${converted.toolName}`);
      }
      if (operations.length >= MAX_TOOLS_PER_SOURCE) {
        warnings.push(`more than ${MAX_TOOLS_PER_SOURCE} operations: the rest are not offered (list the ones to expose in "operations")`);
        return { operations, warnings, serverUrl: firstServer(spec) };
      }
      operations.push(converted);
    }
  }
  for (const w of wanted ?? []) if (!found.has(w)) warnings.push(`operation ${JSON.stringify(w)} is not in the spec`);
  return { operations, warnings, serverUrl: firstServer(spec) };
}
