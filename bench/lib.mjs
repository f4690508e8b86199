/**
 * Shared pieces of `npm run bench`: the built server started on a free loopback port with its
 * own data folder, raw JSON requests over node:http, and summary statistics.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Resolves after `ms` milliseconds. */
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Wall-clock milliseconds with sub-millisecond precision (comparable with server ISO timestamps). */
export const nowMs = () => performance.timeOrigin + performance.now();

/** A new temporary folder. */
export const tempDir = (prefix) => mkdtempSync(path.join(os.tmpdir(), prefix));

/** A free TCP port on 127.0.0.1. */
function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

// One keep-alive agent, as a browser would reuse connections; it also keeps the bench from
// exhausting ephemeral ports when it sends thousands of requests.
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** One JSON request (every request carries `content-type: application/json`, as the API asks of POSTs). */
export function request(port, method, p, body) {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const headers = { "content-type": "application/json" };
    if (data) headers["content-length"] = Buffer.byteLength(data);
    const r = http.request({ host: "127.0.0.1", port, method, path: p, headers, agent }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString();
        let json = null;
        try {
          json = JSON.parse(text || "null");
        } catch {
          json = { unparsed: text.slice(0, 500) };
        }
        resolve({ status: res.statusCode, json, bytes: Buffer.byteLength(text) });
      });
      res.on("error", reject);
    });
    r.on("error", reject);
    if (data) r.write(data);
    r.end();
  });
}

/** Runs `fn` and returns its result with the elapsed milliseconds. */
export async function timed(fn) {
  const t = performance.now();
  const result = await fn();
  return { ms: performance.now() - t, result };
}

/** n, median, p95 and max of samples (nearest-rank), rounded to 0.01. */
export function stats(samples) {
  if (!samples.length) return { n: 0 };
  const s = [...samples].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  const r = (x) => +x.toFixed(2);
  return { n: s.length, median: r(q(0.5)), p95: r(q(0.95)), max: r(s[s.length - 1]) };
}

/**
 * The V8 flags `root`'s scripts/start.mjs gives the server it spawns (its SERVER_V8_FLAGS).
 */
function serverV8Flags(root = ROOT) {
  const text = readFileSync(path.join(root, "scripts", "start.mjs"), "utf8");
  const list = /const SERVER_V8_FLAGS = \[([^\]]*)\]/.exec(text)?.[1];
  if (list === undefined) throw new Error(`no SERVER_V8_FLAGS in ${root}/scripts/start.mjs`);
  return [...list.matchAll(/"([^"]+)"/g)].map((m) => m[1]);
}

/**
 * Starts `node scripts/start.mjs` in its own process group with a temporary data folder and
 * resolves once `/api/health` answers. `stop()` ends the whole group (start.mjs and next).
 * `root` and `node` serve another checkout with another Node (the bench's baseline); by default
 * this checkout with the Node running the bench. With `profileDir`, the server is spawned as
 * start.mjs spawns it (scripts/serve.mjs with start.mjs's V8 flags and malloc setting) plus
 * `--cpu-prof` into that folder, written when it stops (Node 20 refuses `--cpu-prof` in
 * NODE_OPTIONS, so it cannot go through start.mjs).
 */
export async function startServer({ home, env = {}, root = ROOT, node = process.execPath, profileDir = null }) {
  const port = await freePort();
  const base = { ...process.env, PORT: String(port), HOST: "127.0.0.1", ASTRION_HOME: home, NEXT_TELEMETRY_DISABLED: "1", ASTRION_RATE_LIMIT_PER_MINUTE: "0", ...env };
  const args = profileDir
    ? [...serverV8Flags(root), "--cpu-prof", `--cpu-prof-dir=${profileDir}`, path.join(root, "scripts", "serve.mjs")]
    : [path.join(root, "scripts", "start.mjs")];
  const proc = spawn(node, args, {
    cwd: root,
    env: profileDir ? { ...base, ASTRION_BIND_HOST: "127.0.0.1", MALLOC_ARENA_MAX: base.MALLOC_ARENA_MAX ?? "2" } : base,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  const keep = (c) => {
    output += c.toString();
    if (output.length > 200_000) output = output.slice(-100_000);
  };
  proc.stdout.on("data", keep);
  proc.stderr.on("data", keep);
  const exited = new Promise((resolve) => proc.once("exit", resolve));
  const stop = async () => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    try {
      process.kill(-proc.pid, "SIGTERM");
    } catch {
      return;
    }
    const timer = setTimeout(() => {
      try {
        process.kill(-proc.pid, "SIGKILL");
      } catch {
        /* already gone */
      }
    }, 5000);
    await exited;
    clearTimeout(timer);
  };
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`server exited with ${proc.exitCode} before it was ready:\n${output}`);
    try {
      if ((await request(port, "GET", "/api/health")).status === 200) break;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`server did not start:\n${output}`);
    }
    await sleep(200);
  }
  return { port, home, stop, output: () => output };
}

/** Closes idle keep-alive sockets so the process can exit. */
export function closeAgent() {
  agent.destroy();
}
