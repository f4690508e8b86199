/**
 * Starts the real, built app (`node scripts/start.mjs`) on a free loopback port with its own
 * temporary ASTRION_HOME, and speaks raw HTTP to it (node:http, so tests can send any Host,
 * Origin or content-type, which `fetch` would not allow).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";

export const REPO_ROOT = path.resolve(__dirname, "..", "..");

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** A new empty temporary folder. */
export function tempDir(prefix = "astrion-test-"): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** The parsed JSON body, or undefined when it is not JSON. */
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface RawRequest {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Source address of the connection (any 127.x address works on loopback): another "client". */
  localAddress?: string;
}

/** One HTTP request with exactly the headers given (Host defaults to 127.0.0.1:<port>). */
export function rawRequest(port: number, req: RawRequest): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { host: `127.0.0.1:${port}`, ...req.headers };
    if (req.body !== undefined) headers["content-length"] = String(Buffer.byteLength(req.body));
    const r = http.request({ host: "127.0.0.1", port, method: req.method ?? "GET", path: req.path, headers, setHost: false, localAddress: req.localAddress }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: parsed });
      });
    });
    r.on("error", reject);
    if (req.body !== undefined) r.write(req.body);
    r.end();
  });
}

/** What came back on a raw connection: the bytes read until it closed, and how it ended (`ECONNRESET`, say). */
export interface SocketExchange {
  text: string;
  /** The status line, e.g. `HTTP/1.1 431 Request Header Fields Too Large` ("" when nothing came). */
  statusLine: string;
  headers: Record<string, string>;
  body: string;
  error: string | null;
}

/**
 * Writes `bytes` on a new TCP connection (HTTP/1.1 as given, nothing checked or added) and reads
 * until the server closes it; our side ends once all is written.
 */
export function socketExchange(port: number, bytes: string | Buffer): Promise<SocketExchange> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    let error: string | null = null;
    socket.on("data", (c: Buffer) => chunks.push(c));
    socket.on("error", (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const end = text.indexOf("\r\n\r\n");
      const head = (end < 0 ? text : text.slice(0, end)).split("\r\n");
      const headers: Record<string, string> = {};
      for (const line of head.slice(1)) {
        const at = line.indexOf(":");
        if (at > 0) headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
      }
      resolve({ text, statusLine: head[0] ?? "", headers, body: end < 0 ? "" : text.slice(end + 4), error });
    });
    socket.write(bytes, () => socket.end());
  });
}

export interface TestServer {
  port: number;
  home: string;
  url: string;
  proc: ChildProcess;
  /** Everything the server printed so far. */
  output(): string;
  /** A JSON request with content-type application/json and a same-origin Origin. */
  api(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<RawResponse>;
  request(req: RawRequest): Promise<RawResponse>;
  stop(): Promise<void>;
}

/**
 * Spawns the app and resolves when `/api/health` answers 200, or rejects with its output.
 * `launcher` is a command the start script is handed to (its arguments follow the launcher's),
 * e.g. `unshare` to run the server in its own mount namespace.
 */
/** Whether a process of group `pgid` is still alive (a zombie is not: it owns nothing). */
function groupAlive(pgid: number): boolean {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // gone meanwhile
    }
    // After the command's ")": state, ppid, pgrp, …
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(pgrp) === pgid && state !== "Z" && state !== "X") return true;
  }
  return false;
}

/**
 * SIGKILL of the server's whole process group (start.mjs and the server it spawned), resolved once
 * none of it is alive. A killed process can outlive its parent for a while (a SIGKILL waits for a
 * disk write under way to return), and a server started meanwhile would find the data folder's
 * lock still held by a live process.
 */
export async function killServer(s: TestServer, timeoutMs = 30_000): Promise<void> {
  const pgid = s.proc.pid!;
  if (s.proc.exitCode === null && s.proc.signalCode === null) {
    const exited = new Promise<void>((resolve) => s.proc.once("exit", () => resolve()));
    try {
      process.kill(-pgid, "SIGKILL");
      await exited;
    } catch {
      /* already gone */
    }
  }
  const deadline = Date.now() + timeoutMs;
  while (groupAlive(pgid)) {
    if (Date.now() > deadline) throw new Error(`the server's process group ${pgid} is still alive ${timeoutMs} ms after SIGKILL`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export async function startServer(options: { home?: string; env?: Record<string, string>; port?: number; launcher?: string[] } = {}): Promise<TestServer> {
  const port = options.port ?? (await freePort());
  const home = options.home ?? tempDir("astrion-home-");
  const command = [...(options.launcher ?? []), process.execPath, path.join(REPO_ROOT, "scripts", "start.mjs")];
  const proc = spawn(command[0]!, command.slice(1), {
    cwd: REPO_ROOT,
    // The entry rate limit is off unless a test sets it: suites create many conversations quickly.
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", ASTRION_HOME: home, NEXT_TELEMETRY_DISABLED: "1", ASTRION_RATE_LIMIT_PER_MINUTE: "0", ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let out = "";
  proc.stdout!.on("data", (c: Buffer) => (out += c.toString()));
  proc.stderr!.on("data", (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));

  const server: TestServer = {
    port,
    home,
    url: `http://127.0.0.1:${port}`,
    proc,
    output: () => out,
    request: (req) => rawRequest(port, req),
    api: (method, p, body, headers) =>
      rawRequest(port, {
        method,
        path: p,
        headers: { "content-type": "application/json", origin: `http://127.0.0.1:${port}`, ...headers },
        body: body === undefined ? (method === "GET" ? undefined : "{}") : JSON.stringify(body),
      }),
    stop: async () => {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      try {
        process.kill(-proc.pid!, "SIGTERM");
      } catch {
        return;
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-proc.pid!, "SIGKILL");
        } catch {
          /* already gone */
        }
      }, 5000);
      await exited;
      clearTimeout(timer);
    },
  };

  const deadline = Date.now() + 180_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`server exited with ${proc.exitCode} before it was ready:\n${out}`);
    try {
      const res = await rawRequest(port, { path: "/api/health" });
      if (res.status === 200) return server;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      await server.stop();
      throw new Error(`server did not become ready in time:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Runs the start script and waits for it to exit (for start-up refusals). */
export async function runToExit(env: Record<string, string>, timeoutMs = 120_000): Promise<{ code: number | null; output: string }> {
  const proc = spawn(process.execPath, [path.join(REPO_ROOT, "scripts", "start.mjs")], {
    cwd: REPO_ROOT,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  proc.stdout!.on("data", (c: Buffer) => (output += c.toString()));
  proc.stderr!.on("data", (c: Buffer) => (output += c.toString()));
  const timer = setTimeout(() => proc.kill("SIGKILL"), timeoutMs);
  const code = await new Promise<number | null>((resolve) => proc.once("exit", (c) => resolve(c)));
  clearTimeout(timer);
  return { code, output };
}

/**
 * The first event of a conversation's SSE stream (its `snapshot`, the whole live state), plus
 * any events that arrived with it; the stream is closed once the snapshot is in.
 */
export async function firstEvents(server: TestServer, id: string): Promise<Array<Record<string, any>>> { // eslint-disable-line @typescript-eslint/no-explicit-any
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: server.port, path: `/api/conversations/${id}/events`, headers: { host: `127.0.0.1:${server.port}` } }, (res) => {
      let buf = "";
      res.on("data", (c: Buffer) => {
        buf += c.toString();
        const at = buf.indexOf('"type":"snapshot"');
        if (at >= 0 && buf.includes("\n\n", at)) {
          req.destroy();
          resolve(
            buf
              .split("\n\n")
              // Presence frames (`event: presence`) are not runtime events.
              .filter((block) => !block.startsWith("event: presence\n"))
              .map((block) => block.split("\n").find((l) => l.startsWith("data: ")))
              .filter((l): l is string => Boolean(l))
              .map((l) => JSON.parse(l.slice(6))),
          );
        }
      });
    });
    req.on("error", (e) => ((e as NodeJS.ErrnoException).code === "ECONNRESET" ? undefined : reject(e)));
    req.end();
  });
}

/** The `snapshot` of a conversation's SSE stream. */
export async function snapshotOf(server: TestServer, id: string): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
  return (await firstEvents(server, id)).find((e) => e.type === "snapshot")?.snapshot;
}
