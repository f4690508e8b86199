import "server-only";
/**
 * The `fetch` the `openai` client is given: a request over `node:http` / `node:https` with
 * keep-alive agents, whose response body is the Node stream itself (a streamed answer's with a
 * bound on one event's size, ./sse-frames.ts). The SDK reads a body through its async iterator
 * when it has one, so a streamed answer goes socket → SSE parser without the WHATWG streams and
 * the undici machinery of Node's own `fetch` between them; in `npm run bench` that was about
 * 0.5 ms of CPU per model call, a third of what a bare `openai` tool loop spends.
 *
 * What it does not handle itself it hands to Node's own fetch (Next's patched one left out, see
 * {@link plainFetch}): a body that is not a string (uploads, streams), and a redirect (the request
 * is sent again through `fetch`, which follows it). It asks for no compression; an answer
 * compressed anyway is decompressed. An abort (the SDK's timeout, the caller's signal) destroys
 * the request, and a body being read then fails with an `AbortError`, as with `fetch`.
 *
 * The response is a `Response` in what the SDK uses of one (`ok`, `status`, `statusText`,
 * `headers`, `url`, `body`, `text()`, `json()`, `arrayBuffer()`), not a full one: it is only ever
 * given to the SDK.
 */
import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { pipeline, type Readable } from "node:stream";
import zlib from "node:zlib";
import { boundedEvents } from "./sse-frames";

/**
 * How long a connection is kept for the next call once idle (ms): as long as Node's `fetch`
 * keeps one by default, shorter than most servers and proxies do, so a call is rarely sent on a
 * connection the other end is closing. A server's `Keep-Alive: timeout=…` hint shortens it further
 * (Node's agent honours it, a second early). A call that waits longer than this for its answer is
 * not cut by it.
 */
export const IDLE_CONNECTION_MS = 4_000;

const agents = {
  "http:": new http.Agent({ keepAlive: true, scheduling: "lifo", timeout: IDLE_CONNECTION_MS }),
  "https:": new https.Agent({ keepAlive: true, scheduling: "lifo", timeout: IDLE_CONNECTION_MS }),
};

/** Node's own fetch. Inside the Next server the global `fetch` is Next's patched one (request tracing, caching and de-duplication for pages), which costs every call CPU and does nothing for an API call; Next keeps the original on the patched function. */
export function plainFetch(): typeof fetch {
  // Read at each call: Next patches the global `fetch` after this module may have loaded.
  const current = fetch as typeof fetch & { _nextOriginalFetch?: typeof fetch };
  return current._nextOriginalFetch ?? current;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** A `fetch` for the `openai` client; see the module comment. */
export const modelFetch: typeof fetch = (input, init) => {
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : null;
  const body = init?.body;
  if (url === null || (body !== undefined && body !== null && typeof body !== "string")) return plainFetch()(input, init);
  const target = new URL(url);
  const agent = target.protocol === "http:" || target.protocol === "https:" ? agents[target.protocol] : undefined;
  if (!agent) return plainFetch()(input, init);
  const transport = target.protocol === "https:" ? https : http;
  return new Promise<Response>((resolve, reject) => {
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => {
      headers[name] = value;
    });
    if (body) headers["content-length"] = String(Buffer.byteLength(body));
    const req = transport.request(target, { method: init?.method ?? "GET", headers, agent, signal: init?.signal ?? undefined }, (res) => {
      if (REDIRECTS.has(res.statusCode ?? 0) && res.headers.location) {
        res.resume();
        resolve(plainFetch()(input, init));
        return;
      }
      const signal = init?.signal;
      if (signal) {
        // As with fetch, a body being read fails with an AbortError (Node's own would be "aborted").
        const onAbort = () => res.destroy(new DOMException("This operation was aborted", "AbortError"));
        signal.addEventListener("abort", onAbort, { once: true });
        res.once("close", () => signal.removeEventListener("abort", onAbort));
      }
      resolve(responseOf(res, url));
    });
    req.on("error", reject);
    req.end(body ?? undefined);
  });
};

/** What the SDK uses of a `Response`, over a Node response. */
function responseOf(res: IncomingMessage, url: string): Response {
  const headers = new Headers();
  const raw = res.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  const stream = uncompressed(res);
  // Until the SDK reads it, an error of the body (the connection cut, an abort) must not be an
  // unhandled 'error' event; a reader still gets it.
  stream.on("error", () => undefined);
  // A streamed answer with a bound on one event's size (./sse-frames.ts); other bodies as they are.
  const streamed = String(res.headers["content-type"] ?? "").toLowerCase().includes("text/event-stream");
  const body: AsyncIterable<Buffer> = streamed ? boundedEvents(stream) : stream;
  let used = false;
  const bytes = async (): Promise<Buffer> => {
    if (used) throw new TypeError("Body is unusable: Body has already been read");
    used = true;
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  };
  const status = res.statusCode ?? 0;
  const response = {
    ok: status >= 200 && status < 300,
    status,
    statusText: res.statusMessage ?? "",
    headers,
    url,
    redirected: false,
    type: "basic",
    body,
    get bodyUsed() {
      return used;
    },
    text: async () => (await bytes()).toString("utf8"),
    json: async () => JSON.parse((await bytes()).toString("utf8")) as unknown,
    arrayBuffer: async () => {
      const b = await bytes();
      return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
    },
  };
  return response as unknown as Response;
}

/** The response's body, decompressed when the server compressed it unasked. */
function uncompressed(res: IncomingMessage): Readable {
  const encoding = String(res.headers["content-encoding"] ?? "").trim().toLowerCase();
  const decoder =
    encoding === "gzip" || encoding === "x-gzip"
      ? zlib.createGunzip()
      : encoding === "deflate"
        ? zlib.createInflate()
        : encoding === "br"
          ? zlib.createBrotliDecompress()
          : null;
  if (!decoder) return res;
  // Either end destroyed (an error, a reader that stops) destroys the other, and so the socket.
  return pipeline(res, decoder, () => undefined);
}
