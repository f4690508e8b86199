#!/usr/bin/env node
/**
 * `npm run doctor -- <model key> [--json]`: the connection doctor on the command line. The
 * doctor is TypeScript (lib/models/doctor/cli.ts), so it is bundled here as scripts/build-core.mjs
 * bundles the server's core (packages left to Node, `@/` the repository root, `server-only` its
 * empty module) into node_modules/.cache, where Node finds those packages, and run. The exit code
 * is the doctor's: 0 no red line, 1 a red line, 2 the check could not run.
 */
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** True for an import Node resolves from node_modules (or a builtin): left to Node. */
function isPackage(id) {
  return !id.startsWith(".") && !id.startsWith("/") && !id.startsWith("@/") && !path.isAbsolute(id) && !id.startsWith("\0");
}

async function bundleDoctor(file) {
  const { rolldown } = await import("rolldown");
  const bundle = await rolldown({
    input: path.join(root, "lib", "models", "doctor", "cli.ts"),
    platform: "node",
    cwd: root,
    tsconfig: path.join(root, "tsconfig.json"),
    resolve: { alias: { "server-only": path.join(root, "node_modules", "server-only", "empty.js") } },
    external: (id) => id !== "server-only" && isPackage(id),
    logLevel: "warn",
  });
  try {
    await bundle.write({ file, format: "esm" });
  } finally {
    await bundle.close();
  }
}

const dir = path.join(root, "node_modules", ".cache", "astrion-doctor");
mkdirSync(dir, { recursive: true });
const file = path.join(dir, `doctor-${process.pid}.mjs`);
let code = 2;
try {
  await bundleDoctor(file);
  const { main } = await import(pathToFileURL(file).href);
  code = await main(process.argv.slice(2));
} catch (error) {
  console.error(`[astrion] the connection doctor could not run: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  rmSync(file, { force: true });
}
process.exit(code);
