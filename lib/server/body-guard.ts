import "server-only";
/**
 * Refuses oversize request bodies before anything reads them. Next buffers a request's body for
 * the proxy (`proxy.ts`) and only then answers, even when the proxy has already answered — so a
 * 50 MB upload was read to its end, 10 MB of it kept in memory, before the route's 413. This
 * guard runs first, in the HTTP server itself:
 *
 * - a `content-length` over the route's limit (lib/input-limits) is answered 413 at once, before
 *   any of the body is read;
 * - a chunked body is counted as it arrives; one byte past the limit it is cut: nothing more of it
 *   is buffered, the rest is read and dropped, and the route (which sees a body one byte too
 *   long) answers 413 once the client has finished sending.
 *
 * Either way a client still sending {@link LINGER_MS} after the refusal is disconnected. The
 * connection is not closed at once: closing while the client still sends makes the kernel reset
 * it, and a reset can destroy the 413 before the client reads it (nginx's "lingering close").
 *
 * It is installed from the server's boot (instrumentation) through Node's documented diagnostic
 * channel `http.server.request.start`, which names the server on its first request; the guard
 * then wraps the server's `request` listeners. Pages, assets and reads are not touched.
 */
import { subscribe } from "node:diagnostics_channel";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { bodyLimitFor } from "@/lib/input-limits";
import { processSingleton } from "./singleton";

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** How long the rest of a refused upload is drained (and dropped) before the connection is closed. */
const LINGER_MS = 2000;

/** Closes the connection if the client is still sending the body {@link LINGER_MS} from now. */
function closeIfStillSending(req: IncomingMessage): void {
  // Node drains an unread body without buffering it; only how long it may take is bounded here.
  setTimeout(() => {
    if (!req.complete) req.socket?.destroy();
  }, LINGER_MS).unref();
}

/** The 413 answer, in the API's error shape; the body is never read. */
function refuse(req: IncomingMessage, res: ServerResponse, limit: number): void {
  res.writeHead(413, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
  res.end(JSON.stringify({ error: { code: "payload_too_large", message: `The request body is larger than ${limit} bytes.` } }));
  closeIfStillSending(req);
}

function pathnameOf(url: string | undefined): string {
  const target = url ?? "/";
  const end = target.search(/[?#]/);
  const raw = end < 0 ? target : target.slice(0, end);
  // absolute-form targets (`http://host/path`) are rare but legal
  return raw.startsWith("/") ? raw : new URL(raw, "http://localhost").pathname;
}

/**
 * Lets a chunked body through up to `limit` bytes and one more, then drops the rest as it
 * arrives. The stream is not ended early: Node aborts a request whose stream ends before its
 * message is complete, and Next waits for the end before it answers.
 * The HTTP parser hands body data to the request stream through `push`; wrapping it is the only
 * way to count bytes without consuming them (a `data` listener would take them from Next).
 */
function cutOffAt(req: IncomingMessage, limit: number): void {
  const push = req.push.bind(req);
  let seen = 0;
  let cut = false;
  req.push = (chunk: unknown, encoding?: BufferEncoding): boolean => {
    if (chunk === null || !(chunk instanceof Uint8Array)) return push(chunk, encoding);
    if (cut) return true; // dropped, never buffered
    seen += chunk.byteLength;
    if (seen <= limit) return push(chunk, encoding);
    cut = true;
    closeIfStillSending(req);
    return push(chunk.subarray(0, chunk.byteLength - (seen - limit) + 1), encoding);
  };
}

/** True when the request may go on; otherwise it has been answered 413. */
function admitBody(req: IncomingMessage, res: ServerResponse): boolean {
  const limit = bodyLimitFor(req.method, pathnameOf(req.url));
  if (limit === null) return true;
  const declared = req.headers["content-length"];
  if (declared !== undefined) {
    // The HTTP parser never delivers more than the declared length, so the header decides.
    if (Number(declared) > limit) {
      refuse(req, res, limit);
      return false;
    }
    return true;
  }
  if (req.headers["transfer-encoding"] !== undefined) cutOffAt(req, limit);
  return true;
}

/** Wraps a server's `request` (and `checkContinue`) listeners with {@link admitBody}. */
export function guardServer(server: Server): void {
  const handlers = server.listeners("request") as Listener[];
  server.removeAllListeners("request");
  const handle: Listener = (req, res) => {
    for (const h of handlers) h.call(server, req, res);
  };
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    if (admitBody(req, res)) handle(req, res);
  });
  // `Expect: 100-continue` with an oversize length is refused before the client sends the body.
  const continueHandlers = server.listeners("checkContinue") as Listener[];
  server.removeAllListeners("checkContinue");
  server.on("checkContinue", (req: IncomingMessage, res: ServerResponse) => {
    if (!admitBody(req, res)) return;
    if (continueHandlers.length) for (const h of continueHandlers) h.call(server, req, res);
    else {
      res.writeContinue();
      handle(req, res);
    }
  });
}

/** Installs the guard on every HTTP server of this process as it receives its first request (once per process). */
export function installBodyGuard(): void {
  processSingleton("bodyGuard", () => {
    const guarded = new WeakSet<Server>();
    subscribe("http.server.request.start", (message) => {
      const server = (message as { server?: Server }).server;
      if (!server || guarded.has(server)) return;
      guarded.add(server);
      guardServer(server);
    });
    return true;
  });
}
