#!/usr/bin/env node
/**
 * The HTTP server behind `npm start` (started by scripts/start.mjs, which checks HOST, PORT and
 * the build first): Next's request handler on a plain node:http server.
 *
 * It exists for one reason: per-client limits (sign-in throttling, SSE stream caps) need the
 * client's real address, and Next gives route handlers no socket; the `x-forwarded-for` it fills
 * in is kept as the client sent it. So every request is stamped here with the socket's remote
 * address in `x-astrion-client-address`, overwriting any value the client sent, and the process
 * is marked (ASTRION_STAMPS_CLIENT_ADDRESS=1) so lib/security trusts that header only here.
 * Keep the names in step with lib/security/client-address.ts. What it answers itself (methods
 * the app does not serve, requests Node's parser refuses) is in scripts/http-refusals.mjs.
 *
 * Before Next it loads the server's core, built beside the app by `npm run build`
 * (scripts/build-core.mjs), so the store and the engine exist once in the process, and boots it.
 */
import http from "node:http";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { CORE_BUNDLE } from "./core-bundle.mjs";
import { installRefusals, refuseUnservedMethod } from "./http-refusals.mjs";

const CLIENT_ADDRESS_HEADER = "x-astrion-client-address";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const host = process.env.HOST || "127.0.0.1";
const port = Number(process.env.PORT || "3000");

process.env.NODE_ENV = "production";
process.env.NEXT_TELEMETRY_DISABLED = "1";
process.env.ASTRION_STAMPS_CLIENT_ADDRESS = "1";

// The server's core (the composition root, the store, the engine: lib/server/core.ts), bundled on
// its own by `npm run build`, loaded once and installed before Next loads a route, so every route
// and the boot (instrumentation.ts) reach this one copy (lib/server/get-app.ts).
const { core, installCore } = await import(pathToFileURL(path.join(root, CORE_BUNDLE)).href);
installCore();

// Imported only now: Next reads NODE_ENV when it loads.
const { default: next } = await import("next");
const app = next({ dev: false, dir: root, hostname: host, port });
const handle = app.getRequestHandler();
// Loads the build and starts instrumentation.ts's boot, which Next does not wait for.
await app.prepare();
// The boot is awaited before the port is listened on: the data folder's lock is taken (or this
// process says "cannot start" and exits) first, so "ready on" is only ever printed by a server
// that owns its folder. Boot runs once: this is the same run.
await core.boot();

const server = http.createServer((req, res) => {
  // A method Next cannot take (TRACE made it throw: 500) is answered here (scripts/http-refusals.mjs).
  if (refuseUnservedMethod(req, res)) return;
  req.headers[CLIENT_ADDRESS_HEADER] = req.socket.remoteAddress ?? "unknown";
  handle(req, res).catch((error) => {
    console.error(`[astrion] failed to handle ${req.method} ${req.url}`, error);
    if (!res.headersSent) res.statusCode = 500;
    res.end();
  });
});
// Oversize headers, a method Node does not know, CONNECT: answered, then closed without a reset.
installRefusals(server);
server.on("error", (error) => {
  // The usual cause on a first start: another program (or another Astrion) has the port.
  const hint = error.code === "EADDRINUSE" ? ` Another program is using port ${port}: stop it, or start on another port, e.g. PORT=${Number(port) + 1} npm start.` : "";
  console.error(`[astrion] cannot listen on ${host}:${port}: ${error.message}.${hint}`);
  process.exit(1);
});
server.listen(port, host, () => {
  const address = server.address();
  const shown = host.includes(":") ? `[${host}]` : host;
  console.log(`[astrion] ready on http://${shown}:${typeof address === "object" && address ? address.port : port}`);
});
