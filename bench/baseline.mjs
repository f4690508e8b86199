/**
 * The engine bench's baseline: another commit of this repository, exported into a cache folder
 * outside the checkout, installed and built there with its own Node, and served as its own
 * `npm start` served it, so the bench can drive it beside this checkout's build in one run.
 *
 * The default is the landed commit before issue 28 ("the engine as a component"): ad52894, the
 * newest commit with none of that issue's changes (no lib/contracts, no composition root, engines
 * ">=20.9.0", better-sqlite3 and openai 6 still in package.json); the next commit on main,
 * 1c8eb68, is issue 28's first. It landed on Node 20, so it is installed (`npm ci`: better-sqlite3
 * compiled against Node 20's own headers, npm_config_nodedir unset), built (`next build`) and
 * served with /usr/bin/node unless told otherwise.
 *
 * `BENCH_BASELINE` (or `--baseline <commit>`): the commit, or `none` to measure without one;
 * `BENCH_BASELINE_NODE`: its Node (default /usr/bin/node); `BENCH_CACHE_DIR`: the cache
 * (default `$XDG_CACHE_HOME/astrion-bench` or `~/.cache/astrion-bench`), one folder per commit
 * and Node version. A prepared folder is reused: it holds a `.bench-ready` file naming the commit
 * and the Node it was installed and built with. `BENCH_BASELINE_ALSO_NODE=<node>`: the same commit
 * is also prepared and measured on that Node (e.g. Node 24's), to tell the Node's part from the
 * code's.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT } from "./lib.mjs";

/** The landed commit before issue 28's work (see the header). */
const DEFAULT_BASELINE = "ad52894";
/** The Node the baseline landed on. */
export const DEFAULT_BASELINE_NODE = "/usr/bin/node";

const progress = (line) => process.stderr.write(`[bench baseline] ${line}\n`);

/** The cache folder for prepared baselines. */
function cacheDir(env = process.env) {
  return env.BENCH_CACHE_DIR || path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"), "astrion-bench");
}

/** `node`'s version (`v20.20.2`). */
function nodeVersion(node) {
  return execFileSync(node, ["--version"], { encoding: "utf8" }).trim();
}

/**
 * The environment the baseline is installed, built and served in: this process's, with the
 * baseline's Node first on PATH (npm and its install scripts run on it) and native builds pointed
 * at that Node's headers: for the default Node (/usr/bin/node) npm_config_nodedir is unset, and
 * Debian's npm builds against the system Node's headers (/usr/include/node); for another Node it
 * is that Node's own folder (Debian's npm would otherwise take the system Node's headers too).
 */
export function baselineEnv(node, env = process.env) {
  const out = { ...env, PATH: `${path.dirname(node)}:${env.PATH ?? ""}`, NEXT_TELEMETRY_DISABLED: "1" };
  for (const key of Object.keys(out)) if (/^npm_config_nodedir$/i.test(key)) delete out[key];
  const prefix = path.resolve(path.dirname(node), "..");
  if (node !== DEFAULT_BASELINE_NODE && existsSync(path.join(prefix, "include", "node"))) out.npm_config_nodedir = prefix;
  return out;
}

function run(command, args, options) {
  const r = spawnSync(command, args, { stdio: ["ignore", 2, 2], ...options });
  if (r.status !== 0) throw new Error(`${command} ${args.join(" ")} failed with ${r.status ?? r.signal} in ${options.cwd}`);
}

/**
 * Exports, installs and builds `commit` (once; reused after) and returns `{ root, commit, node,
 * nodeVersion }` for {@link startServer}. Throws with what failed.
 */
export function prepareBaseline({ commit = DEFAULT_BASELINE, node = DEFAULT_BASELINE_NODE, env = process.env } = {}) {
  const full = execFileSync("git", ["rev-parse", "--verify", `${commit}^{commit}`], { cwd: ROOT, encoding: "utf8" }).trim();
  const version = nodeVersion(node);
  // One folder per commit and Node: node_modules holds a native addon built for that Node.
  const root = path.join(cacheDir(env), `${full}-node${version.replace(/^v/, "")}`);
  const ready = path.join(root, ".bench-ready");
  const want = JSON.stringify({ commit: full, node, version });
  if (existsSync(ready) && readFileSync(ready, "utf8") === want && existsSync(path.join(root, ".next", "BUILD_ID"))) {
    return { root, commit: full, node, nodeVersion: version };
  }
  const started = Date.now();
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  progress(`exporting ${full.slice(0, 12)} into ${root}`);
  // git archive: the commit's files only; no worktree or ref is added to this repository.
  const archive = spawnSync("git", ["archive", "--format=tar", full], { cwd: ROOT, maxBuffer: 1 << 30 });
  if (archive.status !== 0) throw new Error(`git archive ${full} failed: ${archive.stderr}`);
  const untar = spawnSync("tar", ["-x", "-C", root], { input: archive.stdout });
  if (untar.status !== 0) throw new Error(`tar -x into ${root} failed: ${untar.stderr}`);
  const benv = baselineEnv(node, env);
  const npm = path.join(path.dirname(node), "npm");
  progress(`npm ci with ${node} (${version}); better-sqlite3 compiles, about 2 minutes`);
  run(existsSync(npm) ? npm : "npm", ["ci", "--no-audit", "--no-fund"], { cwd: root, env: benv });
  progress("next build");
  run(node, [path.join(root, "node_modules", "next", "dist", "bin", "next"), "build"], { cwd: root, env: benv });
  writeFileSync(ready, want);
  progress(`ready in ${Math.round((Date.now() - started) / 1000)} s`);
  return { root, commit: full, node, nodeVersion: version };
}

/** The baseline asked for: `--baseline <commit>` in `argv`, else BENCH_BASELINE, else the default; null for `none`. */
export function baselineAsked(argv = process.argv.slice(2), env = process.env) {
  const i = argv.indexOf("--baseline");
  const asked = i >= 0 ? argv[i + 1] : env.BENCH_BASELINE;
  if (asked === "none" || asked === "") return null;
  return asked ?? DEFAULT_BASELINE;
}
