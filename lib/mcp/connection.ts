import "server-only";
/**
 * One live connection to one MCP server (the official SDK's Client over stdio or Streamable
 * HTTP): start, the tool listing (kept until the server says `notifications/tools/list_changed`),
 * calls with a deadline, and close. A stdio server's stderr is captured (never passed to the app's
 * own output, where a secret it prints would land) and kept as a short, scrubbed tail for errors.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { scrub, type ResolvedServer } from "./config";
import { frameStdioTransport, OversizeMessageError } from "./line-framer";
import type { ResultBlock } from "./tools";

/** One tool as the server lists it. */
export interface ListedTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: unknown };
}

/** A call's answer: the server's blocks, and whether it reports an error (`isError`). */
export interface CallAnswer {
  content: ResultBlock[];
  structuredContent?: unknown;
  isError: boolean;
}

/** How a call failed: the deadline passed, the server said no (MCP error), the connection broke, or the caller stopped it. */
export class McpCallError extends Error {
  readonly kind: "timeout" | "protocol" | "connection" | "aborted";
  constructor(kind: McpCallError["kind"], message: string) {
    super(message);
    this.name = new.target.name;
    this.kind = kind;
  }
}

const STDERR_TAIL = 2000;

/** The parts of the SDK this module uses. */
interface Sdk {
  Client: typeof import("@modelcontextprotocol/sdk/client/index.js").Client;
  StdioClientTransport: typeof import("@modelcontextprotocol/sdk/client/stdio.js").StdioClientTransport;
  getDefaultEnvironment: typeof import("@modelcontextprotocol/sdk/client/stdio.js").getDefaultEnvironment;
  deserializeMessage: typeof import("@modelcontextprotocol/sdk/shared/stdio.js").deserializeMessage;
  StreamableHTTPClientTransport: typeof import("@modelcontextprotocol/sdk/client/streamableHttp.js").StreamableHTTPClientTransport;
  McpError: typeof import("@modelcontextprotocol/sdk/types.js").McpError;
  ErrorCode: typeof import("@modelcontextprotocol/sdk/types.js").ErrorCode;
  ToolListChangedNotificationSchema: typeof import("@modelcontextprotocol/sdk/types.js").ToolListChangedNotificationSchema;
}

let sdkLoading: Promise<Sdk> | null = null;

/**
 * The SDK, loaded when the first MCP server starts: a server without MCP servers never holds it
 * (about 10 MB of heap, which every full garbage collection would walk).
 */
function loadSdk(): Promise<Sdk> {
  sdkLoading ??= Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/types.js"),
    import("@modelcontextprotocol/sdk/shared/stdio.js"),
  ]).then(([client, stdio, http, types, framing]) => ({
    Client: client.Client,
    StdioClientTransport: stdio.StdioClientTransport,
    getDefaultEnvironment: stdio.getDefaultEnvironment,
    deserializeMessage: framing.deserializeMessage,
    StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
    McpError: types.McpError,
    ErrorCode: types.ErrorCode,
    ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
  }));
  sdkLoading.catch(() => {
    sdkLoading = null;
  });
  return sdkLoading;
}

/** Keys holding base64 (an image's `data`, a resource's `blob`): no text a secret could be read in, and large. */
const BINARY_KEYS = new Set(["data", "blob"]);

/** A value with every secret scrubbed from its strings (keys and base64 fields kept as they are). */
function scrubJson(value: unknown, secrets: readonly string[]): unknown {
  if (!secrets.length) return value;
  if (typeof value === "string") return scrub(value, secrets);
  if (Array.isArray(value)) return value.map((v) => scrubJson(v, secrets));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, BINARY_KEYS.has(k) ? v : scrubJson(v, secrets)]));
  return value;
}

/** A connection; made by {@link McpConnection.open}. */
export class McpConnection {
  readonly server: ResolvedServer;
  readonly #sdk: Sdk;
  readonly #client: Client;
  readonly #transport: Transport;
  #tools: ListedTool[] | null = null;
  #closing = false;
  #closed = false;
  #stderr = "";
  /** Why the connection was ended from this side (an oversize message): every later error says this. */
  #fatal: string | null = null;
  #onClosed: (unexpected: boolean) => void = () => undefined;

  private constructor(sdk: Sdk, server: ResolvedServer, client: Client, transport: Transport) {
    this.#sdk = sdk;
    this.server = server;
    this.#client = client;
    this.#transport = transport;
  }

  /**
   * Starts the server (stdio) or opens the session (HTTP) and runs MCP's initialize, within
   * `timeoutMs`. `onClosed(true)` is called when the connection ends without {@link close}.
   */
  static async open(server: ResolvedServer, timeoutMs: number, onClosed: (unexpected: boolean) => void): Promise<McpConnection> {
    const sdk = await loadSdk();
    const { Client, StdioClientTransport, StreamableHTTPClientTransport, getDefaultEnvironment, deserializeMessage, ToolListChangedNotificationSchema } = sdk;
    let transport: Transport;
    try {
      if (server.type === "http") transport = new StreamableHTTPClientTransport(new URL(server.url!), { requestInit: { headers: server.headers ?? {} } });
      else {
        const stdio = new StdioClientTransport({ command: server.command!, args: server.args ?? [], env: { ...getDefaultEnvironment(), ...server.env }, stderr: "pipe" });
        // The SDK's reader copies and rescans an unfinished line on every read (lib/mcp/line-framer.ts).
        frameStdioTransport(stdio, deserializeMessage);
        transport = stdio;
      }
    } catch (error) {
      throw new McpCallError("connection", `could not start: ${scrub(error instanceof Error ? error.message : String(error), server.secrets)}`);
    }
    const client = new Client({ name: "astrion-team", version: "1.0.0" }, { capabilities: {} });
    const conn = new McpConnection(sdk, server, client, transport);
    if (transport instanceof StdioClientTransport) {
      transport.stderr?.on("data", (chunk: Buffer) => {
        conn.#stderr = (conn.#stderr + chunk.toString("utf8")).slice(-STDERR_TAIL);
      });
    }
    // The next listing asks again: the model call after this one sees the new list.
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      conn.#tools = null;
    });
    // A message over the limit: nothing more is read, and the connection ends (a crash, restarted by the next call).
    client.onerror = (error) => {
      if (!(error instanceof OversizeMessageError) || conn.#fatal) return;
      conn.#fatal = error.message;
      void client.close().catch(() => undefined);
    };
    client.onclose = () => {
      if (conn.#closed) return;
      conn.#closed = true;
      conn.#onClosed(!conn.#closing);
    };
    try {
      await client.connect(transport, { timeout: timeoutMs });
    } catch (error) {
      const why = conn.describe(error);
      conn.#closing = true;
      await client.close().catch(() => undefined);
      throw new McpCallError("connection", `could not start: ${why}`);
    }
    conn.#onClosed = onClosed;
    return conn;
  }

  /** The child's process id (stdio), or null. */
  get pid(): number | null {
    return this.#transport instanceof this.#sdk.StdioClientTransport ? this.#transport.pid : null;
  }

  /** False once the connection ended. */
  get live(): boolean {
    return !this.#closed;
  }

  /** An error as text, with the server's last stderr lines, every secret scrubbed. */
  describe(error: unknown): string {
    const message = this.#fatal ?? (error instanceof Error ? error.message : String(error));
    const tail = this.#stderr.trim().split("\n").slice(-5).join(" | ");
    return scrub(tail ? `${message} (stderr: ${tail})` : message, this.server.secrets);
  }

  /** The server's tools: the last listing, or a new one after `list_changed` (all pages). */
  async tools(timeoutMs: number): Promise<ListedTool[]> {
    if (this.#tools) return this.#tools;
    const out: ListedTool[] = [];
    let cursor: string | undefined;
    try {
      for (let page = 0; page < 100; page++) {
        const r = await this.#client.listTools(cursor ? { cursor } : {}, { timeout: timeoutMs });
        // Descriptions and schemas reach the model and the settings page: a server may put what it
        // was started with (a token in its argv) in them, as in a result.
        for (const t of r.tools) out.push({ name: t.name, description: scrub(t.description ?? "", this.server.secrets), inputSchema: scrubJson(t.inputSchema, this.server.secrets) as Record<string, unknown>, annotations: t.annotations });
        cursor = r.nextCursor;
        if (!cursor) break;
      }
    } catch (error) {
      throw this.#callError(error, "tools/list", timeoutMs);
    }
    this.#tools = out;
    return out;
  }

  /**
   * Calls a tool within `timeoutMs` (aborted by `signal`, e.g. Stop). A tool that is not marked
   * read-only may change the server's tools: the listing is asked again at the next model call.
   * (Its `list_changed` may come on the server's other stream, after the result; the engine does
   * not wait for the disk between a result and the next call, so it could come too late.)
   */
  async call(tool: string, args: Record<string, unknown>, timeoutMs: number, signal?: AbortSignal): Promise<CallAnswer> {
    const readOnly = this.#tools?.find((t) => t.name === tool)?.annotations?.readOnlyHint === true;
    try {
      const r = await this.#client.callTool({ name: tool, arguments: args }, undefined, { timeout: timeoutMs, signal });
      // A server may echo what it was started with (a token in its env or argv): scrubbed before
      // anyone sees it, in every text of every block (a resource link's uri and name too).
      const secrets = this.server.secrets;
      const content = scrubJson(r.content ?? [], secrets) as ResultBlock[];
      return { content, structuredContent: scrubJson(r.structuredContent, secrets), isError: r.isError === true };
    } catch (error) {
      // Stopped by the person (Stop, terminate): not the server's failure.
      if (signal?.aborted) throw new McpCallError("aborted", `${tool} was stopped before it answered`);
      throw this.#callError(error, tool, timeoutMs);
    } finally {
      if (!readOnly) this.#tools = null;
    }
  }

  #callError(error: unknown, what: string, timeoutMs: number): McpCallError {
    const { McpError, ErrorCode } = this.#sdk;
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) return new McpCallError("timeout", `${what} did not answer within ${timeoutMs} ms`);
    if (error instanceof McpError && error.code !== ErrorCode.ConnectionClosed) return new McpCallError("protocol", this.describe(error));
    return new McpCallError("connection", this.describe(error));
  }

  /** Ends the session and the child process (the SDK sends SIGTERM, then SIGKILL). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closing = true;
    if (this.#transport instanceof this.#sdk.StreamableHTTPClientTransport) await this.#transport.terminateSession().catch(() => undefined);
    await this.#client.close().catch(() => undefined);
    this.#closed = true;
  }
}
