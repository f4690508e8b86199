/**
 * The engine against its floor, in one run, on one fake model (bench/workload.mjs): the same
 * workload done by a bare `openai` tool loop (bench/floor.mjs) and by the real built server over
 * HTTP (a person's message posted to a conversation, a browser-like SSE viewer attached, the run
 * over when the viewer has received the leader's summary, the leader's `busy: false` after it and,
 * in the user workload, every worker's last answer), and by a baseline build of another commit
 * (bench/baseline.mjs; by default the landed commit before issue 28, served on Node 20) driven
 * the same way, its runs interleaved with the current build's.
 *
 * Peers (bench/peers.mjs, issues 28 and 31): the same user workloads done by OpenAI Agents JS and
 * by LangGraph.js with its SQLite and its PostgreSQL checkpointers (PostgreSQL on a throwaway
 * cluster, bench/pg-cluster.mjs), each in a child process as the floor is, on the same fake;
 * installed once into a cache folder (bench/peer-install.mjs); `--peers <list>|none` (or
 * BENCH_PEERS) chooses them. Their figures are rows of `side_by_side` and the `peers` key.
 *
 * On PostgreSQL + Redis (bench/scaled.mjs, issue 31): the current build also as `scaled`, a
 * server on a throwaway PostgreSQL (the one LangGraph's PostgreSQL checkpointer uses, its own
 * database) and redis-server, driven like the others (a column of `side_by_side`, with the
 * services' CPU per call beside the server's), and a second such server for the two-instance
 * figure (`scaled.two_instances`). `BENCH_ENGINE_SCALED=0` leaves them out.
 *
 * Workloads (bench/workload.mjs): `user` (text answers of 50 chunks of about one token, the
 * leader woken by each report and answering it, each worker answering once more), the same with
 * each text answer in one chunk (`user_one_chunk`), and `short` (the bench's workload before
 * issue 28). ASTRION_LEADER_BATCH_MS=0 on both servers: the leader is woken by each report.
 *
 * Per model call: wall time (the run's wall time / its model calls) and CPU time (the server
 * process's user + system time from /proc/<pid>/stat over the run; the floor's from
 * `process.cpuUsage()`), with the conversations created and their viewers' snapshots received
 * before the clock starts, and in a second figure from the creation on (POST /api/conversations,
 * the event stream opened and its snapshot received, then the message). One conversation at a
 * time (per-run figures, median over the runs; CPU summed over the runs) and ten at once (per
 * round, median over rounds). `BENCH_ENGINE_REPS` repetitions (3) of `BENCH_ENGINE_RUNS` runs
 * (20) per workload and target and `BENCH_ENGINE_ROUNDS` rounds (2) of ten at once (user
 * workload). Overhead is app minus floor.
 *
 * Where the gap between the workloads goes: per run, the difference in wall and CPU time between
 * `user` and `user_one_chunk` over the chunks it added (49 per text answer) is the cost of one
 * streamed chunk through the app; `user_one_chunk` against `short`, over the calls it added, the
 * cost of the follow-ups and the leader's wakes; with-creation minus without, the cost of
 * creating a conversation and opening its stream.
 *
 * Memory: the server's resident memory (VmRSS, and its peak VmHWM) sampled every 10 of
 * `BENCH_ENGINE_MEMORY_RUNS` (100) user-workload conversations run one after another right after
 * the warm-up, and of as many more, with what the server still holds for conversations
 * (`GET /api/health` → `resident`), for the current build and the baseline alike.
 *
 * `BENCH_ENGINE_CPU_PROF=<dir>`: both servers run with `--cpu-prof` into `<dir>/<target>/`
 * (written when the server stops), spawned as start.mjs spawns them (see startServer). For
 * readable names, profile builds made with `experimental.serverMinification: false` and the core
 * built with `ASTRION_CORE_MINIFY=0 node scripts/build-core.mjs`:
 * `BENCH_ENGINE_ROOT=<folder>` serves that built copy as "current" and `BENCH_BASELINE_ROOT`
 * one as the baseline (instead of preparing the commit).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { baselineAsked, baselineEnv, DEFAULT_BASELINE_NODE, prepareBaseline } from "./baseline.mjs";
import { finished, mainThreadCpuMs, newConversation, post, processCpuMs, processMemoryMb, signals, viewer } from "./conversation.mjs";
import { instrument, loadFakeOpenAI } from "./fake-model.mjs";
import { startFloor } from "./floor.mjs";
import { nowMs, request, ROOT, startServer, stats, tempDir } from "./lib.mjs";
import { floorSignature, peerConcurrent, peerSequential, peersReport, startPeers } from "./peers.mjs";
import { startScaledServices, twoInstances } from "./scaled.mjs";
import { GOAL, SUMMARY_MARK, USER_TEXT_CHUNKS, WORKER_ROLES, workloadHandler, writeFixtureProject } from "./workload.mjs";

const env = process.env;
const REPS = Number(env.BENCH_ENGINE_REPS) || 3;
const RUNS = Number(env.BENCH_ENGINE_RUNS) || 20;
const ROUNDS = Number(env.BENCH_ENGINE_ROUNDS ?? 2);
/** Conversations run for the memory figures, then as many more. */
const MEMORY_RUNS = Number(env.BENCH_ENGINE_MEMORY_RUNS ?? 100);
/** App runs before the timed ones (the floor's warm-up is 3 runs per workload). */
const WARM_RUNS = Number(env.BENCH_ENGINE_WARMUP ?? 30);
const CONCURRENT = 10;
/** Memory is sampled every this many conversations (and after the last). */
const MEMORY_EVERY = 10;
/** The `openai` client the floor runs on (its package.json is not among the package's exports). */
const OPENAI_VERSION = JSON.parse(readFileSync(path.join(ROOT, "node_modules", "openai", "package.json"), "utf8")).version;
const ALL_VARIANTS = {
  user: { shape: "user", textChunks: USER_TEXT_CHUNKS },
  user_one_chunk: { shape: "user", textChunks: 1 },
  short: { shape: "short" },
};
const VARIANTS = (env.BENCH_ENGINE_VARIANTS ?? Object.keys(ALL_VARIANTS).join(","))
  .split(",")
  .filter(Boolean)
  .map((name) => {
    if (!Object.hasOwn(ALL_VARIANTS, name)) throw new Error(`Unknown BENCH_ENGINE_VARIANTS entry "${name}": ${Object.keys(ALL_VARIANTS).join(", ")}`);
    return name;
  });
const round2 = (x) => +x.toFixed(2);
const progress = (line) => process.stderr.write(`[bench engine] ${line}\n`);
const load = () => os.loadavg().map((x) => +x.toFixed(2));
const median = (xs) => stats(xs).median;
/** This process's CPU time (ms): the fake model, the viewers and the driver. */
const ownCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
/** `floor.sequential`, each run also given this process's CPU over the batch (the fake model's), shared evenly. */
async function floorSequential(floor, count, prefix, options) {
  const own = ownCpuMs();
  const runs = await floor.sequential(count, prefix, options);
  const each = (ownCpuMs() - own) / count;
  return runs.map((r) => ({ ...r, bench_process_cpu_ms: each }));
}

/** Model calls (and text answers) the fake answered for conversation `conv`. */
function callsOf(calls, conv) {
  let n = 0;
  let texts = 0;
  let leader = 0;
  for (const c of calls.values()) {
    if (c.conv !== conv) continue;
    n++;
    if (c.text) texts++;
    if (c.who === "leader") leader++;
  }
  return { calls: n, texts, leader };
}

/** Whether a viewer has seen the end of a run of `shape`; the time of its last awaited event when it has. */
function endOf(state, shape) {
  const summary = state.leaderTexts.find((m) => m.content.includes(SUMMARY_MARK));
  if (!summary || state.busyFalseAt < summary.at) return null;
  if (shape !== "user") return summary.at;
  const workers = new Set(state.agentTexts.map((t) => t.agent_id));
  if (workers.size < WORKER_ROLES.length) return null;
  return Math.max(summary.at, ...state.agentTexts.map((t) => t.at));
}

/**
 * Runs `titles` at once on `app` in `mode`: each conversation created and its viewer's snapshot
 * received, then every message posted; waits for every run's end (see {@link endOf}). Returns
 * wall and server CPU ms from the POST (and from the creation), model calls, text answers and
 * what the viewers received.
 */
async function appRuns(app, titles, mode, calls) {
  const { port, project, pid } = app;
  const servicesCpu = () => app.services?.cpuMs() ?? 0;
  const c0 = { t: nowMs(), cpu: processCpuMs(pid), main: mainThreadCpuMs(pid), own: ownCpuMs(), services: servicesCpu() };
  const runs = await Promise.all(
    titles.map(async (title) => {
      const t0 = nowMs();
      const id = await newConversation(port, title, project);
      const t1 = nowMs();
      const watch = viewer(port, id);
      await watch.until((s) => s.snapshot, 30_000, `snapshot of ${title}`);
      return { title, id, watch, create_ms: t1 - t0, snapshot_ms: nowMs() - t1 };
    }),
  );
  const c1 = { t: nowMs(), cpu: processCpuMs(pid), main: mainThreadCpuMs(pid), own: ownCpuMs(), services: servicesCpu() };
  const accepted = await Promise.all(runs.map((r) => post(port, r.id, GOAL)));
  await Promise.all(runs.map((r) => r.watch.until((s) => endOf(s, mode.shape) !== null, 180_000, `the end of ${r.title} on ${app.name}`)));
  const c2 = { t: nowMs(), cpu: processCpuMs(pid), main: mainThreadCpuMs(pid), own: ownCpuMs(), services: servicesCpu() };
  const end = Math.max(...runs.map((r) => endOf(r.watch.state, mode.shape)));
  for (const r of runs) r.watch.close();
  // Let each run settle (agents done, files written) before the next one is measured.
  for (const r of runs) await finished(port, r.id, { agents: WORKER_ROLES.length, marker: SUMMARY_MARK });
  const counted = runs.map((r) => callsOf(calls, r.title));
  const sum = (f) => runs.reduce((n, r) => n + f(r.watch.state), 0);
  return {
    wall_ms: end - c1.t,
    wall_with_creation_ms: end - c0.t,
    cpu_ms: c2.cpu - c1.cpu,
    cpu_with_creation_ms: c2.cpu - c0.cpu,
    main_thread_cpu_ms: c2.main - c1.main,
    bench_process_cpu_ms: c2.own - c1.own,
    ...(app.services ? { services_cpu_ms: c2.services - c1.services } : {}),
    create_ms: Math.max(...runs.map((r) => r.create_ms)),
    snapshot_ms: Math.max(...runs.map((r) => r.snapshot_ms)),
    accept_ms: Math.max(...accepted),
    calls: counted.reduce((n, c) => n + c.calls, 0),
    text_answers: counted.reduce((n, c) => n + c.texts, 0),
    leader_calls: counted.reduce((n, c) => n + c.leader, 0),
    delta_events: sum((s) => s.deltas),
    sse_bytes: sum((s) => s.bytes),
    sse_reads: sum((s) => s.reads),
    live_events: sum((s) => s.live),
  };
}

/** `resident` of `GET /api/health` once no release is under way (the last run is let go as its viewer leaves). */
async function settledResident(port) {
  for (let i = 0; ; i++) {
    const resident = (await request(port, "GET", "/api/health")).json.resident;
    if ((resident.runs_in_use === 0 && resident.runs_releasing === 0 && resident.runs === resident.runs_kept_for_notices) || i >= 100) return resident;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Figures of runs one at a time: per-run wall per call (median…), CPU per call over all runs, what a run holds. */
function sequentialFigures(runs, reps) {
  const calls = runs.reduce((n, r) => n + r.calls, 0);
  const perRep = Math.ceil(runs.length / reps);
  const has = (k) => runs[0]?.[k] !== undefined;
  const out = {
    runs: runs.length,
    ms_per_call: stats(runs.map((r) => r.wall_ms / r.calls)),
    ms_per_call_median_by_repetition: Array.from({ length: reps }, (_, i) => median(runs.slice(i * perRep, (i + 1) * perRep).map((r) => r.wall_ms / r.calls))),
    cpu_ms_per_call: round2(runs.reduce((n, r) => n + r.cpu_ms, 0) / calls),
    main_thread_cpu_ms_per_call: round2(runs.reduce((n, r) => n + r.main_thread_cpu_ms, 0) / calls),
    wall_ms_per_run: stats(runs.map((r) => r.wall_ms)),
    cpu_ms_per_run: round2(runs.reduce((n, r) => n + r.cpu_ms, 0) / runs.length),
    // The bench's own process: the fake model (and, for the apps, the viewer and the driver).
    bench_process_cpu_ms_per_run: round2(runs.reduce((n, r) => n + r.bench_process_cpu_ms, 0) / runs.length),
    calls_per_run: stats(runs.map((r) => r.calls)),
  };
  // PostgreSQL's and Redis's CPU, for the app on them (the server's own is cpu_ms_per_call).
  if (has("services_cpu_ms")) out.services_cpu_ms_per_call = round2(runs.reduce((n, r) => n + r.services_cpu_ms, 0) / calls);
  if (has("wall_with_creation_ms")) {
    Object.assign(out, {
      with_creation_ms_per_call: stats(runs.map((r) => r.wall_with_creation_ms / r.calls)),
      with_creation_cpu_ms_per_call: round2(runs.reduce((n, r) => n + r.cpu_with_creation_ms, 0) / calls),
      with_creation_wall_ms_per_run: stats(runs.map((r) => r.wall_with_creation_ms)),
      with_creation_cpu_ms_per_run: round2(runs.reduce((n, r) => n + r.cpu_with_creation_ms, 0) / runs.length),
      create_conversation_ms: stats(runs.map((r) => r.create_ms)),
      open_stream_to_snapshot_ms: stats(runs.map((r) => r.snapshot_ms)),
      message_accepted_ms: stats(runs.map((r) => r.accept_ms)),
      text_answers_per_run: stats(runs.map((r) => r.text_answers)),
      leader_calls_per_run: stats(runs.map((r) => r.leader_calls)),
      delta_events_per_run: stats(runs.map((r) => r.delta_events)),
      live_events_per_run: stats(runs.map((r) => r.live_events)),
      sse_bytes_per_run: stats(runs.map((r) => r.sse_bytes)),
      sse_reads_per_run: stats(runs.map((r) => r.sse_reads)),
    });
  }
  return out;
}

/** Figures of rounds of ten at once: per round wall / calls and CPU / calls, medians over rounds. */
function concurrentFigures(rounds) {
  const out = {
    rounds: rounds.length,
    ms_per_call: stats(rounds.map((r) => r.wall_ms / r.calls)),
    cpu_ms_per_call: stats(rounds.map((r) => r.cpu_ms / r.calls)),
    main_thread_cpu_ms_per_call: stats(rounds.map((r) => r.main_thread_cpu_ms / r.calls)),
    calls_per_round: stats(rounds.map((r) => r.calls)),
  };
  if (rounds[0]?.services_cpu_ms !== undefined) out.services_cpu_ms_per_call = stats(rounds.map((r) => r.services_cpu_ms / r.calls));
  if (rounds[0]?.wall_with_creation_ms !== undefined) {
    out.with_creation_ms_per_call = stats(rounds.map((r) => r.wall_with_creation_ms / r.calls));
    out.with_creation_cpu_ms_per_call = stats(rounds.map((r) => r.cpu_with_creation_ms / r.calls));
  }
  return out;
}

/** A floor's figures given the app's names: nothing to create, so its with-creation figures are its own. */
function floorAsApp(f) {
  return { ...f, with_creation_ms_per_call: f.ms_per_call, with_creation_cpu_ms_per_call: f.cpu_ms_per_call };
}

/** One line of the table: floor, each app, and each app's overhead over the floor (ms) and CPU ratio. */
function row(floor, apps, pick) {
  const f = pick(floor);
  const out = { floor: f };
  for (const [name, a] of Object.entries(apps)) {
    const v = pick(a);
    out[name] = v;
    out[`${name}_overhead`] = round2(v - f);
    out[`${name}_ratio`] = round2(v / f);
  }
  return out;
}
const med = (x) => (typeof x === "number" ? x : x?.median);

/** The side-by-side table of one workload. */
function table(seq, par) {
  const apps = (group) => Object.fromEntries(Object.entries(group).filter(([k]) => k !== "floor"));
  const out = {
    one_conversation: {
      ms_per_call: row(floorAsApp(seq.floor), apps(seq), (x) => med(x.ms_per_call)),
      ms_per_call_with_creation: row(floorAsApp(seq.floor), apps(seq), (x) => med(x.with_creation_ms_per_call)),
      cpu_ms_per_call: row(seq.floor, apps(seq), (x) => x.cpu_ms_per_call),
      cpu_ms_per_call_with_creation: row(floorAsApp(seq.floor), apps(seq), (x) => x.with_creation_cpu_ms_per_call),
      main_thread_cpu_ms_per_call: row(seq.floor, apps(seq), (x) => x.main_thread_cpu_ms_per_call),
    },
  };
  if (par) {
    out[`${CONCURRENT}_conversations_at_once`] = {
      ms_per_call: row(par.floor, apps(par), (x) => med(x.ms_per_call)),
      ms_per_call_with_creation: row(floorAsApp(par.floor), apps(par), (x) => med(x.with_creation_ms_per_call)),
      cpu_ms_per_call: row(par.floor, apps(par), (x) => med(x.cpu_ms_per_call)),
      cpu_ms_per_call_with_creation: row(floorAsApp(par.floor), apps(par), (x) => med(x.with_creation_cpu_ms_per_call)),
    };
  }
  return out;
}

/**
 * Where the gap between the workloads goes, per app (and the floor where it applies): per run
 * and per unit of what one workload adds to another.
 */
function gapFigures(seq) {
  const out = {};
  const per = (a, b, units) => (units > 0 ? round2((a - b) / units) : null);
  // The floor does not count its text answers; it answers the same workload as the apps.
  const texts = Object.values(seq.user ?? {}).find((x) => x.text_answers_per_run)?.text_answers_per_run;
  for (const name of Object.keys(seq.user ?? {})) {
    const u = seq.user?.[name];
    const one = seq.user_one_chunk?.[name];
    const short = seq.short?.[name];
    const g = {};
    if (u && one) {
      const chunks = (med(u.text_answers_per_run ?? texts) ?? 0) * (USER_TEXT_CHUNKS - 1);
      g.streamed_chunks_added_per_run = chunks;
      g.wall_ms_per_chunk = per(med(u.wall_ms_per_run), med(one.wall_ms_per_run), chunks);
      g.cpu_ms_per_chunk = per(u.cpu_ms_per_run, one.cpu_ms_per_run, chunks);
      if (u.delta_events_per_run) {
        g.delta_events_per_run = { user: med(u.delta_events_per_run), user_one_chunk: med(one.delta_events_per_run) };
        g.sse_bytes_per_run = { user: med(u.sse_bytes_per_run), user_one_chunk: med(one.sse_bytes_per_run) };
        g.sse_reads_per_run = { user: med(u.sse_reads_per_run), user_one_chunk: med(one.sse_reads_per_run) };
        g.cpu_ms_per_delta_event = per(u.cpu_ms_per_run, one.cpu_ms_per_run, med(u.delta_events_per_run) - med(one.delta_events_per_run));
      }
    }
    if (one && short) {
      const added = med(one.calls_per_run) - med(short.calls_per_run);
      g.calls_added_by_follow_ups_and_wakes_per_run = added;
      g.wall_ms_per_added_call = per(med(one.wall_ms_per_run), med(short.wall_ms_per_run), added);
      g.cpu_ms_per_added_call = per(one.cpu_ms_per_run, short.cpu_ms_per_run, added);
    }
    if (u?.with_creation_wall_ms_per_run) {
      g.creation_and_stream_open_wall_ms_per_conversation = round2(med(u.with_creation_wall_ms_per_run) - med(u.wall_ms_per_run));
      g.creation_and_stream_open_cpu_ms_per_conversation = round2(u.with_creation_cpu_ms_per_run - u.cpu_ms_per_run);
    }
    out[name] = g;
  }
  return out;
}

/**
 * The scaled targets' summary: the services, the app on PostgreSQL + Redis beside the data
 * folder and LangGraph + PostgreSQL (overhead per call at one and ten conversations, and the
 * issue's target: at most half of LangGraph's), and the two-instance figure.
 */
function scaledReport(scaled, tables, two) {
  const user = tables.user;
  const at = (group, key) => group?.ms_per_call?.[key];
  const versus = (group) => {
    if (!group) return null;
    const app = at(group, "scaled_overhead");
    const lg = at(group, "langgraph_postgres_overhead");
    return { scaled_overhead_ms: app, folder_overhead_ms: at(group, "current_overhead"), langgraph_postgres_overhead_ms: lg ?? null, scaled_to_langgraph_postgres: lg ? round2(app / lg) : null, target_at_most: 0.5 };
  };
  return {
    services: scaled.label,
    overhead_per_call: { one_conversation: versus(user?.one_conversation), [`${CONCURRENT}_conversations_at_once`]: versus(user?.[`${CONCURRENT}_conversations_at_once`]) },
    two_instances: two,
  };
}

/** Starts one target's server; its pid and Node version. */
async function startApp({ name, root, node, home, project, profileDir, env: extra = {}, services = null }) {
  const base = node === process.execPath ? {} : baselineEnv(node);
  const server = await startServer({ home, root, node, profileDir: profileDir ? path.join(profileDir, name) : null, env: { ...base, ...extra, FAKE_OPENAI_KEY: "sk-bench", ASTRION_LEADER_BATCH_MS: "0" } });
  const health = (await request(server.port, "GET", "/api/health")).json;
  const pid = health.pid;
  const serverNode = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0];
  return { name, server, port: server.port, pid, project, root, node: serverNode, services };
}

/** Runs the engine-versus-floor measurements and returns their figures. */
export async function benchEngine() {
  const { mod, cleanup } = await loadFakeOpenAI();
  const project = tempDir("astrion-bench-engine-project-");
  writeFixtureProject(project);
  const calls = new Map();
  const signal = signals();
  const mode = { ...ALL_VARIANTS.user };
  const homes = [];
  const apps = [];
  let fake;
  let floor;
  let peers;
  let scaled = null;
  let scaledB = null;
  const started = Date.now();
  const loadAtStart = load();
  const baselineCommit = baselineAsked();
  const profileDir = env.BENCH_ENGINE_CPU_PROF ? path.resolve(env.BENCH_ENGINE_CPU_PROF) : null;
  let baseline = null;
  let alsoBaseline = null;
  try {
    if (env.BENCH_BASELINE_ROOT) {
      const node = env.BENCH_BASELINE_NODE || DEFAULT_BASELINE_NODE;
      baseline = { root: path.resolve(env.BENCH_BASELINE_ROOT), commit: `as built in ${env.BENCH_BASELINE_ROOT}`, node, nodeVersion: execFileSync(node, ["--version"], { encoding: "utf8" }).trim() };
    } else if (baselineCommit) {
      baseline = prepareBaseline({ commit: baselineCommit, node: env.BENCH_BASELINE_NODE || DEFAULT_BASELINE_NODE });
      if (env.BENCH_BASELINE_ALSO_NODE) alsoBaseline = prepareBaseline({ commit: baselineCommit, node: env.BENCH_BASELINE_ALSO_NODE });
    }
    fake = await mod.startFakeOpenAI({ script: workloadHandler(mod, calls, signal, mode) });
    instrument(fake, { dropBodies: true });
    const targets = [{ name: "current", root: env.BENCH_ENGINE_ROOT ? path.resolve(env.BENCH_ENGINE_ROOT) : ROOT, node: process.execPath }];
    if (baseline) targets.push({ name: "baseline", root: baseline.root, node: baseline.node });
    if (alsoBaseline) targets.push({ name: `baseline_on_node${alsoBaseline.nodeVersion.replace(/^v(\d+).*/, "$1")}`, root: alsoBaseline.root, node: alsoBaseline.node });
    scaled = await startScaledServices(env);
    if (scaled.skipped) progress(`scaled targets skipped: ${scaled.skipped}`);
    else targets.push({ name: "scaled", root: targets[0].root, node: process.execPath, env: scaled.env, services: scaled });
    const newHome = (name) => {
      const home = tempDir(`astrion-bench-engine-${name}-`);
      homes.push(home);
      writeFileSync(
        path.join(home, "models.json"),
        JSON.stringify({
          default: "fake",
          models: { offline: { provider: "offline", model: "astrion-offline" }, fake: { base_url: fake.url, api_key_env: "FAKE_OPENAI_KEY", model: "fake", max_concurrency: 64 } },
        }),
      );
      return home;
    };
    for (const t of targets) {
      const home = newHome(t.name);
      if (profileDir) mkdirSync(path.join(profileDir, t.name), { recursive: true });
      apps.push(await startApp({ ...t, home, project, profileDir }));
    }
    for (const a of apps) progress(`${a.name}: ${a.root} on ${a.node}, pid ${a.pid}`);
    floor = await startFloor({ url: fake.url, project });
    peers = await startPeers({ url: fake.url, project, sharedCluster: scaled.cluster ?? null });
    /** Runs `fn(app)` for every app, the order turned each time so none always goes first. */
    let turn = 0;
    const eachApp = async (fn) => {
      const shift = turn++ % apps.length;
      for (const a of [...apps.slice(shift), ...apps.slice(0, shift)]) await fn(a);
    };
    /** The peers run the workloads of the user shape (a leader woken by each report), not `short`. */
    const peerVariant = (v) => ALL_VARIANTS[v].shape === "user" && peers.list.length > 0;
    let expected;
    const setMode = (variant) => Object.assign(mode, { textChunks: undefined }, ALL_VARIANTS[variant]);

    // Warm-up, not counted: module loading and route compilation in the servers, JIT in all.
    for (const v of VARIANTS) {
      setMode(v);
      await floorSequential(floor, 3, `floor-warm-${v}`, { shape: mode.shape });
      if (v === "user") await floorSequential(floor, 3, `floor-app-transport-warm-${v}`, { shape: mode.shape, transport: "app" });
      if (peerVariant(v)) {
        // The reference the peers' runs are checked against (bench/peers.mjs).
        expected ??= floorSignature(calls, [0, 1, 2].map((i) => `floor-warm-${v}-${i}`));
        for (const p of peers.list) await peerSequential(p, calls, 3, `${p.key}-warm-${v}`, expected);
      }
    }
    setMode("user");
    for (let i = 0; i < WARM_RUNS; i++) await eachApp((a) => appRuns(a, [`${a.name}-warm-${i}`], mode, calls));
    const afterWarmUp = Object.fromEntries(apps.map((a) => [a.name, processMemoryMb(a.pid)]));

    // Memory over the number of conversations run (user workload), the apps interleaved.
    const samples = Object.fromEntries(apps.map((a) => [a.name, []]));
    const held = Object.fromEntries(apps.map((a) => [a.name, {}]));
    const total = MEMORY_RUNS * 2;
    if (total) progress(`memory: ${total} conversations one after another on each app, load ${load().join(" ")}`);
    for (let i = 1; i <= total; i++) {
      await eachApp(async (a) => {
        await appRuns(a, [`${a.name}-mem-${i}`], mode, calls);
        if (i % MEMORY_EVERY === 0 || i === total) {
          const resident = await settledResident(a.port);
          if (i === MEMORY_EVERY || i === MEMORY_RUNS || i === total) held[a.name][`after_${i}_conversations`] = resident;
          samples[a.name].push({ conversations: i, ...processMemoryMb(a.pid) });
        }
      });
      if (i % 50 === 0) progress(`  ${i} done`);
    }

    // The timed runs: per repetition, each workload one conversation at a time (floor, then the
    // apps run by run in turn), then rounds of ten at once of the user workload.
    const seq = Object.fromEntries(VARIANTS.map((v) => [v, Object.fromEntries([["floor", []], ...apps.map((a) => [a.name, []]), ...(peerVariant(v) ? peers.list.map((p) => [p.key, []]) : [])])]));
    const par = Object.fromEntries([["floor", []], ...apps.map((a) => [a.name, []]), ...peers.list.map((p) => [p.key, []])]);
    const loads = [];
    // The floor again on the app's own transport (lib/models/http-fetch.ts), user workload only.
    const floorApp = { seq: [], par: [] };
    for (let rep = 1; rep <= REPS; rep++) {
      for (const v of VARIANTS) {
        setMode(v);
        loads.push({ repetition: rep, workload: v, load_average_1_5_15: load() });
        progress(`repetition ${rep}/${REPS}, ${v}: ${RUNS} runs one at a time each; load ${load().join(" ")}`);
        seq[v].floor.push(...(await floorSequential(floor, RUNS, `floor-${v}-r${rep}`, { shape: mode.shape })));
        if (v === "user") floorApp.seq.push(...(await floorSequential(floor, RUNS, `floor-app-transport-${v}-r${rep}`, { shape: mode.shape, transport: "app" })));
        if (peerVariant(v)) for (const p of peers.list) seq[v][p.key].push(...(await peerSequential(p, calls, RUNS, `${p.key}-${v}-r${rep}`, expected)));
        for (let i = 0; i < RUNS; i++) await eachApp(async (a) => seq[v][a.name].push(await appRuns(a, [`${a.name}-${v}-r${rep}-${i}`], mode, calls)));
      }
      if (VARIANTS.includes("user") && ROUNDS > 0) {
        setMode("user");
        progress(`repetition ${rep}/${REPS}: ${ROUNDS} rounds of ${CONCURRENT} at once each`);
        for (let r = 0; r < ROUNDS; r++) {
          par.floor.push(await floor.concurrent(CONCURRENT, `floor-par-r${rep}-${r}`, { shape: "user" }));
          floorApp.par.push(await floor.concurrent(CONCURRENT, `floor-app-transport-par-r${rep}-${r}`, { shape: "user", transport: "app" }));
          for (const p of peers.list) par[p.key].push(await peerConcurrent(p, calls, CONCURRENT, `${p.key}-par-r${rep}-${r}`, expected));
          await eachApp(async (a) => par[a.name].push(await appRuns(a, Array.from({ length: CONCURRENT }, (_, i) => `${a.name}-par-r${rep}-${r}-${i}`), mode, calls)));
        }
      }
    }

    // Two instances on one PostgreSQL and one Redis, beside one (issue 31).
    let twoInstanceFigures = null;
    const scaledA = apps.find((a) => a.name === "scaled");
    if (scaledA && par.floor.length) {
      scaledB = await startApp({ name: "scaled_b", root: scaledA.root, node: process.execPath, home: newHome("scaled_b"), project, env: scaled.env, services: scaled });
      progress(`two instances: scaled (pid ${scaledA.pid}) and scaled_b (pid ${scaledB.pid}); load ${load().join(" ")}`);
      for (let i = 0; i < Math.min(WARM_RUNS, 10); i++) await appRuns(scaledB, [`scaled_b-warm-${i}`], mode, calls);
      const floorPar = median(par.floor.map((r) => r.wall_ms / r.calls));
      twoInstanceFigures = await twoInstances({ a: scaledA, b: scaledB, rounds: Math.max(1, REPS * ROUNDS), concurrent: CONCURRENT, run: (app, titles) => appRuns(app, titles, mode, calls), services: scaled, floorMsPerCall: +floorPar.toFixed(2) });
      twoInstanceFigures.load_average_at_end = load();
    }

    // A peer creates no conversation over HTTP: its with-creation figures are its own (as the floor's).
    const peerKeys = new Set(peers.list.map((p) => p.key));
    const asApp = (k, f) => (peerKeys.has(k) ? floorAsApp(f) : f);
    const seqFigures = Object.fromEntries(VARIANTS.map((v) => [v, Object.fromEntries(Object.entries(seq[v]).map(([k, runs]) => [k, asApp(k, sequentialFigures(runs, REPS))]))]));
    const parFigures = par.floor.length ? Object.fromEntries(Object.entries(par).map(([k, rounds]) => [k, asApp(k, concurrentFigures(rounds))])) : null;
    const memory = Object.fromEntries(
      apps.map((a) => {
        const s = samples[a.name];
        if (!s.length) return [a.name, { after_warm_up: afterWarmUp[a.name] }];
        const first = s[0];
        const at = s.find((x) => x.conversations === MEMORY_RUNS) ?? s.at(-1);
        const last = s.at(-1);
        return [
          a.name,
          {
            [`peak_rss_mb_for_${MEMORY_RUNS}_conversations`]: at.peak_rss_mb,
            [`peak_rss_mb_for_${total}_conversations`]: last.peak_rss_mb,
            [`rss_mb_after_${first.conversations}_conversations`]: first.rss_mb,
            [`rss_mb_after_${MEMORY_RUNS}_conversations`]: at.rss_mb,
            [`rss_mb_after_${total}_conversations`]: last.rss_mb,
            [`rss_growth_mb_from_${first.conversations}_to_${MEMORY_RUNS}_conversations`]: round2(at.rss_mb - first.rss_mb),
            [`rss_growth_mb_from_${MEMORY_RUNS}_to_${total}_conversations`]: round2(last.rss_mb - at.rss_mb),
            after_warm_up: afterWarmUp[a.name],
            [`every_${MEMORY_EVERY}_conversations`]: s,
            held_for_conversations: held[a.name],
          },
        ];
      }),
    );
    const tables = Object.fromEntries(VARIANTS.map((v) => [v, table(seqFigures[v], v === "user" ? parFigures : null)]));
    return {
      engine_vs_floor: {
        conditions:
          `Fake OpenAI-compatible model answering at zero latency on loopback (bench/fake-model.mjs), one for all. Workloads (bench/workload.mjs): a leader creates ${WORKER_ROLES.length} workers, ` +
          `each reads 2 files (read_file) and reports; "user": text answers of ${USER_TEXT_CHUNKS} chunks of about one token, the leader woken by each report (ASTRION_LEADER_BATCH_MS=0) ` +
          `and answering it with send_message_to_agent, each worker answering that once more, then the leader's summary; "user_one_chunk": the same with each text answer in one chunk; ` +
          `"short": the bench's workload before issue 28 (3-chunk texts, no follow-ups). Floor: bare openai@${OPENAI_VERSION} streaming tool loop in a child process on the client's default ` +
          `fetch (floor_on_app_transport: on the app's transport, user workload), the same calls, chunks and tool calls, nothing written and no viewer (as before). Apps: the built servers started as npm start starts them, one browser-like SSE viewer per ` +
          `conversation; wall = POST of the message (or of the conversation) → the viewer has the summary and every worker's last answer; server CPU from /proc/<pid>/stat (10 ms ticks). ` +
          `${REPS} repetitions of ${RUNS} runs one at a time per workload and target (apps interleaved run by run), ${ROUNDS} rounds of ${CONCURRENT} at once per repetition (user workload); ` +
          `${WARM_RUNS} warm-up conversations per app. ` +
          (peers.list.length
            ? `Peers (bench/peers.mjs), each in a child process as the floor, user and user_one_chunk workloads, run after the floor's runs, 3 warm-up runs each: ${peers.list.map((p) => p.label).join("; ")}; ` +
              `each run checked to make the floor's calls; CPU is the child's own (process.cpuUsage), PostgreSQL's separate (database_cpu_ms_per_call). `
            : "No peers (--peers none). ") +
          `Load average at start ${loadAtStart.join(" ")}.`,
        targets: {
          floor: { node: process.version, openai: OPENAI_VERSION },
          ...Object.fromEntries(
            apps.map((a) => {
              const prepared = a.name === "current" ? null : a.name === "baseline" ? baseline : alsoBaseline;
              return [a.name, { root: a.root === ROOT ? "this checkout" : a.root, node: a.node, ...(prepared ? { commit: prepared.commit, node_version: prepared.nodeVersion } : { node_version: process.version }) }];
            }),
          ),
          ...Object.fromEntries(peers.list.map((p) => [p.key, { label: p.label, node_version: process.version }])),
        },
        side_by_side: tables,
        peers: peersReport({ peers, seq: seqFigures, par: parFigures, rawSeq: seq, rawPar: par, concurrent: CONCURRENT }),
        // The floor's client on the app's transport (over node:http): what is left once the transport is the same.
        floor_on_app_transport: {
          user_one_conversation: floorApp.seq.length ? sequentialFigures(floorApp.seq, REPS) : null,
          [`user_${CONCURRENT}_conversations_at_once`]: floorApp.par.length ? concurrentFigures(floorApp.par) : null,
        },
        scaled: scaled.skipped ? { skipped: scaled.skipped } : scaledReport(scaled, tables, twoInstanceFigures),
        where_the_gap_goes: gapFigures(seqFigures),
        one_conversation_at_a_time: seqFigures,
        [`${CONCURRENT}_conversations_at_once`]: parFigures,
        server_memory_mb: memory,
        load_average_by_step: loads,
        load_average_at_end: load(),
        seconds: Math.round((Date.now() - started) / 1000),
      },
    };
  } catch (error) {
    for (const a of apps) error.message += `\n--- ${a.name} server output (tail) ---\n${a.server.output().slice(-4000)}`;
    throw error;
  } finally {
    floor?.stop();
    await peers?.stop();
    for (const a of apps) await a.server.stop();
    await scaledB?.server.stop();
    if (scaled && !scaled.skipped) await scaled.stop();
    await fake?.close();
    cleanup();
    for (const h of homes) rmSync(h, { recursive: true, force: true });
    rmSync(project, { recursive: true, force: true });
  }
}
