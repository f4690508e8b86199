/**
 * The engine bench's peers (issues 28 and 31): which frameworks it measures beside the floor and
 * the app, their exact versions (the one list of pins, each with its reason), and their install.
 *
 * They are NOT dependencies of this project: LangGraph's SQLite checkpointer needs better-sqlite3,
 * a native addon compiled from C++, which issue 28 keeps out of `npm install`. The bench installs
 * them on demand, once, into a cache folder beside the baseline's (bench/baseline.mjs):
 * `<cache>/peers-<hash of the pins and the Node version>/`, with `npm install --prefix <folder>
 * --no-save` and `npm_config_nodedir` pointing at the running Node's headers (the addon is built
 * for this Node's ABI, hence the Node version in the hash). A folder is reused once it holds
 * `.bench-ready` naming the same pins. The peers' child processes load the packages from there
 * with `createRequire` (see {@link peerRequire}), never from this checkout's node_modules.
 *
 * `npm run bench -- --peers none` (or BENCH_PEERS=none) measures no peer; `--peers agents,langgraph-sqlite`
 * a subset; the default is every peer ({@link PEERS}).
 */
import { createHash } from "node:crypto";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";

/**
 * The exact versions installed, with why each is pinned. Every package a peer imports is listed,
 * so a re-run measures the same code; what they pull in beyond these floats within their ranges.
 */
const PEER_PINS = {
  // OpenAI Agents JS, the version current when the peer was written (0.x: minor versions break API).
  "@openai/agents": "0.20.0",
  // LangGraph.js, current 1.x when the peer was written (issue 28 measured 1.7).
  "@langchain/langgraph": "1.7.3",
  // LangGraph's peer dependency; the line its 1.7 asks for (^1.3.4), current when written.
  "@langchain/core": "1.4.0",
  // LangChain's OpenAI chat model (ChatOpenAI), the model class a LangGraph user reaches for; current when written.
  "@langchain/openai": "1.6.0",
  // The checkpointers' shared base, a peer dependency of both; the version LangGraph 1.7.3 asks for (^1.2.2).
  "@langchain/langgraph-checkpoint": "1.2.2",
  // LangGraph's SQLite checkpointer (issue 28), current when written.
  "@langchain/langgraph-checkpoint-sqlite": "1.0.4",
  // LangGraph's PostgreSQL checkpointer (issue 31), current when written.
  "@langchain/langgraph-checkpoint-postgres": "1.0.5",
  // The SQLite checkpointer's driver: the newest 12.x its range (^12.10.0) allows; compiled here from C++.
  "better-sqlite3": "12.11.1",
  // The PostgreSQL checkpointer's driver: the version this project's PostgreSQL store uses (package.json).
  pg: "8.23.1",
  // The OpenAI client under both peers: the version the floor and the app run (package.json), so the client is not a difference.
  openai: "7.59.0",
  // Schemas of the peers' tools (a peer dependency of Agents JS and LangGraph): the version this project uses.
  zod: "4.6.7",
};

/** The peers the bench knows, by the name `--peers` takes. */
export const PEERS = ["agents", "langgraph-sqlite", "langgraph-postgres"];

const progress = (line) => process.stderr.write(`[bench peers] ${line}\n`);

/** The peers asked for: `--peers <list>|none|all` in `argv`, else BENCH_PEERS, else all. Throws on an unknown name. */
export function peersAsked(argv = process.argv.slice(2), env = process.env) {
  const i = argv.indexOf("--peers");
  const asked = (i >= 0 ? argv[i + 1] : env.BENCH_PEERS) ?? "all";
  if (asked === "none" || asked === "") return [];
  if (asked === "all") return [...PEERS];
  const names = asked.split(",").filter(Boolean);
  const unknown = names.filter((n) => !PEERS.includes(n));
  if (unknown.length) throw new Error(`Unknown --peers entry "${unknown.join(", ")}": ${PEERS.join(", ")}, all or none`);
  return names;
}

/** The cache folder shared with the baseline (bench/baseline.mjs). */
function cacheDir(env = process.env) {
  return env.BENCH_CACHE_DIR || path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"), "astrion-bench");
}

/**
 * The environment npm installs in: this Node first on PATH (npm, node-gyp and install scripts run
 * on it) and native addons built against its own headers (Debian's npm would take Node 20's).
 */
function installEnv(env = process.env) {
  const out = { ...env, PATH: `${path.dirname(process.execPath)}:${env.PATH ?? ""}` };
  for (const key of Object.keys(out)) if (/^npm_config_nodedir$/i.test(key)) delete out[key];
  out.npm_config_nodedir = path.resolve(path.dirname(process.execPath), "..");
  return out;
}

/**
 * Installs the pinned peers (once; reused after) and returns their folder, whose node_modules
 * {@link peerRequire} loads from. Prints a progress line when it installs. Throws with npm's exit.
 */
export function preparePeers(env = process.env) {
  const want = JSON.stringify({ pins: PEER_PINS, node: process.version });
  const hash = createHash("sha256").update(want).digest("hex").slice(0, 12);
  const dir = path.join(cacheDir(env), `peers-${hash}`);
  const ready = path.join(dir, ".bench-ready");
  if (existsSync(ready) && readFileSync(ready, "utf8") === want) return dir;
  const started = Date.now();
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  // A package.json of its own, so npm does not walk up to another project's.
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "astrion-bench-peers", private: true }));
  const specs = Object.entries(PEER_PINS).map(([name, version]) => `${name}@${version}`);
  progress(`installing the peers into ${dir} (once; better-sqlite3 compiles from C++, a few minutes)`);
  const r = spawnSync("npm", ["install", "--prefix", dir, "--no-save", "--no-audit", "--no-fund", "--loglevel=error", ...specs], {
    cwd: dir,
    env: installEnv(env),
    stdio: ["ignore", 2, 2],
  });
  if (r.status !== 0) throw new Error(`npm install of the peers into ${dir} failed with ${r.status ?? r.signal}`);
  writeFileSync(ready, want);
  progress(`peers ready in ${Math.round((Date.now() - started) / 1000)} s`);
  return dir;
}

/** A `require` that loads the peers' packages from `dir` (as prepared by {@link preparePeers}). */
export function peerRequire(dir) {
  return createRequire(path.join(dir, "package.json"));
}

/** The installed version of each pinned package in `dir` (what the report names). */
export function installedVersions(dir) {
  return Object.fromEntries(
    Object.keys(PEER_PINS).map((name) => [name, JSON.parse(readFileSync(path.join(dir, "node_modules", name, "package.json"), "utf8")).version]),
  );
}
