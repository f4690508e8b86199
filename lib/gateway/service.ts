import "server-only";
/**
 * The gateway as the rest of the server sees it: the tools a grant offers (as model tool specs),
 * one tool's effect (for the approval gate), the call itself with its last failure remembered,
 * and the report `/api/gateway` and `/api/health` show. Header values never appear in any of it.
 */
import type { StoreProblem } from "@/lib/contracts/http";
import type { ToolSpec } from "@/lib/models/types";
import { callGatewayOperation, defaultGatewayTimeoutMs, type GatewayCallOutcome } from "./call";
import { loadGateway, type LoadedSource } from "./config";
import { grantsAny, grantsTool, type GatewayGrant } from "./grants";
import { parseGatewayToolName, type GatewayOperation } from "./openapi";
import type { GatewayReport } from "./schema";

type LastError = { tool: string; message: string; at: string };

/** The last failed call of each source (for the settings page): one per process, made by the composition root. */
export class GatewayLastErrors {
  readonly #errors = new Map<string, LastError>();

  set(root: string, source: string, error: LastError): void {
    this.#errors.set(`${root}\0${source}`, error);
  }

  get(root: string, source: string): LastError | null {
    return this.#errors.get(`${root}\0${source}`) ?? null;
  }
}

/** The source and operation of a gateway tool name as gateway.json declares it now, or null. */
export async function findGatewayTool(root: string, name: string): Promise<{ source: LoadedSource; op: GatewayOperation } | null> {
  const parsed = parseGatewayToolName(name);
  if (!parsed) return null;
  const source = (await loadGateway(root)).sources.get(parsed.source);
  const tool = source?.tools.get(name);
  return source && tool ? { source, op: tool.op } : null;
}

/** The tools `grant` offers now, as a model is shown them. */
export async function gatewayToolSpecs(root: string, grant: GatewayGrant): Promise<ToolSpec[]> {
  if (!grantsAny(grant)) return [];
  const specs: ToolSpec[] = [];
  for (const source of (await loadGateway(root)).sources.values()) {
    for (const op of source.operations) {
      if (grantsTool(grant, op.toolName)) specs.push({ type: "function", function: { name: op.toolName, description: op.description, parameters: op.inputSchema } });
    }
  }
  return specs;
}

/** Calls a gateway tool; a failure is remembered for the settings page. */
export async function runGatewayCall(root: string, name: string, argsText: string, options: { maxChars: number; signal?: AbortSignal; errors: GatewayLastErrors }): Promise<GatewayCallOutcome & { source: string | null; op: GatewayOperation | null }> {
  const found = await findGatewayTool(root, name);
  if (!found) return { ok: false, text: `${name} is not a tool the gateway offers now (see gateway.json)`, status: null, source: null, op: null };
  const outcome = await callGatewayOperation(found.source, name, argsText, { timeoutMs: defaultGatewayTimeoutMs(), maxChars: options.maxChars, signal: options.signal });
  if (!outcome.ok) options.errors.set(root, found.source.name, { tool: name, message: outcome.text.slice(0, 500), at: new Date().toISOString() });
  return { ...outcome, source: found.source.name, op: found.op };
}

/** `GET /api/gateway`: every source, its tools, warnings and errors; never a header value. */
export async function gatewayReport(root: string, errors: GatewayLastErrors): Promise<GatewayReport> {
  const loaded = await loadGateway(root);
  return {
    present: loaded.present,
    error: loaded.error,
    sources: [...loaded.sources.values()].map((s) => ({
      name: s.name,
      base_url: s.baseUrl,
      header_names: Object.keys(s.config.headers),
      tools: s.operations.map((op) => ({ name: op.toolName, operation: op.operation, method: op.method, path: op.path, effect: op.effect, description: op.description })),
      warnings: s.warnings,
      error: s.error,
      last_call_error: errors.get(root, s.name),
    })),
  };
}

/** gateway.json's problems for `/api/health`: the file's, and each source that offers nothing. */
export async function gatewayProblems(root: string): Promise<StoreProblem[]> {
  const loaded = await loadGateway(root);
  if (loaded.error) return [{ file: "gateway.json", message: loaded.error }];
  return [...loaded.sources.values()].filter((s) => s.error).map((s) => ({ file: "gateway.json", message: `source ${s.name}: ${s.error}` }));
}
