#!/usr/bin/env node
/**
 * `npm start`: serves the built app on HOST (default 127.0.0.1) and PORT (default 3000), building
 * it first when no build exists, so a newcomer's first `npm start` just works.
 *
 * It refuses to listen on a non-loopback address unless ASTRION_TOKEN is set: the API can read
 * and write files on this machine, so it must never be reachable from the network unprotected.
 * The data folder (ASTRION_HOME or ~/.astrion/astrion/host/mutiagents) is locked by the server
 * process itself at start-up (instrumentation.ts), so a second server on the same folder exits.
 * The server itself is scripts/serve.mjs (Next's handler on node:http, stamping each request with
 * the client's socket address for per-client limits).
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const host = process.env.HOST || "127.0.0.1";
const port = process.env.PORT || "3000";
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ASTRION_BIND_HOST: host };
const nextBin = path.join(root, "node_modules", "next", "dist", "bin", "next");

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

if (!existsSync(path.join(root, ".next", "BUILD_ID"))) {
  console.log("No build found: building Astrion Team first (this takes a minute or two)…");
  const build = spawnSync(process.execPath, [nextBin, "build"], { cwd: root, env, stdio: "inherit" });
  if (build.status !== 0) {
    console.error("The build failed; see the output above.");
    process.exit(build.status ?? 1);
  }
}

const server = spawn(process.execPath, [path.join(root, "scripts", "serve.mjs")], { cwd: root, env: { ...env, HOST: host, PORT: port }, stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => server.kill(signal));
}
server.on("exit", (code, signal) => {
  if (signal) process.kill(process.pid, signal);
  else process.exit(code ?? 0);
});
