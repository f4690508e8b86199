/**
 * What the HTTP server of `npm start` (scripts/serve.mjs) answers itself, before Next sees a
 * request. Plain JS, like serve.mjs, so `npm start` runs without a TypeScript loader.
 *
 * - A method the app does not serve (TRACE, PROPFIND, a made-up one, CONNECT) is answered 501
 *   with `Allow`. Next builds a WHATWG `Request` for `proxy.ts`, and undici refuses TRACE (and
 *   TRACK, CONNECT) with a TypeError: TRACE answered 500. Node's parser refuses a method it does
 *   not know (400) and closes a CONNECT without a word.
 * - A request line and headers over Node's `maxHeaderSize` (16 KiB: a 100 KB search URL, say)
 *   are answered 431 in the API's error shape. Node answers 431 too, but then destroys the
 *   connection while the client still sends, and the kernel resets it, which can destroy the
 *   answer before the client reads it.
 *
 * Every answer written here closes the connection the way lib/server/body-guard.ts does: the
 * answer is sent with our end of the connection (FIN), what the client still sends is read and
 * dropped, and a client still sending {@link LINGER_MS} later is disconnected.
 */
import http from "node:http";

/** The methods the app serves (Next's route handlers answer OPTIONS themselves). */
export const SERVED_METHODS = Object.freeze(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** How long a refused client may go on sending before the connection is closed. */
const LINGER_MS = 2000;

const REASONS = { 400: "Bad Request", 408: "Request Timeout", 413: "Content Too Large", 431: "Request Header Fields Too Large", 501: "Not Implemented" };

/**
 * A whole HTTP/1.1 answer as text: `{error: {code, message}}` with its length, `connection: close`.
 * @param {keyof typeof REASONS} status
 * @param {string} code
 * @param {string} message
 * @param {Record<string, string>} [headers]
 */
export function rawAnswer(status, code, message, headers = {}) {
  const body = JSON.stringify({ error: { code, message } });
  const all = { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", "content-length": String(Buffer.byteLength(body)), connection: "close", ...headers };
  return `HTTP/1.1 ${status} ${REASONS[status]}\r\n${Object.entries(all).map(([k, v]) => `${k}: ${v}\r\n`).join("")}\r\n${body}`;
}

/** The answer to a method the app does not serve. */
export function unservedMethodAnswer(method) {
  const shown = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,32}$/.test(method ?? "") ? method : "this method";
  return { status: 501, code: "method_not_implemented", message: `${shown} is not a method this server serves; use one of ${SERVED_METHODS.join(", ")}.`, headers: { allow: SERVED_METHODS.join(", ") } };
}

/**
 * The answer to a request Node's parser refused (`clientError`), by the error's code; Node's own
 * statuses, except a method it does not know, which is 501 like every method the app does not serve.
 * @param {string | undefined} errorCode
 * @param {number} maxHeaderSize
 */
export function clientErrorAnswer(errorCode, maxHeaderSize) {
  switch (errorCode) {
    case "HPE_HEADER_OVERFLOW":
      return { status: 431, code: "headers_too_large", message: `The request line and headers are larger than ${maxHeaderSize} bytes (a URL that long cannot be served; send long input in a request body).`, headers: {} };
    case "HPE_INVALID_METHOD":
      return unservedMethodAnswer(undefined);
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return { status: 413, code: "payload_too_large", message: "The chunk extensions of the request body are too large.", headers: {} };
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { status: 408, code: "request_timeout", message: "The request did not arrive in time.", headers: {} };
    default:
      return { status: 400, code: "bad_request", message: "The request is not valid HTTP.", headers: {} };
  }
}

const REFUSED = Symbol("astrion.refused");

/**
 * Writes `text` and ends our side of the connection; what the client still sends is read and
 * dropped (a `clientError` comes for each of its reads and is ignored), and the connection is
 * destroyed {@link LINGER_MS} later if the client has not closed it by then.
 * @param {import("node:net").Socket} socket
 * @param {string} text
 */
function answerAndLinger(socket, text) {
  if (socket[REFUSED]) return;
  socket[REFUSED] = true;
  socket.end(text);
  socket.resume();
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}

/**
 * Answers a request whose method the app does not serve; false when the request may go on.
 * @param {http.IncomingMessage} req
 * @param {http.ServerResponse} res
 */
export function refuseUnservedMethod(req, res) {
  if (SERVED_METHODS.includes(req.method ?? "")) return false;
  const a = unservedMethodAnswer(req.method);
  const body = JSON.stringify({ error: { code: a.code, message: a.message } });
  res.writeHead(a.status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", "content-length": Buffer.byteLength(body), connection: "close", ...a.headers });
  res.end(body);
  // The body of the refused request (a PROPFIND's XML, say) is read and dropped, for a while.
  req.resume();
  setTimeout(() => {
    if (!req.complete) req.socket.destroy();
  }, LINGER_MS).unref();
  return true;
}

/**
 * Installs the answers to what never becomes a request: a `clientError` (Node's parser refused
 * the bytes) and a `CONNECT` (which Node hands to `connect` listeners, else closes at once).
 * @param {http.Server} server
 */
export function installRefusals(server) {
  const maxHeaderSize = server.maxHeaderSize ?? http.maxHeaderSize;
  server.on("clientError", (error, socket) => {
    if (socket[REFUSED]) return;
    // A socket that broke, or one already sending an answer: nothing can be written into it.
    const inFlight = /** @type {{ _httpMessage?: http.ServerResponse }} */ (socket)._httpMessage;
    if (error.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const a = clientErrorAnswer(error.code, maxHeaderSize);
    answerAndLinger(socket, rawAnswer(a.status, a.code, a.message, a.headers));
  });
  server.on("connect", (req, socket) => {
    const a = unservedMethodAnswer(req.method);
    answerAndLinger(socket, rawAnswer(a.status, a.code, a.message, a.headers));
  });
}
