/**
 * Runs a command-line tool written in TypeScript under lib/ (the connection doctor, migrate-data):
 * bundles its entry as scripts/build-core.mjs bundles the server's core (packages left to Node,
 * `@/` the repository root, `server-only` its empty module) into node_modules/.cache, where Node
 * finds those packages, calls the module's `main(argv)` and exits with the code it returns. A tool
 * that cannot be bundled or throws exits with `failCode`, its reason in one line.
 */
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** True for an import Node resolves from node_modules (or a builtin): left to Node. */
function isPackage(id) {
  return !id.startsWith(".") && !id.startsWith("/") && !id.startsWith("@/") && !path.isAbsolute(id) && !id.startsWith("\0");
}

async function bundle(entry, file) {
  const { rolldown } = await import("rolldown");
  const built = await rolldown({
    input: path.join(root, entry),
    platform: "node",
    cwd: root,
    tsconfig: path.join(root, "tsconfig.json"),
    resolve: { alias: { "server-only": path.join(root, "node_modules", "server-only", "empty.js") } },
    external: (id) => id !== "server-only" && isPackage(id),
    logLevel: "warn",
  });
  try {
    await built.write({ file, format: "esm" });
  } finally {
    await built.close();
  }
}

/**
 * Bundles `entry` (relative to the repository), runs its `main(process.argv.slice(2))` and exits.
 * @param {{ entry: string, name: string, label: string, failCode: number }} tool
 *   `name` names the cache folder and file, `label` the tool in the failure line.
 */
export async function runTsTool({ entry, name, label, failCode }) {
  const dir = path.join(root, "node_modules", ".cache", `astrion-${name}`);
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}-${process.pid}.mjs`);
  let code = failCode;
  try {
    await bundle(entry, file);
    const { main } = await import(pathToFileURL(file).href);
    code = await main(process.argv.slice(2));
  } catch (error) {
    console.error(`[astrion] ${label} could not run: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    rmSync(file, { force: true });
  }
  process.exit(code);
}
