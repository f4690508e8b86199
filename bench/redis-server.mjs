/**
 * A throwaway `redis-server` for the bench (the app on PostgreSQL + Redis, issue 31): started on
 * a free loopback port in a temporary folder with nothing saved, and `stop()` that ends it and
 * removes the folder. A server still running when the process exits (or on SIGINT / SIGTERM) is
 * killed then. Plain JS on purpose: the tests have their own starter (test/support/redis-server.ts).
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { procCpuMs } from "./pg-cluster.mjs";

const REDIS_SERVER = "/usr/bin/redis-server";

/** The server binary, or null with why not (the caller reports the target as skipped). */
export function redisBinary() {
  return existsSync(REDIS_SERVER) ? { bin: REDIS_SERVER } : { bin: null, reason: `no ${REDIS_SERVER} (apt-get install redis-server)` };
}

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

const running = new Set();
let hooked = false;
function hookExit() {
  if (hooked) return;
  hooked = true;
  const killAll = () => {
    for (const child of running) child.kill("SIGKILL");
  };
  process.once("exit", killAll);
  for (const signal of ["SIGINT", "SIGTERM"]) {
    process.once(signal, () => {
      killAll();
      process.kill(process.pid, signal);
    });
  }
}

/** Starts a server; resolves to `{ url, port, pid, version, cpuMs(), stop() }` once it accepts connections. */
export async function startRedisServer() {
  const { bin, reason } = redisBinary();
  if (!bin) throw new Error(reason);
  const dir = mkdtempSync(path.join(os.tmpdir(), "astrion-bench-redis-"));
  const port = await freePort();
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "no", "--daemonize", "no", "--loglevel", "warning"];
  const child = spawn(bin, args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  running.add(child);
  hookExit();
  let log = "";
  child.stdout.on("data", (c) => void (log = (log + c).slice(-4000)));
  child.stderr.on("data", (c) => void (log = (log + c).slice(-4000)));
  const exited = new Promise((resolve) => child.once("exit", resolve));
  // Ready once a PING over TCP answers +PONG.
  const deadline = Date.now() + 20_000;
  for (;;) {
    const pong = await new Promise((resolve) => {
      const s = net.connect(port, "127.0.0.1", () => s.write("PING\r\n"));
      s.once("data", (d) => {
        s.destroy();
        resolve(String(d).startsWith("+PONG"));
      });
      s.once("error", () => resolve(false));
    });
    if (pong) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`redis-server did not start:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const version = /v=(\S+)/.exec(execFileSync(bin, ["--version"], { encoding: "utf8" }))?.[1] ?? "unknown";
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    pid: child.pid,
    version,
    cpuMs: () => procCpuMs(child.pid),
    stop: async () => {
      running.delete(child);
      child.kill("SIGTERM");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
