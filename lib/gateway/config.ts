import "server-only";
/**
 * `<data folder>/gateway.json` loaded: each source's spec read (a file inside the data folder, JSON
 * or YAML, or inline), converted to tools, its mappings compiled. Read-only: the file is edited
 * by hand, and an edit (of it or of a spec file) is picked up at the next use, like models.json.
 * A broken file or source is an error reported by `/api/gateway` and `/api/health`, never a
 * crash: the other sources keep working.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import YAML from "yaml";
import { z } from "zod";
import { compileMappings, type CompiledMappings } from "./mapping";
import { operationsFromSpec, type GatewayOperation } from "./openapi";
import { GatewayFileSchema, type OpenApiSource } from "./schema";

/** The largest spec file read. */
const MAX_SPEC_BYTES = 4 * 1024 * 1024;
/** The largest gateway.json read. */
const MAX_FILE_BYTES = 1024 * 1024;

/** One source ready to call, or why it is not. */
export interface LoadedSource {
  name: string;
  config: OpenApiSource;
  baseUrl: string | null;
  mappings: CompiledMappings | null;
  operations: GatewayOperation[];
  /** By tool name: the operation and the validator of its arguments. */
  tools: Map<string, { op: GatewayOperation; args: z.ZodType }>;
  warnings: string[];
  error: string | null;
}

/** gateway.json as the server uses it. */
export interface LoadedGateway {
  present: boolean;
  error: string | null;
  sources: Map<string, LoadedSource>;
}

/** `<root>/gateway.json`. */
function gatewayFilePath(root: string): string {
  return path.join(root, "gateway.json");
}

async function stampOf(file: string): Promise<string> {
  try {
    const st = await fs.stat(file, { bigint: true });
    return `${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
  } catch {
    return "missing";
  }
}

/** Only http(s) base URLs, without credentials, query or fragment in them. */
export function checkBaseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`base_url ${JSON.stringify(text)} is not an absolute URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`base_url must be http or https, not ${url.protocol.replace(/:$/, "")}`);
  if (url.username || url.password) throw new Error("base_url cannot carry a user name or password (use headers)");
  // A key in a query string would be shown wherever the base URL is (settings, /api/gateway).
  if (url.search || url.hash) throw new Error("base_url cannot carry a query or a fragment (put keys in headers)");
  return url.toString();
}

/** A spec file's path: relative to the data folder and inside it (its real path too). */
async function specFile(root: string, rel: string): Promise<string> {
  if (path.isAbsolute(rel) || rel.includes("\0")) throw new Error(`spec ${JSON.stringify(rel)} must be a path relative to the data folder`);
  const realRoot = await fs.realpath(root);
  const resolved = path.resolve(realRoot, rel);
  const lexical = path.relative(realRoot, resolved);
  if (lexical.startsWith("..") || path.isAbsolute(lexical)) throw new Error(`spec ${JSON.stringify(rel)} is outside the data folder`);
  let real: string;
  try {
    real = await fs.realpath(resolved);
  } catch {
    throw new Error(`spec file ${rel} not found in the data folder`);
  }
  const inside = path.relative(realRoot, real);
  if (inside.startsWith("..") || path.isAbsolute(inside)) throw new Error(`spec ${JSON.stringify(rel)} is outside the data folder`);
  return real;
}

async function readSpec(root: string, spec: OpenApiSource["spec"]): Promise<unknown> {
  if (typeof spec !== "string") return spec;
  const file = await specFile(root, spec);
  const st = await fs.stat(file);
  if (st.size > MAX_SPEC_BYTES) throw new Error(`spec file ${spec} is larger than ${MAX_SPEC_BYTES} bytes`);
  const text = await fs.readFile(file, "utf8");
  try {
    // YAML 1.2 is a superset of JSON: one parser reads both.
    return YAML.parse(text, { maxAliasCount: 100 });
  } catch (error) {
    throw new Error(`spec file ${spec} is neither JSON nor YAML: ${(error as Error).message.split("\n")[0]}`);
  }
}

/** A copy of a JSON Schema without its `format` keywords. */
function withoutFormats(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutFormats);
  if (typeof node !== "object" || node === null) return node;
  return Object.fromEntries(Object.entries(node).flatMap(([k, v]) => (k === "format" && typeof v === "string" ? [] : [[k, k === "properties" ? Object.fromEntries(Object.entries(v as object).map(([pk, pv]) => [pk, withoutFormats(pv)])) : withoutFormats(v)]])));
}

function loadSource(name: string, config: OpenApiSource, spec: unknown): LoadedSource {
  const source: LoadedSource = { name, config, baseUrl: null, mappings: null, operations: [], tools: new Map(), warnings: [], error: null };
  const mappings = compileMappings(config.mappings);
  const conversion = operationsFromSpec(name, spec, mappings, { select: config.operations, fixedHeaders: Object.keys(config.headers) });
  const base = config.base_url ?? conversion.serverUrl;
  if (!base) throw new Error("no base_url, and the spec names no absolute server URL");
  source.baseUrl = checkBaseUrl(base);
  source.mappings = mappings;
  source.operations = conversion.operations;
  source.warnings = conversion.warnings;
  for (const op of conversion.operations) {
    let args: z.ZodType;
    try {
      // Formats are left to the mapping (a time field's is, with a message naming the field and the
      // format) and to the API: they are advice in JSON Schema, not a contract.
      args = z.fromJSONSchema(withoutFormats(op.inputSchema) as Parameters<typeof z.fromJSONSchema>[0]);
    } catch (error) {
      // The API still checks what it receives; the arguments are at least an object.
      source.warnings.push(`${op.operation}: its input schema is checked only as an object (${(error as Error).message})`);
      args = z.record(z.string(), z.unknown());
    }
    source.tools.set(op.toolName, { op, args });
  }
  return source;
}

/**
 * Each data folder's last parse, with the stamp of the files it read: a memo that a changed file
 * invalidates, keyed by the folder, so nothing needs sharing between Next route bundles (a
 * bundle's copy parses the file once more) or resetting between tests (each has its own folder).
 */
const cache = new Map<string, { stamp: string; loaded: LoadedGateway }>();

/** The identity of gateway.json and of the spec files `loaded` read: a change of any reloads. */
async function stampAll(root: string, file: string, loaded: LoadedGateway | undefined): Promise<string> {
  const specs = loaded ? [...loaded.sources.values()].flatMap((s) => (typeof s.config.spec === "string" ? [s.config.spec] : [])) : [];
  const parts = await Promise.all([file, ...specs.map((s) => path.join(root, s))].map(stampOf));
  return parts.join("|");
}

/** gateway.json as it is now (parsed again only when it or one of its spec files changed). */
export async function loadGateway(root: string): Promise<LoadedGateway> {
  const file = gatewayFilePath(root);
  const known = cache.get(root);
  if (known && known.stamp === (await stampAll(root, file, known.loaded))) return known.loaded;
  // Stamped before the parse: a file that changes while it is read is read again next time.
  const before = await stampOf(file);
  const loaded = await parseGateway(root, file);
  const stamp = await stampAll(root, file, loaded);
  cache.set(root, { stamp: stamp.startsWith(`${before}|`) || stamp === before ? stamp : "stale", loaded });
  return loaded;
}

async function parseGateway(root: string, file: string): Promise<LoadedGateway> {
  let text: string;
  try {
    const st = await fs.stat(file);
    if (st.size > MAX_FILE_BYTES) return { present: true, error: `gateway.json is larger than ${MAX_FILE_BYTES} bytes`, sources: new Map() };
    text = await fs.readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { present: false, error: null, sources: new Map() };
    return { present: true, error: `gateway.json cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, sources: new Map() };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { present: true, error: `gateway.json is not valid JSON: ${(error as Error).message}`, sources: new Map() };
  }
  const parsed = GatewayFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => {
      // A bad record key (a source name) says why in its inner issue.
      const inner = i.code === "invalid_key" ? i.issues[0]?.message : undefined;
      return `${i.path.map(String).join(".") || "(top)"}: ${inner ?? i.message}`;
    });
    return { present: true, error: `gateway.json is invalid: ${issues.join("; ")}`, sources: new Map() };
  }
  const sources = new Map<string, LoadedSource>();
  for (const [name, config] of Object.entries(parsed.data.sources)) {
    try {
      sources.set(name, loadSource(name, config, await readSpec(root, config.spec)));
    } catch (error) {
      sources.set(name, { name, config, baseUrl: null, mappings: null, operations: [], tools: new Map(), warnings: [], error: (error as Error).message });
    }
  }
  return { present: true, error: null, sources };
}
