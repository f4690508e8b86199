#!/usr/bin/env node
/**
 * `npm run migrate-data -- --from <data folder> --to <postgres URL>` (or the other way round, with
 * `--replace` to write over a target that is not empty): moves a data folder's conversations into
 * PostgreSQL and back (docs/postgresql.md). The tool is TypeScript (lib/pg/migrate-data/cli.ts),
 * so it is bundled here as scripts/doctor.mjs bundles the connection doctor (packages left to
 * Node, `@/` the repository root, `server-only` its empty module) into node_modules/.cache, where
 * Node finds those packages, and run. The exit code is the tool's: 0 moved, 1 refused or failed,
 * 2 bad arguments.
 */
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** True for an import Node resolves from node_modules (or a builtin): left to Node. */
function isPackage(id) {
  return !id.startsWith(".") && !id.startsWith("/") && !id.startsWith("@/") && !path.isAbsolute(id) && !id.startsWith("\0");
}

async function bundleTool(file) {
  const { rolldown } = await import("rolldown");
  const bundle = await rolldown({
    input: path.join(root, "lib", "pg", "migrate-data", "cli.ts"),
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

const dir = path.join(root, "node_modules", ".cache", "astrion-migrate-data");
mkdirSync(dir, { recursive: true });
const file = path.join(dir, `migrate-data-${process.pid}.mjs`);
let code = 1;
try {
  await bundleTool(file);
  const { main } = await import(pathToFileURL(file).href);
  code = await main(process.argv.slice(2));
} catch (error) {
  console.error(`[astrion] migrate-data could not run: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  rmSync(file, { force: true });
}
process.exit(code);
