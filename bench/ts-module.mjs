/**
 * Imports TypeScript files of the repository into this plain Node process: TypeScript's
 * `transpileModule` turns each into a temporary .mjs file, so the bench runs exactly the code the
 * app and the tests run, without a copy to keep in step. `importTsModule` takes one file that
 * imports only Node built-ins (checked); `importTsGraph` also takes the repository files it
 * imports (`@/…` and relative paths), and packages are loaded from the repository's node_modules.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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

const SPECIFIERS = /^(\s*(?:import|export)\b[^;]*?\bfrom\s+["'])([^"']+)(["'])/gm;

function transpile(source, fileName) {
  return ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
    fileName,
  }).outputText;
}

/** The repository file a local specifier names (`@/lib/x`, `./y`), with its extension. */
function resolveLocal(specifier, fromFile) {
  const base = specifier.startsWith("@/") ? path.join(ROOT, specifier.slice(2)) : path.resolve(path.dirname(fromFile), specifier);
  const found = [`${base}.ts`, `${base}.tsx`, path.join(base, "index.ts"), base].find((f) => existsSync(f) && f.match(/\.tsx?$/));
  if (!found) throw new Error(`cannot resolve ${specifier} from ${path.relative(ROOT, fromFile)}`);
  return found;
}

/**
 * Imports the repository files `relativePaths` and every repository file they import, transpiled
 * into one temporary folder (so modules they share are loaded once). Returns their modules, in
 * order, and a `cleanup()`. `allowServerOnly` drops `import "server-only"` (a marker for Next's
 * bundler, which throws outside it) for a bench that runs server modules in plain Node.
 */
export async function importTsGraph(relativePaths, { allowServerOnly = false } = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "astrion-bench-ts-"));
  const out = (file) => path.join(dir, path.relative(ROOT, file)).replace(/\.tsx?$/, ".mjs");
  const done = new Set();
  const pending = relativePaths.map((p) => path.join(ROOT, p));
  while (pending.length) {
    const file = pending.pop();
    if (done.has(file)) continue;
    done.add(file);
    let source = transpile(readFileSync(file, "utf8"), path.basename(file));
    if (allowServerOnly) source = source.replace(/^import ["']server-only["'];?$/m, "");
    const code = source.replace(SPECIFIERS, (all, head, specifier, tail) => {
      if (specifier.startsWith("node:")) return all;
      if (specifier.startsWith("@/") || specifier.startsWith(".")) {
        const target = resolveLocal(specifier, file);
        pending.push(target);
        let rel = path.relative(path.dirname(out(file)), out(target));
        if (!rel.startsWith(".")) rel = `./${rel}`;
        return `${head}${rel}${tail}`;
      }
      if (specifier === "server-only") throw new Error(`${path.relative(ROOT, file)} is server-only; the bench loads pure modules only`);
      // a package: the copy in the repository's node_modules
      return `${head}${import.meta.resolve(specifier)}${tail}`;
    });
    mkdirSync(path.dirname(out(file)), { recursive: true });
    writeFileSync(out(file), code);
  }
  const mods = [];
  for (const p of relativePaths) mods.push(await import(pathToFileURL(out(path.join(ROOT, p))).href));
  return { mods, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

