/**
 * What a project's manifest says about where its code starts: the entry points package.json
 * declares (`main`, `module`, `exports`, `bin`), the console scripts of pyproject.toml and
 * setup.py, and the test and build commands its scripts or its Makefile give. The offline
 * sub-agent reads the entry points first and runs the commands a goal asks for. Pure.
 */
import { isRecord } from "./text";

/** An entry point a manifest declares: the field that names it and the file (project-relative). */
export interface EntryPoint {
  field: string;
  path: string;
}

/** At most this many entry points are kept per manifest: the first say where the code starts. */
const MAX_ENTRIES = 4;

/** A manifest path as a project-relative file path (no `./`), or null for a glob or an outside path. */
function relative(dir: string, p: string): string | null {
  const clean = p.trim().replace(/^\.\//, "");
  if (!clean || clean.includes("*") || clean.startsWith("/") || clean.startsWith("..")) return null;
  return dir ? `${dir}/${clean}` : clean;
}

/** The first string values of a package.json `exports` tree, in document order. */
function exportTargets(value: unknown, out: string[], depth = 0): void {
  if (out.length >= MAX_ENTRIES || depth > 4) return;
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const v of value) exportTargets(v, out, depth + 1);
  else if (isRecord(value)) {
    // the root entry first; type declarations are not code
    const keys = Object.keys(value).sort((a, b) => Number(b === ".") - Number(a === "."));
    for (const k of keys) if (k !== "types" && !k.endsWith(".json")) exportTargets(value[k], out, depth + 1);
  }
}

/** The entry points of a parsed package.json at `dir` ("" for the project root). */
export function packageEntries(pkg: Record<string, unknown>, dir = ""): EntryPoint[] {
  const out: EntryPoint[] = [];
  const add = (field: string, p: unknown) => {
    if (typeof p !== "string" || out.length >= MAX_ENTRIES) return;
    const path = relative(dir, p);
    if (path && /\.(c|m)?(j|t)sx?$/.test(path) && !path.endsWith(".d.ts") && !out.some((e) => e.path === path)) out.push({ field, path });
  };
  add("main", pkg.main);
  add("module", pkg.module);
  const targets: string[] = [];
  exportTargets(pkg.exports, targets);
  for (const t of targets) add("exports", t);
  if (typeof pkg.bin === "string") add("bin", pkg.bin);
  else if (isRecord(pkg.bin)) for (const [name, p] of Object.entries(pkg.bin)) add(`bin ${name}`, p);
  return out;
}

/** `pkg.cli:main` → `pkg/cli.py`. */
function moduleFile(target: string): string | null {
  const mod = /^\s*([A-Za-z_][\w.]*)\s*(?::[\w.]+)?\s*$/.exec(target)?.[1];
  return mod ? `${mod.split(".").join("/")}.py` : null;
}

/** The console scripts of pyproject.toml (`[project.scripts]`, `[tool.poetry.scripts]`), as entry points. */
export function pyprojectEntries(text: string): EntryPoint[] {
  const out: EntryPoint[] = [];
  let inScripts = false;
  for (const raw of text.split("\n", 2000)) {
    const line = raw.trim();
    if (line.startsWith("[")) {
      inScripts = /^\[(project\.scripts|tool\.poetry\.scripts|project\.gui-scripts)\]$/.test(line);
      continue;
    }
    if (!inScripts || out.length >= MAX_ENTRIES) continue;
    const m = /^["']?([\w.-]+)["']?\s*=\s*["']([^"']{1,200})["']/.exec(line);
    const path = m ? moduleFile(m[2]!) : null;
    if (m && path) out.push({ field: `script ${m[1]}`, path });
  }
  return out;
}

/** The console scripts of a setup.py (`entry_points={"console_scripts": ["name = pkg.cli:main"]}`). */
export function setupPyEntries(text: string): EntryPoint[] {
  const block = /console_scripts["']?\s*[:=]\s*\[([^\]]{0,2000})\]/.exec(text.slice(0, 50_000))?.[1] ?? "";
  const out: EntryPoint[] = [];
  for (const m of block.matchAll(/["']\s*([\w.-]+)\s*=\s*([\w.]+(?::[\w.]+)?)\s*["']/g)) {
    const path = moduleFile(m[2]!);
    if (path && out.length < MAX_ENTRIES) out.push({ field: `script ${m[1]}`, path });
  }
  return out;
}

/** The targets of a Makefile (`name:` at the start of a line), in order. */
export function makeTargets(text: string): string[] {
  const out: string[] = [];
  for (const m of text.slice(0, 50_000).matchAll(/^([A-Za-z][\w.-]*)\s*:(?!=)/gm)) if (!out.includes(m[1]!)) out.push(m[1]!);
  return out.slice(0, 20);
}
