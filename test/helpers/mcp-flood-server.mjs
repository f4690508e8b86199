#!/usr/bin/env node
/**
 * A hostile MCP server over stdio, for tests and measurements: it speaks newline-delimited
 * JSON-RPC by hand (no SDK, so nothing limits what it sends) and offers two tools:
 *
 * - `flood`: answers with one line of `FLOOD_BYTES` bytes (default 12 MB; the argument `bytes`
 *   overrides it), a valid JSON-RPC result whose text is that long, written 64 KiB at a time;
 * - `ping`: answers `pong`, to show the server (or its successor) still works.
 *
 * With `FLOOD_AT_START=1` it sends such a line (a notification) right after `initialize`.
 */
const CHUNK = 64 * 1024;
const defaultBytes = Number(process.env.FLOOD_BYTES || 12 * 1024 * 1024);

function send(message) {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

/** One JSON line of at least `bytes` bytes: `head` + that many `x` + `tail`, then a newline. */
function flood(bytes, head, tail) {
  process.stdout.write(head);
  const piece = "x".repeat(CHUNK);
  let left = bytes;
  while (left > 0) {
    // Pipes are written synchronously on Linux: each write waits until the reader took it.
    process.stdout.write(left >= CHUNK ? piece : piece.slice(0, left));
    left -= CHUNK;
  }
  process.stdout.write(`${tail}\n`);
}

function floodResult(id, bytes) {
  flood(bytes, `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"`, `"}]}}`);
}

function handle(msg) {
  if (msg.method === "initialize") {
    send({ jsonrpc: "2.0", id: msg.id, result: { protocolVersion: msg.params?.protocolVersion ?? "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "flood", version: "1.0.0" } } });
    if (process.env.FLOOD_AT_START === "1") flood(defaultBytes, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"`, `"}}`);
    return;
  }
  if (msg.id === undefined) return; // a notification
  if (msg.method === "tools/list") {
    const schema = { type: "object", properties: { bytes: { type: "number" } } };
    send({ jsonrpc: "2.0", id: msg.id, result: { tools: [{ name: "flood", description: "Answers with one very long line.", inputSchema: schema, annotations: { readOnlyHint: true } }, { name: "ping", description: "Answers pong.", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } }] } });
    return;
  }
  if (msg.method === "tools/call" && msg.params?.name === "flood") return floodResult(msg.id, Number(msg.params.arguments?.bytes ?? defaultBytes));
  if (msg.method === "tools/call" && msg.params?.name === "ping") return send({ jsonrpc: "2.0", id: msg.id, result: { content: [{ type: "text", text: "pong" }] } });
  send({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: `no method ${msg.method}` } });
}

let pending = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  pending += chunk;
  let nl;
  while ((nl = pending.indexOf("\n")) >= 0) {
    const line = pending.slice(0, nl);
    pending = pending.slice(nl + 1);
    if (line.trim()) handle(JSON.parse(line));
  }
});
process.stdin.on("end", () => process.exit(0));
