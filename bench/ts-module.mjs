/**
 * Imports a TypeScript file of the repository into this plain Node process: TypeScript's
 * `transpileModule` turns it into a temporary .mjs file, so the bench runs exactly the code the
 * app and the tests run, without a copy to keep in step. The file must import only Node
 * built-ins (checked here), since the temporary file sits outside the repository.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";
import { ROOT } from "./lib.mjs";

/** Imports `relativePath` (from the repository root); returns its module and a `cleanup()` that removes the temporary file. */
export async function importTsModule(relativePath) {
  const source = readFileSync(path.join(ROOT, relativePath), "utf8");
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
    fileName: path.basename(relativePath),
  });
  const specifiers = [...outputText.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+["']([^"']+)["']/gm)].map((m) => m[1]);
  const foreign = specifiers.filter((s) => !s.startsWith("node:"));
  if (foreign.length) throw new Error(`${relativePath} imports more than Node built-ins: ${foreign.join(", ")}`);
  const dir = mkdtempSync(path.join(os.tmpdir(), "astrion-bench-ts-"));
  const file = path.join(dir, `${path.basename(relativePath, ".ts")}.mjs`);
  writeFileSync(file, outputText);
  const mod = await import(pathToFileURL(file).href);
  return { mod, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
