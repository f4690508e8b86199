#!/usr/bin/env node
/**
 * `npm start`: serves the built app on HOST (default 127.0.0.1) and PORT (default 3000), building
 * it first when no build exists or the build is older than the sources, so a newcomer's first
 * `npm start` just works and a stale build is never served.
 *
 * It refuses to listen on a non-loopback address unless ASTRION_TOKEN is set: the API can read
 * and write files on this machine, so it must never be reachable from the network unprotected.
 * The data folder (ASTRION_HOME or ~/.astrion/astrion/host/mutiagents) is locked by the server
 * process itself at start-up (instrumentation.ts), so a second server on the same folder exits.
 * The server itself is scripts/serve.mjs (Next's handler on node:http, stamping each request with
 * the client's socket address for per-client limits).
 *
 * First of all it checks that this Node is the one package.json's `engines.node` names
 * (./node-version.mjs): an older one exits with a line saying which is needed.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { nodeVersionProblem } from "./node-version.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const nodeProblem = nodeVersionProblem(process.version, JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")).engines.node);
if (nodeProblem) {
  console.error(nodeProblem);
  process.exit(1);
}
// Loaded once the version is known to be right.
const { ensureBuild } = await import("./build-state.mjs");
const host = process.env.HOST || "127.0.0.1";
const port = process.env.PORT || "3000";
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ASTRION_BIND_HOST: host };

/** True for addresses only this machine can reach. */
function isLoopback(h) {
  const bare = h.replace(/^\[|\]$/g, "").toLowerCase();
  return bare === "localhost" || bare === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

if (!isLoopback(host) && !process.env.ASTRION_TOKEN) {
  console.error(
    `Refusing to listen on ${host}: it is not a loopback address and ASTRION_TOKEN is not set.\n` +
      `Set ASTRION_TOKEN to a long random secret to serve Astrion Team beyond this machine, or use HOST=127.0.0.1.`,
  );
  process.exit(1);
}
if (!/^\d{1,5}$/.test(port) || Number(port) > 65535) {
  console.error(`PORT must be a number from 0 to 65535, not "${port}".`);
  process.exit(1);
}

const built = await ensureBuild(root, env);
if (built !== 0) {
  console.error("The build failed; see the output above.");
  process.exit(built);
}

/**
 * V8's heap grows by up to 4× what survived the last full collection before it collects again, so
 * a busy server's resident memory climbs about a megabyte per conversation run for a long while
 * (nothing is held: a forced collection brings it back). At 1.2× the next full collection comes
 * soon enough that memory follows what is live (`npm run bench`, docs/benchmarks.md).
 *
 * The young generation may grow to 32 MB a half instead of 16: a run of the bench's workload
 * allocates about 13 MB, and each scavenge costs about 2.5 ms of the event loop whatever it frees
 * (what survives it is the runs in flight), so half as many save CPU on every model call: 0.22
 * and 0.36 ms of CPU and 0.14 and 0.10 ms of wall time per call in two paired runs of 80 and 60
 * conversations each way, for about 30 MB more resident memory.
 */
const SERVER_V8_FLAGS = ["--heap-growing-percent=20", "--max-semi-space-size=32"];

/**
 * glibc gives each thread that allocates its own malloc arena (up to 8 per core); the thread
 * pool's file work spreads small allocations over them and each keeps its freed memory, about
 * 20 MB more resident in `npm run bench`'s 100-conversation run. Two arenas hold it in check.
 * A value set by the person starting the server wins.
 */
const MALLOC_ENV = { MALLOC_ARENA_MAX: env.MALLOC_ARENA_MAX ?? "2" };

const server = spawn(process.execPath, [...SERVER_V8_FLAGS, path.join(root, "scripts", "serve.mjs")], { cwd: root, env: { ...env, ...MALLOC_ENV, HOST: host, PORT: port }, stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => server.kill(signal));
}
server.on("exit", (code, signal) => {
  if (signal) process.kill(process.pid, signal);
  else process.exit(code ?? 0);
});
