import "server-only";
/**
 * The connection doctor's two kinds of request, each bounded by a timeout and the whole check's
 * signal: `GET <base>/models` through the app's transport (lib/models/http-fetch.ts), and one
 * streamed chat probe through the official `openai` client on that same transport, its chunks
 * read by a {@link ProbeObserver}. Failures become values, never exceptions; the key never
 * appears in what is returned.
 */
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import type { ChatCompletionChunk, ChatCompletionCreateParamsStreaming } from "openai/resources/chat/completions";
import { DUMMY_API_KEY, redactSecrets } from "../client";
import { modelFetch } from "../http-fetch";
import { ProbeObserver, type ProbeSeen } from "./observe";
import type { ProbeBody } from "./probes";

/** What `GET /models` showed. */
export type ModelListSeen =
  | { kind: "down"; said: string }
  | { kind: "timeout" }
  | { kind: "http"; status: number; said: string }
  | { kind: "listed"; ids: string[]; body: unknown };

/** Where and how a probe is sent. */
export interface ProbeTarget {
  baseUrl: string;
  /** The key's value, or undefined when none is needed. */
  key: string | undefined;
  /** Each request's timeout. */
  timeoutMs: number;
  /** The whole check's signal: aborting it ends every request at once. */
  signal: AbortSignal;
}

const MAX_SAID = 300;

function shorten(text: string, key: string | undefined): string {
  const clean = redactSecrets(text, [key]).trim();
  return clean.length > MAX_SAID ? `${clean.slice(0, MAX_SAID)}…` : clean;
}

function causeOf(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && !parts.includes(code)) parts.push(code);
  }
  const message = error instanceof Error ? error.message : String(error);
  return parts.length ? `${parts.join(", ")}: ${message}` : message;
}

function signalFor(target: ProbeTarget): AbortSignal {
  return AbortSignal.any([target.signal, AbortSignal.timeout(target.timeoutMs)]);
}

function isTimeout(error: unknown, signal: AbortSignal): boolean {
  return signal.aborted || (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError"));
}

/** `GET <base>/models`: the served model ids, or why there are none. */
export async function listModels(target: ProbeTarget): Promise<ModelListSeen> {
  const signal = signalFor(target);
  try {
    const res = await modelFetch(`${target.baseUrl.replace(/\/+$/, "")}/models`, { headers: target.key ? { authorization: `Bearer ${target.key}` } : {}, signal });
    const text = await res.text();
    if (!res.ok) return { kind: "http", status: res.status, said: shorten(errorMessageOf(text), target.key) };
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return { kind: "http", status: res.status, said: shorten(text, target.key) };
    }
    const data = (body as { data?: unknown } | null)?.data;
    const ids = Array.isArray(data) ? data.map((m) => (m as { id?: unknown } | null)?.id).filter((id): id is string => typeof id === "string") : [];
    return { kind: "listed", ids, body };
  } catch (error) {
    if (isTimeout(error, signal)) return { kind: "timeout" };
    return { kind: "down", said: shorten(causeOf(error), target.key) };
  }
}

/** The `error.message` of an OpenAI-style error body, else the text itself. */
function errorMessageOf(text: string): string {
  try {
    const message = (JSON.parse(text) as { error?: { message?: unknown } } | null)?.error?.message;
    return typeof message === "string" ? message : text;
  } catch {
    return text;
  }
}

/** Sends one streamed probe and observes it; `recover` as the model client would pass it. */
export async function sendProbe(target: ProbeTarget, body: ProbeBody, recover?: ReadonlySet<string>): Promise<ProbeSeen> {
  const signal = signalFor(target);
  const client = new OpenAI({ apiKey: target.key ?? DUMMY_API_KEY, baseURL: target.baseUrl, maxRetries: 0, timeout: target.timeoutMs, fetch: modelFetch });
  const observer = new ProbeObserver(String(body.model), recover);
  try {
    const stream = await client.chat.completions.create(body as unknown as ChatCompletionCreateParamsStreaming, { signal });
    for await (const chunk of stream) observer.add(chunk as ChatCompletionChunk);
    if (signal.aborted) return { kind: "failed", reason: "timeout", said: "" };
    if (!observer.finished) return { kind: "failed", reason: "no_stream", said: "" };
    return observer.seen();
  } catch (error) {
    if (error instanceof APIConnectionTimeoutError || error instanceof APIUserAbortError || (isTimeout(error, signal) && !(error instanceof APIError))) return { kind: "failed", reason: "timeout", said: "" };
    if (error instanceof APIConnectionError) return { kind: "failed", reason: "down", said: shorten(causeOf(error.cause ?? error), target.key) };
    if (error instanceof APIError) {
      const message = (error.error as { message?: unknown } | undefined)?.message;
      const said = shorten(typeof message === "string" ? message : error.message, target.key);
      return error.status === undefined ? { kind: "failed", reason: "no_stream", said } : { kind: "failed", reason: "http", status: error.status, said };
    }
    return { kind: "failed", reason: "no_stream", said: shorten(causeOf(error), target.key) };
  }
}
