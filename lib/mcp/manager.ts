import "server-only";
/**
 * The MCP servers of the whole process: one connection per (conversation, server), started on
 * first use and shared by that conversation's agents; stopped when the conversation stops, is
 * archived or deleted, when nobody used it for `idleMs`, when its entry in mcp.json changes, and
 * at shutdown. A server that crashed is started again by the next call; crashes in a row without
 * a successful call between them back off (lib/mcp/config.ts `restartDelay`). What each server
 * last listed and its last error are kept for the settings page.
 *
 * An edit made through this process stops the servers it changed at once (lib/mcp/service.ts). One
 * made by another instance sharing the data folder (PostgreSQL + Redis, docs/postgresql.md), or by
 * hand, is seen at the next use of a running server: at most once a second that use stats
 * mcp.json, and when the file moved it is read again; a server whose entry changed is stopped and
 * started anew from the new entry, one that was removed is stopped and reported as not declared.
 */
import { MissingVariableError, mcpLimitsFromEnv, resolveServer, restartDelay, type McpLimits, type ResolvedServer } from "./config";
import type { MCP_NOTICE_REASONS } from "@/lib/contracts/events";
import { McpCallError, McpConnection, type CallAnswer, type ListedTool } from "./connection";
import { mcpFileStamp, readMcpFile } from "./file";
import type { McpServerConfig } from "./schema";
import type { McpServerView, McpTestResult, McpToolInfo } from "./schema";
import { mcpToolName, toolEffect } from "./tools";

type McpNoticeReason = (typeof MCP_NOTICE_REASONS)[number];

/** A server that cannot be used now (not declared, mcp.json broken, a variable unset, backing off, failed to start), and why by code. */
class McpUnavailableError extends Error {
  readonly reason: McpNoticeReason;
  constructor(reason: McpNoticeReason, message: string) {
    super(message);
    this.name = new.target.name;
    this.reason = reason;
  }
}

const CALL_REASON: Record<McpCallError["kind"], McpNoticeReason> = { connection: "mcp_connection", timeout: "mcp_timeout", protocol: "mcp_protocol", aborted: "mcp_connection" };

/** Why a server's tools could not be listed, by code (a notice words it in the page's language; the error's message is its detail). */
export function mcpFailureReason(error: unknown): McpNoticeReason {
  if (error instanceof McpUnavailableError) return error.reason;
  if (error instanceof McpCallError) return CALL_REASON[error.kind];
  return "mcp_start_failed";
}

interface Entry {
  convId: string;
  name: string;
  /** The mcp.json entry the connection was started from (as JSON), to tell when it changed. */
  declared: string | null;
  conn: McpConnection | null;
  starting: Promise<McpConnection> | null;
  /** Crashes (and failed starts) since the last successful call. */
  crashes: number;
  crashedAt: number;
  busy: number;
  idle: NodeJS.Timeout | null;
}

interface ServerStatus {
  lastError: string | null;
  lastErrorAt: string | null;
  crashes: number;
  tools: McpToolInfo[] | null;
  listedAt: string | null;
}

/** A tool as the settings page shows it. */
function toolInfo(server: string, t: ListedTool): McpToolInfo {
  return { name: t.name, model_name: mcpToolName(server, t.name), description: t.description, effect: toolEffect(t.annotations) };
}

/** The data folder's MCP connections: one per process, made by the composition root (lib/server/app.ts). */
export class McpManager {
  readonly limits: McpLimits;
  readonly #entries = new Map<string, Entry>();
  readonly #status = new Map<string, ServerStatus>();
  /** Per data folder: mcp.json's entries as last read (as JSON; null while it does not load), its stamp and when it was last checked. */
  readonly #files = new Map<string, { checkedAt: number; stamp: string; servers: Map<string, string> | null }>();
  /** Least time between two checks of mcp.json by a running server's use, in ms. */
  readonly #recheckMs: number;

  constructor(limits: McpLimits = mcpLimitsFromEnv(), options: { recheckMs?: number } = {}) {
    this.limits = limits;
    this.#recheckMs = options.recheckMs ?? 1000;
  }

  /**
   * mcp.json's entries as they are now, by name (as JSON), checked at most every `recheckMs`: a
   * stat, and a read only when the file moved. Null while the file does not load (running servers
   * keep running, as they do after a broken hand edit; a start says why it cannot).
   */
  async #declaredNow(root: string): Promise<Map<string, string> | null> {
    const known = this.#files.get(root);
    if (known && Date.now() - known.checkedAt < this.#recheckMs) return known.servers;
    const checkedAt = Date.now();
    // Stamped before the read: a change made while it is read moves the stamp for the next check.
    const stamp = await mcpFileStamp(root);
    if (known && known.stamp === stamp && !stamp.startsWith("racy:")) {
      known.checkedAt = checkedAt;
      return known.servers;
    }
    const read = await readMcpFile(root);
    const servers = read.ok ? new Map(Object.entries(read.file.mcpServers).map(([name, config]) => [name, JSON.stringify(config)])) : null;
    this.#files.set(root, { checkedAt, stamp, servers });
    return servers;
  }

  /** Whether a running connection still runs what mcp.json declares for it. */
  async #stillDeclared(root: string, e: Entry): Promise<boolean> {
    const servers = await this.#declaredNow(root);
    return servers === null || servers.get(e.name) === e.declared;
  }

  #statusOf(name: string): ServerStatus {
    let s = this.#status.get(name);
    if (!s) this.#status.set(name, (s = { lastError: null, lastErrorAt: null, crashes: 0, tools: null, listedAt: null }));
    return s;
  }

  #fail(name: string, message: string, crashes?: number): void {
    const s = this.#statusOf(name);
    s.lastError = message;
    s.lastErrorAt = new Date().toISOString();
    if (crashes !== undefined) s.crashes = crashes;
  }

  #listed(name: string, tools: ListedTool[]): void {
    const s = this.#statusOf(name);
    s.tools = tools.map((t) => toolInfo(name, t));
    s.listedAt = new Date().toISOString();
  }

  /** The entry as mcp.json declares it now, expanded from the app's environment. */
  async #resolve(root: string, name: string, started?: (config: McpServerConfig) => void): Promise<ResolvedServer> {
    const read = await readMcpFile(root);
    if (!read.ok) throw new McpUnavailableError("mcp_file_broken", read.error);
    const config = Object.prototype.hasOwnProperty.call(read.file.mcpServers, name) ? read.file.mcpServers[name] : undefined;
    if (!config) throw new McpUnavailableError("mcp_not_declared", `MCP server ${name} is not declared in mcp.json`);
    started?.(config);
    try {
      return resolveServer(name, config, process.env);
    } catch (error) {
      if (error instanceof MissingVariableError) throw new McpUnavailableError("mcp_missing_variable", error.message);
      throw error;
    }
  }

  #entry(convId: string, name: string): Entry {
    const key = `${convId}\n${name}`;
    let e = this.#entries.get(key);
    if (!e) this.#entries.set(key, (e = { convId, name, declared: null, conn: null, starting: null, crashes: 0, crashedAt: 0, busy: 0, idle: null }));
    return e;
  }

  #crashed(e: Entry, message: string): void {
    e.crashes += 1;
    e.crashedAt = Date.now();
    this.#fail(e.name, message, e.crashes);
  }

  /** Restarts the idle clock of a connection. */
  #touch(e: Entry): void {
    if (e.idle) clearTimeout(e.idle);
    e.idle = setTimeout(() => void this.#idleStop(e), this.limits.idleMs);
    e.idle.unref();
  }

  async #idleStop(e: Entry): Promise<void> {
    e.idle = null;
    if (e.busy > 0) return this.#touch(e);
    await this.#close(e);
  }

  async #close(e: Entry): Promise<void> {
    if (e.idle) clearTimeout(e.idle);
    e.idle = null;
    const conn = e.conn ?? (await e.starting?.catch(() => null)) ?? null;
    e.conn = null;
    this.#entries.delete(`${e.convId}\n${e.name}`);
    await conn?.close();
  }

  /** The conversation's live connection to `name`, started now if needed (subject to the back-off). */
  async #connect(root: string, convId: string, name: string): Promise<{ e: Entry; conn: McpConnection }> {
    let e = this.#entry(convId, name);
    if (e.conn?.live) {
      if (await this.#stillDeclared(root, e)) return { e, conn: e.conn };
      // Changed or removed in mcp.json by another instance or by hand: the old process goes.
      await this.#close(e);
      e = this.#entry(convId, name);
    }
    if (!e.starting) {
      const wait = e.crashedAt + restartDelay(e.crashes, this.limits.backoffMs) - Date.now();
      if (wait > 0) throw new McpUnavailableError("mcp_backing_off", `MCP server ${name} failed ${e.crashes} times in a row (last: ${this.#statusOf(name).lastError ?? "unknown"}); backing off, next restart in ${Math.ceil(wait / 1000)} s`);
      e.starting = (async () => {
        const server = await this.#resolve(root, name, (config) => (e.declared = JSON.stringify(config)));
        const conn = await McpConnection.open(server, this.limits.startTimeoutMs, (unexpected) => {
          if (e.conn !== conn) return;
          e.conn = null;
          if (e.idle) clearTimeout(e.idle);
          if (unexpected) this.#crashed(e, conn.describe(new Error("the server exited unexpectedly")));
        });
        return conn;
      })();
      e.starting
        .then((conn) => {
          e.conn = conn;
          this.#touch(e);
        })
        .catch((error: unknown) => {
          const message = error instanceof Error ? error.message : String(error);
          if (error instanceof McpCallError) this.#crashed(e, message);
          else this.#fail(name, message);
        })
        .finally(() => {
          e.starting = null;
        });
    }
    try {
      return { e, conn: await e.starting };
    } catch (error) {
      if (error instanceof McpCallError) throw new McpUnavailableError(error.kind === "connection" ? "mcp_start_failed" : CALL_REASON[error.kind], `MCP server ${name} ${error.message}`);
      throw error;
    }
  }

  /** The tools `name` offers in this conversation (starting it on first use). */
  async tools(root: string, convId: string, name: string): Promise<ListedTool[]> {
    return this.#using(root, convId, name, async (conn) => {
      const tools = await conn.tools(this.limits.startTimeoutMs);
      this.#listed(name, tools);
      return tools;
    });
  }

  /**
   * Runs `fn` on the conversation's connection to `name` (started on first use): the server counts
   * as busy meanwhile (no idle stop), a connection found broken is dropped, and its idle clock
   * starts again afterwards.
   */
  async #using<T>(root: string, convId: string, name: string, fn: (conn: McpConnection, e: Entry) => Promise<T>): Promise<T> {
    const { e, conn } = await this.#connect(root, convId, name);
    e.busy++;
    try {
      return await fn(conn, e);
    } catch (error) {
      await this.#broken(e, conn, error);
      throw error;
    } finally {
      e.busy--;
      if (e.conn === conn) this.#touch(e);
    }
  }

  /** A connection a call found broken (HTTP errors do not always close it) is dropped and counted as a crash. */
  async #broken(e: Entry, conn: McpConnection, error: unknown): Promise<void> {
    if (error instanceof McpCallError && error.kind === "aborted") return;
    this.#fail(e.name, error instanceof Error ? error.message : String(error));
    if (!(error instanceof McpCallError) || error.kind !== "connection" || e.conn !== conn) return;
    e.conn = null;
    this.#crashed(e, error.message);
    await conn.close();
  }

  /**
   * Calls `tool` of `name` for the conversation, within the call deadline.
   * @throws McpUnavailableError when the server cannot be used; McpCallError when the call fails.
   */
  async call(root: string, convId: string, name: string, tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<CallAnswer> {
    return this.#using(root, convId, name, async (conn, e) => {
      const answer = await conn.call(tool, args, this.limits.callTimeoutMs, signal);
      e.crashes = 0;
      this.#statusOf(name).crashes = 0;
      return answer;
    });
  }

  /** Stops every server of a conversation (Stop, archive, delete). */
  async stopConversation(convId: string): Promise<void> {
    await Promise.all([...this.#entries.values()].filter((e) => e.convId === convId).map((e) => this.#close(e)));
  }

  /** Stops `name` in every conversation (its entry changed or was removed); the next use starts it anew. */
  async stopServer(name: string): Promise<void> {
    await Promise.all([...this.#entries.values()].filter((e) => e.name === name).map((e) => this.#close(e)));
    if (this.#status.get(name)) this.#status.delete(name);
  }

  /** Stops everything (shutdown). */
  async stopAll(): Promise<void> {
    await Promise.all([...this.#entries.values()].map((e) => this.#close(e)));
  }

  /** Starts `name` alone, lists its tools and stops it: the settings page's "test connection". */
  async test(root: string, name: string): Promise<McpTestResult> {
    let conn: McpConnection | null = null;
    try {
      conn = await McpConnection.open(await this.#resolve(root, name), this.limits.startTimeoutMs, () => undefined);
      const tools = await conn.tools(this.limits.startTimeoutMs);
      this.#listed(name, tools);
      const s = this.#statusOf(name);
      s.lastError = null;
      s.lastErrorAt = null;
      const infos = tools.map((t) => toolInfo(name, t));
      return { ok: true, tools: infos, error: null, warnings: infos.filter((t) => t.model_name === null).map((t) => skippedWarning(name, t.name)) };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.#fail(name, message);
      return { ok: false, tools: [], error: message, warnings: [] };
    } finally {
      await conn?.close();
    }
  }

  /** What the settings page shows of `name`. */
  status(name: string): McpServerView["status"] {
    const s = this.#status.get(name);
    const live = [...this.#entries.values()].filter((e) => e.name === name && e.conn?.live);
    return {
      running_in: new Set(live.map((e) => e.convId)).size,
      processes: live.map((e) => ({ conversation_id: e.convId, pid: e.conn?.pid ?? null })),
      last_error: s?.lastError ?? null,
      last_error_at: s?.lastErrorAt ?? null,
      crashes: s?.crashes ?? 0,
      tools: s?.tools ?? null,
      listed_at: s?.listedAt ?? null,
    };
  }
}

/** The warning for a tool whose `mcp__<server>__<tool>` name is no valid function name. */
function skippedWarning(server: string, tool: string): string {
  return `tool "${tool}" of MCP server ${server} is skipped: mcp__${server}__${tool} is not a valid function name (at most 64 characters of letters, digits, '_' and '-')`;
}
