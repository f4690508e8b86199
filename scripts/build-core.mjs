#!/usr/bin/env node
/**
 * Bundles the server's core (lib/server/core.ts: the composition root and every part of the
 * server that holds the store or the engine) into `.next/astrion-core/core.mjs`, which
 * scripts/serve.mjs loads once per process before Next, so that code exists once in the process
 * instead of once per route bundle (docs/architecture.md, "Loaded once per process?"). Run by
 * `npm run build` after `next build`, and by ensureBuild (./build-state.mjs).
 *
 * Packages stay outside the bundle: Node loads each once from node_modules, as Next does for the
 * `serverExternalPackages` of next.config.ts. `@/` is the repository root (tsconfig.json's paths);
 * `server-only` is its empty module, the one Next gives server code. Nothing of Next or React may
 * be in the core: it runs outside Next's request scope, so the build refuses an import of them.
 * `ASTRION_CORE_MINIFY=0` leaves it unminified, so a CPU profile names its functions (the source
 * map gives their files either way).
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { CORE_BUNDLE } from "./core-bundle.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Imports the core must not contain: they only work inside Next's own bundles. */
const REFUSED = /^(next|react|react-dom)(\/|$)/;

/** True for an import Node resolves from node_modules (or a builtin): left to Node. */
function isPackage(id) {
  return !id.startsWith(".") && !id.startsWith("/") && !id.startsWith("@/") && !path.isAbsolute(id) && !id.startsWith("\0");
}

/** Builds `<root>/.next/astrion-core/core.mjs` (and its source map) from lib/server/core.ts. */
async function buildCore() {
  if (!existsSync(path.join(root, ".next"))) throw new Error("No .next folder: run `next build` first.");
  const { rolldown } = await import("rolldown");
  const refused = new Set();
  const bundle = await rolldown({
    input: path.join(root, "lib", "server", "core.ts"),
    platform: "node",
    cwd: root,
    tsconfig: path.join(root, "tsconfig.json"),
    resolve: { alias: { "server-only": path.join(root, "node_modules", "server-only", "empty.js") } },
    external: (id) => {
      if (id === "server-only") return false;
      if (REFUSED.test(id)) refused.add(id);
      return isPackage(id);
    },
    logLevel: "warn",
  });
  try {
    if (refused.size > 0) throw new Error(`lib/server/core.ts reaches ${[...refused].join(", ")}; the server's core runs outside Next and may not import it.`);
    // Split at dynamic imports: the PostgreSQL store and the Redis bus (lib/server/backend.ts
    // imports them only when asked for) are chunks of their own beside core.mjs, so a server on
    // the data folder never loads them, nor the packages they import.
    await bundle.write({
      dir: path.join(root, path.dirname(CORE_BUNDLE)),
      entryFileNames: path.basename(CORE_BUNDLE),
      chunkFileNames: "[name]-[hash].mjs",
      format: "esm",
      minify: process.env.ASTRION_CORE_MINIFY !== "0",
      sourcemap: true,
    });
  } finally {
    await bundle.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    await buildCore();
    console.log(`[astrion] built the server's core: ${CORE_BUNDLE}`);
  } catch (error) {
    console.error(`[astrion] could not build the server's core: ${error.message}`);
    process.exit(1);
  }
}
