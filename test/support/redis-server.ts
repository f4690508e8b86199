/**
 * A throwaway `redis-server` for tests: started on a free loopback port in a temporary folder,
 * with nothing saved (`--save "" --appendonly no`), so a restart comes back empty as a real
 * Redis that lost its data would. Tests flush it, stop it, and start it again on the same port.
 * A missing binary fails the test with the command that installs it; it never skips.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Redis } from "ioredis";
import { freePort } from "../helpers/server";

/** Where Debian's package puts the server. */
const REDIS_SERVER = "/usr/bin/redis-server";

/** A running test Redis. */
export interface TestRedis {
  /** `redis://127.0.0.1:<port>`. */
  readonly url: string;
  readonly port: number;
  /** FLUSHALL: every key gone, connections kept. */
  flushAll(): Promise<void>;
  /** Stops the server (SIGTERM) and waits for it to exit. */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
  /** Stops it and removes its folder. */
  dispose(): Promise<void>;
}

function binary(): string {
  if (existsSync(REDIS_SERVER)) return REDIS_SERVER;
  throw new Error(`redis-server is missing (${REDIS_SERVER}); install it with: apt-get install -y redis-server`);
}

/** Spawns the server and resolves once it accepts connections (its log says so). */
function launch(bin: string, port: number, dir: string): Promise<ChildProcess> {
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "no", "--daemonize", "no", "--loglevel", "notice"];
  const child = spawn(bin, args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  return new Promise((resolve, reject) => {
    let log = "";
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      if (log.includes("Ready to accept connections")) {
        child.stdout!.off("data", onData);
        child.stdout!.resume();
        resolve(child);
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", (chunk: Buffer) => void (log += chunk.toString()));
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`redis-server exited (${code}) before it was ready:\n${log}`)));
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

/** Starts a test Redis; call `dispose()` when done (afterAll). */
export async function startRedis(): Promise<TestRedis> {
  const bin = binary();
  const dir = mkdtempSync(path.join(os.tmpdir(), "astrion-redis-"));
  const port = await freePort();
  let child: ChildProcess | null = await launch(bin, port, dir);
  const url = `redis://127.0.0.1:${port}`;
  const stop = async () => {
    const running = child;
    child = null;
    if (!running) return;
    running.kill("SIGTERM");
    await exited(running);
  };
  return {
    url,
    port,
    async flushAll() {
      const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0 });
      try {
        await client.connect();
        await client.flushall();
      } finally {
        client.disconnect();
      }
    },
    stop,
    async start() {
      if (child) throw new Error("the test Redis is running already");
      child = await launch(bin, port, dir);
    },
    async dispose() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
