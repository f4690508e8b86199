/**
 * A Streamable HTTP MCP server for tests, built with the official SDK's server classes: one
 * McpServer per session. It refuses requests without the expected `Authorization` and `X-Team`
 * headers (so a test proves the headers' `${VAR}` references were expanded) and offers:
 * - `echo` (read-only): returns its text;
 * - `fail`: answers `isError` with a message;
 * - `slow`: never answers (until the client gives up);
 * - `hang_write` (not read-only, so a write): never answers (a side effect a crash cuts short);
 * - `add_tool`: registers a tool `added_<n>` on the session, which sends `notifications/tools/list_changed`;
 * - `add_tool_quietly`: registers a tool `quiet_<n>` without that notification (a server that
 *   changes its tools and does not say so: only a client that lists again after a write sees it);
 * - `big`: returns 50,000 characters between `BEGIN` and `END`;
 * - `leak`: returns the expected token in its text (a server that echoes a secret);
 * - {@link LONG_TOOL_NAME}: a name too long for `mcp__remote__<tool>` (64 characters at most).
 */
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

export interface McpHttpTestServer {
  url: string;
  /** Calls of each tool received, by name. */
  calls: Record<string, number>;
  /** Requests refused for a wrong header. */
  refused: number;
  close(): Promise<void>;
}

function makeServer(calls: Record<string, number>, token: string): McpServer {
  const server = new McpServer({ name: "astrion-test-http", version: "1.0.0" }, { capabilities: { tools: { listChanged: true } } });
  const count = (name: string) => (calls[name] = (calls[name] ?? 0) + 1);
  server.registerTool("echo", { description: "Echoes the text back.", inputSchema: { text: z.string() }, annotations: { readOnlyHint: true } }, async ({ text }) => {
    count("echo");
    return { content: [{ type: "text", text: `echo: ${text}` }] };
  });
  server.registerTool("fail", { description: "Always fails.", inputSchema: {} }, async () => {
    count("fail");
    return { isError: true, content: [{ type: "text", text: "the database is on fire" }] };
  });
  server.registerTool("slow", { description: "Never answers.", inputSchema: {}, annotations: { readOnlyHint: true } }, async (_args, extra) => {
    count("slow");
    await new Promise<void>((resolve) => extra.signal.addEventListener("abort", () => resolve()));
    return { content: [{ type: "text", text: "too late" }] };
  });
  server.registerTool("hang_write", { description: "Starts a change and never answers.", inputSchema: {} }, async (_args, extra) => {
    count("hang_write");
    await new Promise<void>((resolve) => extra.signal.addEventListener("abort", () => resolve()));
    return { content: [{ type: "text", text: "too late" }] };
  });
  let added = 0;
  server.registerTool("add_tool", { description: "Adds a tool to this session's list.", inputSchema: {} }, async () => {
    count("add_tool");
    const name = `added_${++added}`;
    server.registerTool(name, { description: `A tool added at run time (${name}).`, inputSchema: {}, annotations: { readOnlyHint: true } }, async () => {
      count(name);
      return { content: [{ type: "text", text: `${name} ran` }] };
    });
    return { content: [{ type: "text", text: `added ${name}` }] };
  });
  let quiet = 0;
  server.registerTool("add_tool_quietly", { description: "Adds a tool without announcing it.", inputSchema: {} }, async () => {
    count("add_tool_quietly");
    const name = `quiet_${++quiet}`;
    // The SDK announces every registration to a connected client; this one is not announced.
    const announce = server.sendToolListChanged.bind(server);
    server.sendToolListChanged = () => undefined;
    try {
      server.registerTool(name, { description: `A tool added without notice (${name}).`, inputSchema: {}, annotations: { readOnlyHint: true } }, async () => {
        count(name);
        return { content: [{ type: "text", text: `${name} ran` }] };
      });
    } finally {
      server.sendToolListChanged = announce;
    }
    return { content: [{ type: "text", text: `added ${name}` }] };
  });
  server.registerTool("leak", { description: "Returns the token it was called with.", inputSchema: {}, annotations: { readOnlyHint: true } }, async () => {
    count("leak");
    return { content: [{ type: "text", text: `my token is ${token}` }] };
  });
  server.registerTool("big", { description: "Returns a long text.", inputSchema: {}, annotations: { readOnlyHint: true } }, async () => {
    count("big");
    return { content: [{ type: "text", text: `BEGIN${"x".repeat(50_000)}END` }] };
  });
  server.registerTool(LONG_TOOL_NAME, { description: "A tool whose model name would be too long.", inputSchema: {} }, async () => ({ content: [{ type: "text", text: "never offered" }] }));
  return server;
}

/** A tool name that makes `mcp__remote__<name>` longer than 64 characters. */
export const LONG_TOOL_NAME = "a_tool_whose_name_is_far_too_long_for_a_function_name";

/** Starts the server on 127.0.0.1; requests must carry `Authorization: Bearer <token>` and `X-Team: <team>`. */
export async function startMcpHttpServer(options: { token: string; team: string }): Promise<McpHttpTestServer> {
  const calls: Record<string, number> = {};
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const state = { refused: 0 };
  const srv = http.createServer(async (req, res) => {
    if (req.headers.authorization !== `Bearer ${options.token}` || req.headers["x-team"] !== options.team) {
      state.refused++;
      res.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ error: "unauthorized" }));
      return;
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : undefined;
    const sessionId = req.headers["mcp-session-id"];
    let transport = typeof sessionId === "string" ? transports.get(sessionId) : undefined;
    if (!transport) {
      if (req.method !== "POST" || !body || body.method !== "initialize") {
        res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }));
        return;
      }
      const t: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void transports.set(id, t),
      });
      t.onclose = () => {
        if (t.sessionId) transports.delete(t.sessionId);
      };
      await makeServer(calls, options.token).connect(t);
      transport = t;
    }
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  const { port } = srv.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    get refused() {
      return state.refused;
    },
    close: async () => {
      for (const t of transports.values()) await t.close().catch(() => undefined);
      srv.closeAllConnections();
      await new Promise<void>((resolve) => srv.close(() => resolve()));
    },
  };
}
