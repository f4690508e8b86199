#!/usr/bin/env node
/**
 * `npm run bench [-- <part>[,<part>…]]`: drives the real built server over HTTP on loopback,
 * each part with its own temporary data folder and server, and prints one JSON object (figures in
 * milliseconds unless named otherwise). Parts, all by default:
 * - serializer (bench/serializer.mjs): the Python-style JSON writer against JSON.stringify on a
 *   1,000-message leader messages.json;
 * - context (bench/context.mjs): the context of one leader model call at 10, 1,000 and 10,000
 *   messages of history, built from scratch and incrementally (no server);
 * - store (bench/store.mjs): creating conversations, listing the index as it grows to 500, listing
 *   202 corpus roles, saving one role field;
 * - index (bench/index-scale.mjs): one page of the index and searches (title, project folder, a
 *   miss) at 100 and 10,000 conversations (written on disk in the seed's format before the server
 *   starts), and the cost of the whole-file index.json rewrite: per rename, and over one offline run;
 * - engine (bench/engine.mjs): the app against its floor, a bare `openai` tool loop, against a
 *   baseline build (the landed commit before issue 28, on Node 20) and against its peers (OpenAI
 *   Agents JS, LangGraph.js with its SQLite and PostgreSQL checkpointers), on the same workloads (a
 *   user's: 50-chunk text answers, follow-ups, a wake per report; the old short one) and fake
 *   model: wall and CPU per model call at 1 and 10 conversations at once, with and without
 *   creating the conversation, where the difference between the workloads goes, and the servers'
 *   memory over 200 conversations; the current build also on PostgreSQL + Redis (the cluster
 *   LangGraph's PostgreSQL checkpointer uses, and a redis-server: bench/scaled.mjs), and as two
 *   such instances at once beside one;
 * - search (bench/search.mjs): the history search at 10,000 conversations × 50 messages: the
 *   index rebuilt from the seed files, and queries with and without filters over HTTP;
 * - knowledge (bench/knowledge.mjs): search_knowledge's service over a generated 3,000-file project
 *   (build throughput, refreshes, search median) and the 50-question retrieval benchmark;
 * - memory (bench/memory.mjs): memory recall over 10,000 entries, BM25 and hybrid (vectors from
 *   the fake embedding endpoint), with the access filter;
 * - overhead, grow, sse (bench/runtime.mjs): per-call orchestration gaps, a leader turn and the
 *   202 accept time as a conversation grows to 1,000 messages, SSE delivery under load.
 * Request loops are bounded; nothing leaves this machine. Progress goes to stderr.
 *
 * Options: `--baseline <commit>` (or BENCH_BASELINE): the commit the engine part measures beside
 * this checkout (default: the landed commit before issue 28, bench/baseline.mjs; `none`: no
 * baseline); `--peers <peer>[,<peer>…]|all|none` (or BENCH_PEERS): the peers the engine part
 * measures (default all, bench/peer-install.mjs; installed once into a cache folder); `--help`.
 * The engine part's knobs are environment variables, listed in bench/engine.mjs
 * (BENCH_ENGINE_REPS, _RUNS, _ROUNDS, _MEMORY_RUNS, _WARMUP, _VARIANTS, _CPU_PROF).
 */
import os from "node:os";
import { ensureBuild } from "../scripts/build-state.mjs";
import { benchContext } from "./context.mjs";
import { benchEngine } from "./engine.mjs";
import { benchIndex } from "./index-scale.mjs";
import { benchKnowledge } from "./knowledge.mjs";
import { benchMemory } from "./memory.mjs";
import { closeAgent, ROOT } from "./lib.mjs";
import { PEERS, peersAsked } from "./peer-install.mjs";
import { benchRuntime, RUNTIME_PARTS } from "./runtime.mjs";
import { benchSearch } from "./search.mjs";
import { benchSerializer } from "./serializer.mjs";
import { benchStore } from "./store.mjs";

const PARTS = ["serializer", "context", "store", "index", "search", "knowledge", "memory", "engine", ...RUNTIME_PARTS];
const ALIASES = { runtime: RUNTIME_PARTS };
const argv = process.argv.slice(2);
if (argv.includes("--help") || argv.includes("-h")) {
  console.log(
    `npm run bench [-- <part>[,<part>…]] [--baseline <commit>|none] [--peers <peer>[,<peer>…]|all|none]\nParts: ${PARTS.join(", ")} (runtime = ${RUNTIME_PARTS.join(",")}).\n` +
      "The engine part measures the floor, this checkout and a baseline build (default: the landed commit before issue 28, on /usr/bin/node); see bench/engine.mjs and bench/baseline.mjs.\n" +
      `--peers: the frameworks the engine part measures beside them (default all: ${PEERS.join(", ")}; none skips them), installed once into ~/.cache/astrion-bench/peers-<hash>; see bench/peers.mjs.`,
  );
  process.exit(0);
}
// Options that take a value; what is left names parts.
const FLAGS = { "--baseline": "a commit (or none)", "--peers": `a list of ${PEERS.join(", ")} (or all, or none)` };
const flagged = new Set();
for (const [flag, what] of Object.entries(FLAGS)) {
  const at = argv.indexOf(flag);
  if (at < 0) continue;
  if (!argv[at + 1] || argv[at + 1].startsWith("--")) {
    console.error(`${flag} needs ${what}.`);
    process.exit(2);
  }
  flagged.add(at).add(at + 1);
}
try {
  peersAsked(argv);
} catch (error) {
  console.error(error.message);
  process.exit(2);
}
const asked = argv
  .filter((_, i) => !flagged.has(i))
  .flatMap((a) => a.split(","))
  .filter(Boolean);
const unknown = asked.filter((p) => !PARTS.includes(p) && !Object.hasOwn(ALIASES, p));
if (unknown.length) {
  console.error(`Unknown bench part(s): ${unknown.join(", ")}. Parts: ${PARTS.join(", ")} (runtime = ${RUNTIME_PARTS.join(",")}).`);
  process.exit(2);
}
const selected = new Set(asked.length ? asked.flatMap((p) => (Object.hasOwn(ALIASES, p) ? ALIASES[p] : [p])) : PARTS);
const has = (p) => selected.has(p);

const machine = () => ({
  cpus: os.cpus().length,
  cpu: os.cpus()[0]?.model,
  memory_gb: +(os.totalmem() / 2 ** 30).toFixed(1),
  node: process.version,
  platform: `${os.platform()} ${os.release()}`,
  load_average_1_5_15: os.loadavg().map((x) => +x.toFixed(2)),
});

// Built first when the build is missing or stale (as `npm start` does), so no part's server waits
// for a build: a build on a loaded machine took longer than a server is given to start.
const built = await ensureBuild(ROOT, { ...process.env, NEXT_TELEMETRY_DISABLED: "1" }, { toStderr: true });
if (built !== 0) {
  console.error("The build failed; see the output above.");
  process.exit(built);
}

const started = Date.now();
const before = machine();
try {
  const result = {};
  if (has("serializer")) Object.assign(result, await benchSerializer());
  if (has("context")) Object.assign(result, await benchContext());
  if (has("store")) Object.assign(result, await benchStore());
  if (has("index")) Object.assign(result, await benchIndex());
  if (has("search")) Object.assign(result, await benchSearch());
  if (has("knowledge")) Object.assign(result, await benchKnowledge());
  if (has("memory")) Object.assign(result, await benchMemory());
  if (has("engine")) Object.assign(result, await benchEngine());
  const runtimeParts = RUNTIME_PARTS.filter(has);
  if (runtimeParts.length) Object.assign(result, await benchRuntime(runtimeParts));
  console.log(
    JSON.stringify(
      {
        parts: PARTS.filter(has),
        machine: before,
        load_average_at_end: os.loadavg().map((x) => +x.toFixed(2)),
        ...result,
        bench_seconds: Math.round((Date.now() - started) / 1000),
      },
      null,
      2,
    ),
  );
} finally {
  closeAgent();
}
