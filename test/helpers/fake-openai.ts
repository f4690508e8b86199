/**
 * A fake OpenAI-compatible endpoint for tests: a real HTTP server on 127.0.0.1 that speaks the
 * chat-completions streaming protocol (SSE `data: {chunk}` events, then `data: [DONE]`), so the
 * real `openai` client — in this process or in a spawned app server — can be pointed at it.
 *
 * What it answers is scripted, call by call:
 *
 * ```ts
 * const fake = await startFakeOpenAI({ script: [fakeError(429, { headers: { "retry-after": "1" } }), fakeText("Hello!")] });
 * // base URL for the client: fake.url  (ends with /v1)
 * fake.calls;            // chat-completions calls received
 * fake.requests[0].body; // the parsed JSON body; .authorization holds the "Bearer …" header
 * await fake.close();
 * ```
 *
 * `script` is a queue (one {@link Script} per call, in order) or a function
 * `(body, callIndex) => Script`; `fake.enqueue()` and `fake.setHandler()` change it later.
 * When the queue runs dry, `fallback` answers, or a 418 error that names the call.
 *
 * A {@link StreamScript} sends, in order: a role chunk, reasoning_content chunks, content chunks,
 * tool-call chunks (each call's id and name in one chunk, then its arguments split across
 * several, calls interleaved by index), the finish chunk, a usage chunk with `choices: []` (only
 * when the request set `stream_options.include_usage`, as OpenAI does), and `[DONE]`. Its `end`
 * can instead stall (keep the socket open, send nothing more), destroy the socket mid-stream, or
 * send an in-stream `{error}` event; those skip the finish and usage chunks.
 */
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { fakeEmbedding } from "./fake-embeddings";

/**
 * Token counts as sent in the usage chunk: cached input as OpenAI (and DashScope, vLLM) report it
 * in `prompt_tokens_details.cached_tokens`, or as DeepSeek does in `prompt_cache_hit_tokens` /
 * `prompt_cache_miss_tokens`.
 */
interface FakeUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  completion_tokens_details?: { reasoning_tokens?: number };
  prompt_tokens_details?: { cached_tokens?: number };
  prompt_cache_hit_tokens?: number;
  prompt_cache_miss_tokens?: number;
}

/** One tool call the fake model makes. */
export interface FakeToolCall {
  /** Defaults to `call_<callIndex>_<index>`. */
  id?: string;
  name: string;
  /** The JSON arguments: a string split into `argumentChunks` pieces, an object (serialized), or explicit pieces. */
  arguments: string | string[] | Record<string, unknown>;
  /** Pieces to split a string/object `arguments` into (default 3). */
  argumentChunks?: number;
}

/** A streamed answer (HTTP 200, `text/event-stream`). */
export interface StreamScript {
  kind: "stream";
  /** Milliseconds to wait before sending headers. */
  delayMs?: number;
  /** Milliseconds between chunks (default 0). */
  chunkDelayMs?: number;
  /** Text, split into `contentChunks` pieces, or explicit pieces. */
  content?: string | string[];
  /** Pieces to split a string `content` into (default 3). */
  contentChunks?: number;
  /** `reasoning_content` text, split into `reasoningChunks` pieces, or explicit pieces. */
  reasoning?: string | string[];
  /** Pieces to split a string `reasoning` into (default 2). */
  reasoningChunks?: number;
  toolCalls?: FakeToolCall[];
  /** Send each call's argument pieces call by call instead of interleaved (default false). */
  sequentialToolCalls?: boolean;
  /** Default `tool_calls` when there are tool calls, else `stop`. */
  finishReason?: string;
  /** The usage chunk; default computed from lengths (see {@link defaultUsage}); `false` sends none. */
  usage?: FakeUsage | false;
  /** `model` field of chunks (default: the request's model). */
  model?: string;
  /** Extra response headers. */
  headers?: Record<string, string>;
  /**
   * How the stream ends: `done` (default) finish + usage + `[DONE]`; `stall` send nothing more and
   * keep the socket open until the client goes away; `destroy` cut the socket; `error_event` send
   * `data: {"error": …}` and end.
   */
  end?: "done" | "stall" | "destroy" | "error_event";
  /** With `stall`/`destroy`/`error_event`: how many chunks to send first, counting the role chunk (default all). */
  chunksBeforeEnd?: number;
}

/** An HTTP error answer with a JSON body. */
export interface ErrorScript {
  kind: "error";
  status: number;
  /** e.g. `{ "retry-after": "1" }`. */
  headers?: Record<string, string>;
  /** Default `{ error: { message, type, code: null, param: null } }`. */
  body?: unknown;
  /** Message of the default body. */
  message?: string;
  delayMs?: number;
}

/** Exact SSE events: objects are sent as `data: <json>`, strings as `data: <string>`. */
export interface RawScript {
  kind: "raw";
  events: Array<Record<string, unknown> | string>;
  delayMs?: number;
  chunkDelayMs?: number;
  /** Default `close` ends the response after the events; `stall` keeps it open. */
  end?: "close" | "stall" | "destroy";
}

/** What the fake answers one call with. */
export type Script = StreamScript | ErrorScript | RawScript;

/** Chooses the answer from the request: `callIndex` counts chat-completions calls from 0. */
type ScriptHandler = (body: FakeRequestBody, callIndex: number) => Script | Promise<Script>;

/** The parsed JSON body of a chat-completions request. */
export type FakeRequestBody = Record<string, unknown> & {
  model?: string;
  messages?: Array<Record<string, unknown>>;
  tools?: unknown[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
};

/** One request the fake received. */
interface RecordedRequest {
  /** Index among chat-completions calls (-1 for other paths). */
  callIndex: number;
  method: string;
  path: string;
  /** Request headers, without `authorization`. */
  headers: http.IncomingHttpHeaders;
  /** The `Authorization` header as sent (e.g. `Bearer sk-test`), kept apart so tests can assert on it. */
  authorization: string | undefined;
  /** Parsed JSON body, or undefined when it was not JSON. */
  body: FakeRequestBody | undefined;
  receivedAt: number;
  /** True once the response finished normally. */
  completed: boolean;
  /** True when the client closed the connection before the response finished (abort, watchdog). */
  closedByClient: boolean;
  /** When the client closed it (epoch ms), with {@link closedByClient}: how soon an abort reached the wire. */
  closedAt?: number;
}

/** Options of {@link startFakeOpenAI}. */
export interface FakeOpenAIOptions {
  /** A queue of answers, one per call, or a handler. */
  script?: Script[] | ScriptHandler;
  /** Answers calls when the queue is empty (default: HTTP 418 naming the call). */
  fallback?: Script | ScriptHandler;
  /** Port to listen on (default 0: any free port). */
  port?: number;
  /** What `GET /v1/models` answers (default: one model `fake-model` owned by `fake-openai`). */
  modelList?: unknown;
  /** The vector `/v1/embeddings` answers for one input (default: {@link fakeEmbedding}); an ErrorScript answers that error instead. */
  embed?: (text: string) => number[] | ErrorScript;
}

/** A running fake endpoint. */
export interface FakeOpenAI {
  /** Base URL for the `openai` client, e.g. `http://127.0.0.1:51234/v1`. */
  readonly url: string;
  readonly port: number;
  /** Every request received, in order (chat-completions and others). */
  readonly requests: RecordedRequest[];
  /** Number of chat-completions calls received (streaming or not). */
  readonly calls: number;
  /** Appends answers to the queue. */
  enqueue(...scripts: Script[]): void;
  /** Replaces the queue by a handler (or a new queue). */
  setHandler(script: Script[] | ScriptHandler): void;
  /** Resolves once `n` chat-completions calls have arrived; rejects after `timeoutMs` (default 10 s). */
  waitForCalls(n: number, timeoutMs?: number): Promise<void>;
  /** Forgets recorded requests and the call count (the script is kept). */
  reset(): void;
  /** Stops listening and cuts open connections. */
  close(): Promise<void>;
}

/** A streamed text answer. */
export function fakeText(content: string, options: Omit<StreamScript, "kind" | "content"> = {}): StreamScript {
  return { kind: "stream", content, ...options };
}

/** A streamed answer that calls tools (optionally with text first). */
export function fakeToolCalls(toolCalls: FakeToolCall[], options: Omit<StreamScript, "kind" | "toolCalls"> = {}): StreamScript {
  return { kind: "stream", toolCalls, ...options };
}

/** An HTTP error, e.g. `fakeError(429, { headers: { "retry-after": "1" } })`. */
export function fakeError(status: number, options: Omit<ErrorScript, "kind" | "status"> = {}): ErrorScript {
  return { kind: "error", status, ...options };
}

/**
 * The usage a {@link StreamScript} reports when it sets none: prompt tokens are the request's
 * messages JSON length / 4, completion tokens the streamed text length / 4 (both rounded up).
 */
function defaultUsage(body: FakeRequestBody | undefined, streamedChars: number): FakeUsage {
  const prompt = Math.ceil(JSON.stringify(body?.messages ?? []).length / 4);
  const completion = Math.ceil(streamedChars / 4);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** Splits text into `n` pieces of nearly equal length (never splitting a surrogate pair). */
function splitInto(text: string, n: number): string[] {
  const chars = Array.from(text);
  const count = Math.max(1, Math.min(n, chars.length));
  const size = Math.ceil(chars.length / count);
  const pieces: string[] = [];
  for (let i = 0; i < chars.length; i += size) pieces.push(chars.slice(i, i + size).join(""));
  return pieces.length ? pieces : [""];
}

const ERROR_TYPES: Record<number, string> = { 400: "invalid_request_error", 401: "invalid_request_error", 403: "permission_error", 404: "not_found_error", 429: "rate_limit_error" };

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Starts the fake endpoint on 127.0.0.1. */
export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  let queue: Script[] = [];
  let handler: ScriptHandler | undefined;
  const setHandler = (script: Script[] | ScriptHandler | undefined) => {
    if (typeof script === "function") {
      handler = script;
      queue = [];
    } else {
      handler = undefined;
      queue = [...(script ?? [])];
    }
  };
  setHandler(options.script);
  const requests: RecordedRequest[] = [];
  let calls = 0;
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const sockets = new Set<Socket>();

  async function choose(body: FakeRequestBody, callIndex: number): Promise<Script> {
    if (handler) return handler(body, callIndex);
    const next = queue.shift();
    if (next) return next;
    const fallback = options.fallback;
    if (typeof fallback === "function") return fallback(body, callIndex);
    if (fallback) return fallback;
    return fakeError(418, { message: `fake-openai: no scripted answer left for call #${callIndex}` });
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      let body: FakeRequestBody | undefined;
      try {
        const parsed: unknown = JSON.parse(text);
        if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) body = parsed as FakeRequestBody;
      } catch {
        body = undefined;
      }
      const { authorization, ...headers } = req.headers;
      const path = (req.url ?? "/").split("?")[0] ?? "/";
      const isChat = req.method === "POST" && /^(\/v1)?\/chat\/completions$/.test(path);
      const record: RecordedRequest = {
        callIndex: isChat ? calls : -1,
        method: req.method ?? "GET",
        path,
        headers,
        authorization,
        body,
        receivedAt: Date.now(),
        completed: false,
        closedByClient: false,
      };
      requests.push(record);
      res.on("finish", () => (record.completed = true));
      res.on("close", () => {
        if (!record.completed) {
          record.closedByClient = true;
          record.closedAt = Date.now();
        }
      });
      if (isChat) {
        calls += 1;
        for (const w of waiters.filter((w) => calls >= w.n)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
      }
      void respond(req, res, record, isChat).catch((error: unknown) => {
        if (!res.headersSent) sendJson(res, 500, { error: { message: `fake-openai failed: ${String(error)}`, type: "server_error" } });
        else res.destroy();
      });
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  async function respond(req: http.IncomingMessage, res: http.ServerResponse, record: RecordedRequest, isChat: boolean): Promise<void> {
    if (req.method === "GET" && /^(\/v1)?\/models$/.test(record.path)) {
      return sendJson(res, 200, options.modelList ?? { object: "list", data: [{ id: "fake-model", object: "model", created: 0, owned_by: "fake-openai" }] });
    }
    if (req.method === "POST" && /^(\/v1)?\/embeddings$/.test(record.path)) return embeddings(res, record.body);
    if (!isChat) return sendJson(res, 404, { error: { message: `fake-openai: no route ${record.method} ${record.path}`, type: "invalid_request_error" } });
    const body = record.body;
    if (!body) return sendJson(res, 400, { error: { message: "fake-openai: the body is not a JSON object", type: "invalid_request_error" } });
    if (body.stream !== true) {
      return sendJson(res, 400, { error: { message: "fake-openai: only streaming requests (stream: true) are supported", type: "invalid_request_error" } });
    }
    const script = await choose(body, record.callIndex);
    const gone = () => res.destroyed || record.closedByClient;
    if (script.delayMs) await wait(script.delayMs);
    if (gone()) return;
    if (script.kind === "error") {
      const payload = script.body ?? {
        error: { message: script.message ?? `fake-openai error ${script.status}`, type: ERROR_TYPES[script.status] ?? "server_error", code: null, param: null },
      };
      return sendJson(res, script.status, payload, script.headers);
    }
    res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      connection: "keep-alive",
      ...(script.kind === "stream" ? script.headers : {}),
    });
    res.flushHeaders();
    const send = async (event: Record<string, unknown> | string, delay: number) => {
      if (gone()) return false;
      // Waiting for the flush keeps a following `destroy` from discarding chunks still buffered.
      await new Promise<void>((resolve) => res.write(`data: ${typeof event === "string" ? event : JSON.stringify(event)}\n\n`, () => resolve()));
      if (delay) await wait(delay);
      return !gone();
    };
    if (script.kind === "raw") {
      for (const event of script.events) if (!(await send(event, script.chunkDelayMs ?? 0))) return;
      return finish(res, script.end ?? "close");
    }
    const { bodyChunks, tail } = streamChunks(script, body, record.callIndex);
    const end = script.end ?? "done";
    const limit = end === "done" ? bodyChunks.length : (script.chunksBeforeEnd ?? bodyChunks.length);
    for (const chunk of bodyChunks.slice(0, limit)) if (!(await send(chunk, script.chunkDelayMs ?? 0))) return;
    if (end === "done") {
      for (const chunk of tail) if (!(await send(chunk, 0))) return;
      if (!(await send("[DONE]", 0))) return;
      return finish(res, "close");
    }
    if (end === "error_event") {
      await send({ error: { message: "fake-openai: error in the middle of the stream", type: "server_error", code: null, param: null } }, 0);
      return finish(res, "close");
    }
    return finish(res, end);
  }

  /** `/v1/embeddings`: one vector per input, as floats or base64 float32 as asked. */
  function embeddings(res: http.ServerResponse, body: FakeRequestBody | undefined): void {
    const input = body?.input;
    const texts = typeof input === "string" ? [input] : Array.isArray(input) && input.every((t) => typeof t === "string") ? (input as string[]) : null;
    if (!texts || texts.length === 0) return sendJson(res, 400, { error: { message: "fake-openai: input must be a string or a non-empty array of strings", type: "invalid_request_error" } });
    const data: Array<{ object: "embedding"; index: number; embedding: number[] | string }> = [];
    for (const [index, text] of texts.entries()) {
      const got = (options.embed ?? fakeEmbedding)(text);
      if (!Array.isArray(got)) {
        return sendJson(res, got.status, got.body ?? { error: { message: got.message ?? `fake-openai error ${got.status}`, type: ERROR_TYPES[got.status] ?? "server_error" } }, got.headers);
      }
      const embedding = body?.encoding_format === "base64" ? Buffer.from(new Float32Array(got).buffer).toString("base64") : got;
      data.push({ object: "embedding", index, embedding });
    }
    const tokens = texts.reduce((n, t) => n + Math.ceil(t.length / 4), 0);
    sendJson(res, 200, { object: "list", model: body?.model ?? "fake-embedding", data, usage: { prompt_tokens: tokens, total_tokens: tokens } });
  }

  function finish(res: http.ServerResponse, how: "close" | "stall" | "destroy"): void {
    if (how === "close") res.end();
    // Destroying the socket without a final chunk is what a crashed upstream looks like to the client.
    else if (how === "destroy") res.socket?.destroy();
    // "stall": nothing more; the socket stays open until the client goes away or close() cuts it.
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    get calls() {
      return calls;
    },
    enqueue(...scripts: Script[]) {
      if (handler) throw new Error("fake-openai: enqueue() while a handler is set; call setHandler([...]) first");
      queue.push(...scripts);
    },
    setHandler,
    waitForCalls(n: number, timeoutMs = 10_000) {
      if (calls >= n) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`fake-openai: ${calls} of ${n} calls after ${timeoutMs} ms`)), timeoutMs);
        waiters.push({ n, resolve: () => (clearTimeout(timer), resolve()) });
      });
    },
    reset() {
      requests.length = 0;
      calls = 0;
    },
    close() {
      return new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      });
    },
  };
}

function sendJson(res: http.ServerResponse, status: number, payload: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(payload);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** The chunks of a stream script: the body (role, reasoning, content, tool calls) and the tail (finish, usage). */
function streamChunks(script: StreamScript, body: FakeRequestBody, callIndex: number) {
  const model = script.model ?? (typeof body.model === "string" ? body.model : "fake-model");
  const id = `chatcmpl-fake-${callIndex}`;
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
    id,
    object: "chat.completion.chunk",
    created,
    model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
  let streamed = 0;
  const pieces = (value: string | string[] | undefined, n: number) => {
    if (value === undefined || value === "") return [];
    const list = Array.isArray(value) ? value : splitInto(value, n);
    streamed += list.join("").length;
    return list;
  };
  const bodyChunks: Array<Record<string, unknown>> = [chunk({ role: "assistant", content: "" })];
  for (const text of pieces(script.reasoning, script.reasoningChunks ?? 2)) bodyChunks.push(chunk({ reasoning_content: text }));
  for (const text of pieces(script.content, script.contentChunks ?? 3)) bodyChunks.push(chunk({ content: text }));
  const calls = (script.toolCalls ?? []).map((call, index) => {
    const args = typeof call.arguments === "object" && !Array.isArray(call.arguments) ? JSON.stringify(call.arguments) : call.arguments;
    return { index, id: call.id ?? `call_${callIndex}_${index}`, name: call.name, args: pieces(args, call.argumentChunks ?? 3) };
  });
  for (const call of calls) {
    // id, type and name first, with no arguments, as OpenAI sends them.
    bodyChunks.push(chunk({ tool_calls: [{ index: call.index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }));
    if (script.sequentialToolCalls) for (const a of call.args) bodyChunks.push(chunk({ tool_calls: [{ index: call.index, function: { arguments: a } }] }));
  }
  if (!script.sequentialToolCalls) {
    const longest = Math.max(0, ...calls.map((c) => c.args.length));
    for (let i = 0; i < longest; i++) {
      for (const call of calls) {
        const a = call.args[i];
        if (a !== undefined) bodyChunks.push(chunk({ tool_calls: [{ index: call.index, function: { arguments: a } }] }));
      }
    }
  }
  const tail: Array<Record<string, unknown>> = [chunk({}, script.finishReason ?? (calls.length ? "tool_calls" : "stop"))];
  if (body.stream_options?.include_usage && script.usage !== false) {
    tail.push({ id, object: "chat.completion.chunk", created, model, choices: [], usage: script.usage ?? defaultUsage(body, streamed) });
  }
  return { bodyChunks, tail };
}
