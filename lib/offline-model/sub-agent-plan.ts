/**
 * What the offline sub-agent looks at next, like a careful person new to the project: the top
 * level, then the README and the manifest, the entry points the manifest declares, the folders
 * that hold the code (source first; built output only when there is no source; generated and
 * vendored files never), a test file, then searches for the goal's own terms, a name the code
 * defines, and the import lines that show how the modules fit. Every budget is a small constant,
 * so a 20,000-file project costs what a small one does. Pure.
 */
import { extOf, fileKind, isTestPath } from "./files";
import { callKey, normalPath, type Known } from "./known";
import { baseOf, dirRole, GENERATED_FILE, type Entry } from "./project-map";
import { goalTerms, nameTokens, type RoleKind, type Situation } from "./sub-agent-situation";
import { tokenize } from "./text";

/** Files read for one task. */
const MAX_READS = 8;
/** Files read in one call. */
const READS_PER_STEP = 3;
/** Characters of the files read in one call, when their sizes are known (what one scene item keeps uncut). */
const READ_STEP_CHARS = 4_000;
/** The size assumed for a file whose size no listing in view gave. */
const UNKNOWN_SIZE = 2_000;
/** Folders listed for one task. */
const MAX_LISTS = 5;
/** Searches for one task. */
const MAX_SEARCHES = 3;

const BINARY = /\.(png|jpe?g|gif|ico|webp|bmp|svg|woff2?|ttf|otf|eot|pdf|zip|gz|tgz|tar|mp3|mp4|mov|exe|dll|so|dylib|bin|wasm|pyc|class|jar|lockb)$/i;
/** Files that start a program: worth reading to see how the parts fit. */
const ENTRY_NAME = /^(index|main|app|server|cli|mod|lib|__init__|__main__|setup)\.[a-z0-9]+$/i;

/** Folder names every project has: a goal naming `src/x` says nothing about other folders named src. */
const STRUCTURAL = new Set(["src", "lib", "app", "apps", "dist", "build", "test", "tests", "packages", "docs", "source", "pkg"]);

/** A tool call the agent will make. */
export interface PlannedCall {
  name: string;
  args: Record<string, unknown>;
}

/** Folders and files the goal names (`lib/store`, `src/auth.ts`), in goal order. */
function goalPaths(goal: string): string[] {
  const out: string[] = [];
  for (const m of goal.matchAll(/(?:^|[\s"'`(“])((?:\.{0,2}\/)?[\w@.-]+(?:\/[\w@.-]+)+\/?|[\w-]+\.(?:ts|tsx|js|jsx|mjs|cjs|py|go|rs|java|rb|php|md|json|ya?ml|toml|css|html|sh))(?=$|[\s"'`),.;:!?”，。])/g)) {
    const p = normalPath(m[1]!.replace(/[.,;:]+$/, ""));
    if (p !== "." && !p.startsWith("..") && !out.includes(p)) out.push(p);
  }
  return out.slice(0, 3);
}

/** Whether `path` lies inside (or is) one of `dirs`. */
function within(path: string, dirs: readonly string[]): boolean {
  return dirs.some((d) => path === d || path.startsWith(`${d}/`));
}

/** What the project shows so far of where its code is. */
interface CodeShape {
  /** The top level has a source folder (src, lib, packages…) or a folder of its own code. */
  hasSource: boolean;
  /** Entry points the manifests read declare. */
  entries: Set<string>;
}

function codeShape(k: Known): CodeShape {
  const root = k.listings.find((l) => l.path === ".");
  const rootDirs = [...(root?.dirs ?? []), ...k.entries.filter((e) => e.type === "dir" && !e.path.includes("/")).map((e) => e.path)];
  return {
    hasSource: rootDirs.some((d) => dirRole(d) === "source" || (dirRole(d) === "other" && !/^(bin|etc|config|conf|tools|types|typings)$/i.test(d))),
    entries: new Set(k.files.flatMap((f) => f.entries.map((e) => e.path))),
  };
}

/** Scores of the files and folders in view for this agent and goal (null: never). */
function scorer(kind: RoleKind, goal: string, hits: ReadonlyMap<string, number>, shape: CodeShape) {
  const taskTokens = tokenize(goal);
  const named = goalPaths(goal);
  // the goal's words in a name, not counting the usual folder names ("src" of `src/billing` is no sign)
  const overlap = (path: string) => [...tokenize(nameTokens(path).filter((t) => !STRUCTURAL.has(t)).join(" "))].filter((t) => taskTokens.has(t)).length * 3;
  const codeFolder = (path: string): number | null => {
    // the folders a file is in: vendored never; built output only when there is no source
    const dir = path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "";
    if (!dir) return 0;
    const roles = dir.split("/").map((_, i, segs) => dirRole(segs.slice(0, i + 1).join("/")));
    if (roles.includes("vendored")) return null;
    if (roles.includes("built")) return shape.hasSource ? null : 3;
    if (roles.includes("aside")) return 0;
    return 3;
  };
  return {
    file(e: Entry): number | null {
      if (baseOf(e.path).startsWith(".") || GENERATED_FILE.test(e.path) || BINARY.test(e.path) || (e.size ?? 0) > 200_000) return null;
      const folder = codeFolder(e.path);
      if (folder === null) return null;
      const fk = fileKind(e.path);
      const ext = extOf(e.path);
      const top = !e.path.includes("/");
      let sc = 0;
      if (fk === "readme") sc += top ? 6 : 1;
      if (fk === "manifest" || baseOf(e.path) === "setup.py") sc += top ? 5 : 2;
      const uiFile = fk === "markup" || fk === "style" || ["tsx", "jsx", "vue", "svelte"].includes(ext);
      if (fk === "source") sc += kind === "ui" && !uiFile ? 0 : 1 + folder;
      if (e.path.endsWith(".d.ts")) sc -= 3;
      if (shape.entries.has(e.path)) sc += 8;
      if (fk === "source" && ENTRY_NAME.test(baseOf(e.path))) sc += 3;
      if (isTestPath(e.path)) sc += kind === "testing" ? 4 : 1;
      if (kind === "ui" && uiFile) sc += 6;
      if (kind === "docs" && (fk === "readme" || fk === "doc")) sc += 3;
      if (kind === "testing" && /(vitest|jest|playwright|pytest|karma)\.config|^pytest\.ini$|conftest\.py$/.test(e.path)) sc += 2;
      if (/^(gnu)?makefile$/i.test(baseOf(e.path)) && top) sc += 1;
      if (within(e.path, named)) sc += 6;
      sc += overlap(e.path) + Math.min(6, 2 * (hits.get(e.path) ?? 0));
      return sc - 0.5 * (e.path.split("/").length - 1);
    },
    dir(e: Entry): number | null {
      const role = dirRole(e.path);
      if (role === "vendored") return null;
      if (role === "built" && shape.hasSource) return null;
      const depth = e.path.split("/").length;
      let sc = overlap(e.path) + (named.some((n) => n === e.path || n.startsWith(`${e.path}/`)) ? 8 : 0);
      if (role === "source") sc += /^(packages|apps)$/.test(baseOf(e.path)) ? 5 : 4;
      else if (role === "built") sc += 3;
      else if (role === "other") sc += depth === 1 ? 3 : 2;
      if (role === "aside") {
        const base = baseOf(e.path).toLowerCase();
        if (/^(test|tests|__tests__|spec|e2e)$/.test(base)) sc += kind === "testing" ? 4 : 2;
        else if (kind === "docs" && /^(docs|doc|documentation)$/.test(base)) sc += 4;
        else if (kind === "ui" && /^(public|static|assets)$/.test(base)) sc += 3;
        else sc -= 1;
      }
      // a package of a monorepo, and the source folder inside one
      if (/(^|\/)(packages|apps)\/[^/]+$/.test(e.path)) sc += 3;
      if (depth > 1 && baseOf(e.path) === "src") sc += 2;
      return sc - 0.5 * (depth - 1);
    },
  };
}

/** The entries a listing's note keeps: the most relevant files and folders, and the tests seen. */
export function pickerFor(kind: RoleKind, goal: string) {
  const score = scorer(kind, goal, new Map(), { hasSource: true, entries: new Set() });
  return (entries: readonly Entry[]) => {
    const ranked = (type: string, n: number) =>
      entries
        .map((e, i) => ({ e, i, s: e.type === type ? (type === "file" ? score.file(e) : score.dir({ ...e })) : null }))
        .filter((x): x is { e: Entry; i: number; s: number } => x.s !== null)
        .sort((a, b) => b.s - a.s || a.i - b.i)
        .slice(0, n)
        .map((x) => x.e.path);
    // at most half of the files kept are tests, so the code under test is kept too
    const files: string[] = [];
    let tests = 0;
    for (const f of ranked("file", entries.length)) {
      if (files.length >= 6) break;
      if (isTestPath(f) && tests >= 3) continue;
      if (isTestPath(f)) tests++;
      files.push(f);
    }
    // every folder, built ones included (whether to read them is decided later), up to 8
    const dirs = entries.filter((e) => e.type === "dir" && dirRole(e.path) !== "vendored").map((e) => e.path);
    const rankedDirs = [...ranked("dir", 8), ...dirs.filter((d) => dirRole(d) === "built")].filter((d, i, all) => all.indexOf(d) === i).slice(0, 8);
    return { dirs: rankedDirs, files, tests: entries.filter((e) => e.type === "file" && isTestPath(e.path)).slice(0, 3).map((e) => e.path) };
  };
}

/** The tokens of every name the agent has seen: file and folder names, definitions. */
function vocabulary(k: Known): Set<string> {
  const out = new Set<string>();
  const add = (name: string) => nameTokens(name).forEach((t) => out.add(t));
  for (const e of k.entries) add(e.path);
  for (const l of k.listings) [...l.dirs, ...l.files, ...l.tests].forEach(add);
  for (const f of k.files) [f.path, ...f.exports, ...(f.packageName ? [f.packageName] : [])].forEach(add);
  return out;
}

/** The test or build command the project gives for what the goal asks to run, or null. */
function commandFor(run: "test" | "build", k: Known): string | null {
  const pkg = k.files.find((f) => f.path === "package.json");
  if (pkg?.scripts[run]) return run === "test" ? "npm test" : "npm run build";
  const make = k.files.find((f) => /^(gnu)?makefile$/i.test(f.path));
  if (make?.targets.includes(run)) return `make ${run}`;
  if (run === "test") {
    const py = k.files.some((f) => f.path === "pyproject.toml" || f.path === "setup.py" || f.path === "setup.cfg" || f.path === "pytest.ini");
    const pyTests = [...k.listings.flatMap((l) => l.tests), ...k.files.map((f) => f.path)].some((p) => p.endsWith(".py") && isTestPath(p));
    if (py && pyTests) return "python -m pytest -q";
  }
  return null;
}

/** The next calls: what is left to look at, most relevant first; [] when it is time to report. */
export function plan(s: Situation, k: Known, offered: ReadonlySet<string>): PlannedCall[] {
  const out: PlannedCall[] = [];
  const add = (name: string, args: Record<string, unknown>) => {
    if (!offered.has(name)) return false;
    const key = callKey(name, args);
    if (k.done.has(key) || out.some((c) => callKey(c.name, c.args) === key)) return false;
    out.push({ name, args });
    return true;
  };
  const count = (prefix: string) => [...k.done].filter((d) => d.startsWith(prefix)).length;
  const goal = s.goal || s.task;
  const named = goalPaths(goal);
  const isFile = (p: string) => /\.[a-z0-9]+$/i.test(baseOf(p));

  // The top level alone first: it is small, so the context window never cuts it, and it says
  // where the README, the manifest and the code are.
  if (!k.done.has("listed .")) {
    add("list_files", { path: "." });
    for (const p of named) if (isFile(p)) add("read_file", { path: p });
    return out;
  }
  for (const p of named) add(isFile(p) ? "read_file" : "list_files", { path: p });

  const hits = new Map<string, number>();
  for (const q of k.searches) for (const h of q.hits) hits.set(h.path, (hits.get(h.path) ?? 0) + 1);
  const shape = codeShape(k);
  const score = scorer(s.kind, goal, hits, shape);
  // Candidates: every entry in view, the files the notes kept from earlier listings, search hits.
  const seen = new Map<string, Entry>();
  for (const e of k.entries) seen.set(e.path, e);
  for (const l of k.listings) {
    for (const f of [...l.files, ...l.tests]) if (!seen.has(f)) seen.set(f, { path: f, type: "file" });
    for (const d of l.dirs) if (!seen.has(d)) seen.set(d, { path: d, type: "dir" });
  }
  for (const p of hits.keys()) if (!seen.has(p)) seen.set(p, { path: p, type: "file" });
  const listed = new Set([...k.done].filter((d) => d.startsWith("listed ")).map((d) => d.slice(7)));
  // An entry point in a folder not listed yet is read all the same: the manifest names it.
  for (const p of shape.entries) if (!seen.has(p)) seen.set(p, { path: p, type: "file" });

  const readsLeft = MAX_READS - count("read ");
  const basicsRead = k.files.some((f) => fileKind(f.path) === "manifest" || fileKind(f.path) === "readme") || count("read ") > 0;

  // A command the goal asks for runs once the manifest says which it is (alone in its step: a
  // person may have to approve it first).
  if (s.run && offered.has("run_command") && !k.done.has("ran") && basicsRead) {
    const command = commandFor(s.run, k);
    if (command) return [{ name: "run_command", args: { command, timeout_seconds: 600 } }];
  }

  const rootListing = k.listings.find((l) => l.path === ".");
  if (rootListing?.omitted && ![...seen.keys()].some((p) => !p.includes("/") && fileKind(p) === "readme")) seen.set("README.md", { path: "README.md", type: "file" });
  const ranked = (type: string) =>
    [...seen.values()]
      .map((e, i) => ({ e, i, s: e.type === type ? (type === "file" ? score.file(e) : score.dir(e)) : null }))
      .filter((x): x is { e: Entry; i: number; s: number } => x.s !== null)
      .sort((a, b) => b.s - a.s || a.i - b.i)
      .map((x) => x.e.path);

  // A step's reads share one scene item: files that together fit its share are read together.
  let planned = 0;
  const testRead = k.files.some((f) => f.isTest);
  // The README and the manifests at the top say what the project claims, how it is built and
  // tested, and where its code starts: read first, whatever else scores high.
  const basics = [...seen.values()]
    .filter((e) => e.type === "file" && !e.path.includes("/") && (["readme", "manifest"].includes(fileKind(e.path)) || e.path === "setup.py" || (s.run !== null && /^(gnu)?makefile$/i.test(e.path))))
    .map((e) => e.path);
  const files = [...basics, ...ranked("file").filter((f) => !basics.includes(f))];
  // one test file among the reads, so the report can say what the tests cover
  const firstTest = !testRead && s.kind !== "testing" && count("read ") >= 3 ? files.find((f) => isTestPath(f)) : undefined;
  for (const path of [...(firstTest ? [firstTest] : []), ...files]) {
    const reads = out.filter((c) => c.name === "read_file").length;
    if (reads >= Math.min(READS_PER_STEP, readsLeft)) break;
    const size = seen.get(path)?.size ?? UNKNOWN_SIZE;
    // the README and a manifest are read alone, so the context window never cuts what they say
    const basic = basics.includes(path);
    if (reads > 0 && (basic || planned + size > READ_STEP_CHARS)) continue;
    // at most three tests among the reads, so the code under test is read too
    if (isTestPath(path) && k.files.filter((f) => f.isTest).length + out.filter((c) => c.name === "read_file" && isTestPath(String(c.args.path))).length >= 3) continue;
    if (add("read_file", { path })) {
      planned += size;
      if (basic) break;
    }
  }
  if (count("listed ") < MAX_LISTS) {
    // a folder already listed, or one above a folder already listed, shows nothing new
    const dir = ranked("dir").find((d) => !listed.has(d) && ![...listed].some((l) => l.startsWith(`${d}/`)));
    const dirScoreNow = dir ? (score.dir({ path: dir, type: "dir" }) ?? 0) : 0;
    // Descend when the folder is clearly where the code or the goal is, or nothing here is worth reading.
    if (dir && (dirScoreNow >= 2 || (out.length === 0 && k.files.length === 0))) add("list_files", { path: dir });
  }

  const searches = k.searches.length + k.failed.filter((f) => f.key.startsWith("searched")).length;
  if (searches < MAX_SEARCHES && !out.some((c) => c.name === "search_files")) {
    const goalDir = named.find((p) => !isFile(p));
    const terms = goalTerms(goal, vocabulary(k));
    const searched = (q: string) => k.done.has(callKey("search_files", { query: q })) || k.searches.some((x) => x.query.toLowerCase() === q.toLowerCase());
    const term = terms.find((t) => !searched(t) && !(goalDir && k.done.has(callKey("search_files", { query: t, path: goalDir }))));
    // the goal's own term first (where the goal points), then a name the code defines, then the imports
    const defined = k.files
      .filter((f) => !f.isTest)
      .sort((a, b) => Number(shape.entries.has(b.path)) - Number(shape.entries.has(a.path)))
      .flatMap((f) => f.exports)
      .find((n) => n.length >= 4 && !/^[A-Z0-9_]+$/.test(n) && !searched(n));
    const codeRead = k.files.some((f) => fileKind(f.path) === "source");
    const usesRequire = k.files.some((f) => f.path.endsWith(".cjs")) && !k.files.some((f) => /\.(mjs|ts|tsx)$/.test(f.path));
    const importQuery = k.files.some((f) => f.path.endsWith(".py")) ? "import " : usesRequire ? "require(" : "import ";
    const definedNames = new Set(k.files.flatMap((f) => f.exports));
    const identifierSearched = k.searches.some((q) => definedNames.has(q.query));
    const importSearched = k.searches.some((q) => q.modules || /^(import |require\()$/.test(q.query));
    if (term && k.searches.length === 0) add("search_files", goalDir ? { query: term, path: goalDir } : { query: term });
    else if (defined && codeRead && !identifierSearched) add("search_files", { query: defined });
    else if (codeRead && !importSearched) {
      // in the folder that holds the code, so the lines found are the code's own
      const codeFile = k.files.find((f) => fileKind(f.path) === "source" && !f.isTest && f.path.includes("/")) ?? k.files.find((f) => fileKind(f.path) === "source" && f.path.includes("/"));
      const where = goalDir ?? codeFile?.path.split("/")[0];
      add("search_files", where ? { query: importQuery, path: where } : { query: importQuery });
    }
    else if (term) add("search_files", { query: term });
  }
  return out;
}
