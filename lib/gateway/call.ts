import "server-only";
/**
 * One gateway call over HTTP: the arguments checked against the tool's schema, the request built
 * in the API's dialect, the source's headers added (`${VAR}` read from the environment now, never
 * stored or shown), a deadline, no redirect followed, the answer read up to a size limit and
 * mapped back. Every text that leaves here has the source's header values redacted, so a token
 * the API echoes back reaches neither the model, the timeline nor the logs.
 */
import { parseJsonWithin } from "@/lib/input-limits";
import type { LoadedSource } from "./config";
import { buildRequest, readResponse, redact } from "./request";
import { GatewayMappingError } from "./time";

/** Bytes of a response read; the rest is cut (and said so). */
const MAX_RESPONSE_BYTES = 1024 * 1024;
/** Characters of a call's arguments accepted. */
const MAX_ARGUMENT_CHARS = 256 * 1024;

/** The default deadline of a call (`ASTRION_GATEWAY_TIMEOUT_MS`, default 15000: the third tier). */
export function defaultGatewayTimeoutMs(env: Record<string, string | undefined> = process.env): number {
  const n = Number(env.ASTRION_GATEWAY_TIMEOUT_MS);
  return Number.isInteger(n) && n >= 100 ? n : 15_000;
}

/** How a call went; `text` is the tool result or the error's message, secrets redacted. */
export interface GatewayCallOutcome {
  ok: boolean;
  text: string;
  /** The HTTP status, or null when no answer came. */
  status: number | null;
}

/** `${NAME}` references of the source's header values, replaced from `env`; secrets collects every value. */
export function resolveHeaders(headers: Record<string, string>, env: Record<string, string | undefined>, secrets: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, template] of Object.entries(headers)) {
    const value = template.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_all, v: string) => {
      const found = env[v];
      if (found === undefined || found === "") throw new GatewayMappingError(`header ${name} needs the environment variable ${v}, which is not set on the server`);
      secrets.push(found);
      return found;
    });
    if (/[\r\n\0]/.test(value)) throw new GatewayMappingError(`header ${name} holds a line break`);
    secrets.push(value);
    out[name] = value;
  }
  return out;
}

async function readCapped(res: Response): Promise<{ text: string; truncated: boolean }> {
  if (!res.body) return { text: "", truncated: false };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.byteLength > MAX_RESPONSE_BYTES) {
      chunks.push(value.subarray(0, MAX_RESPONSE_BYTES - size));
      truncated = true;
      await reader.cancel().catch(() => undefined);
      break;
    }
    chunks.push(value);
    size += value.byteLength;
  }
  return { text: Buffer.concat(chunks).toString("utf8"), truncated };
}

/** Calls `toolName` of `source` with the model's `argsText`. Never throws for what the API or the model did. */
export async function callGatewayOperation(
  source: LoadedSource,
  toolName: string,
  argsText: string,
  options: { timeoutMs: number; maxChars: number; signal?: AbortSignal | undefined; env?: Record<string, string | undefined> },
): Promise<GatewayCallOutcome> {
  const tool = source.tools.get(toolName);
  if (!tool || !source.mappings || !source.baseUrl) return { ok: false, text: `${toolName} is not offered by the gateway now${source.error ? ` (${source.error})` : ""}`, status: null };
  const json = parseJsonWithin(argsText.trim() === "" ? "{}" : argsText, MAX_ARGUMENT_CHARS);
  if (!json.ok) return { ok: false, text: `arguments refused: ${json.message}`, status: null };
  const parsed = tool.args.safeParse(json.value);
  if (!parsed.success) return { ok: false, text: `invalid arguments: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}`, status: null };
  const secrets: string[] = [];
  const fail = (text: string, status: number | null = null): GatewayCallOutcome => ({ ok: false, text: redact(text, secrets), status });
  let request;
  let headers: Record<string, string>;
  try {
    headers = resolveHeaders(source.config.headers, options.env ?? process.env, secrets);
    request = buildRequest(tool.op, parsed.data as Record<string, unknown>, source.mappings, source.baseUrl);
  } catch (error) {
    if (error instanceof GatewayMappingError) return fail(error.message);
    throw error;
  }
  const timeoutMs = source.config.timeout_ms ?? options.timeoutMs;
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
  let res: Response;
  let body: { text: string; truncated: boolean };
  try {
    // The source's headers win over header parameters of the same name.
    res = await fetch(request.url, { method: request.method, headers: { ...request.headers, ...headers }, body: request.body, redirect: "manual", signal });
    body = await readCapped(res);
  } catch (error) {
    if (deadline.aborted) return fail(`the API did not answer within ${timeoutMs} ms (deadline)`);
    if (options.signal?.aborted) return fail("the call was stopped");
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return fail(`cannot reach ${new URL(request.url).origin}: ${cause?.code ?? cause?.message ?? (error as Error).message}`);
  }
  if (res.status >= 300 && res.status < 400) {
    const location = res.headers.get("location");
    let where = "elsewhere";
    try {
      if (location) where = new URL(location, request.url).origin;
    } catch {
      where = "an invalid location";
    }
    return fail(`the API answered HTTP ${res.status}, a redirect to ${where}; the gateway does not follow redirects`, res.status);
  }
  try {
    const result = readResponse({ status: res.status, statusText: res.statusText, contentType: res.headers.get("content-type"), text: redact(body.text, secrets), truncated: body.truncated }, source.mappings, options.maxChars);
    return result.ok ? { ok: true, text: redact(result.text, secrets), status: res.status } : fail(result.message, res.status);
  } catch (error) {
    if (error instanceof GatewayMappingError) return fail(`the API's answer (HTTP ${res.status}) does not map: ${error.message}`, res.status);
    throw error;
  }
}
