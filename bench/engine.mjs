/**
 * The engine against its floor, in one run, on one fake model (bench/workload.mjs): the same
 * workload done by a bare `openai` tool loop (bench/floor.mjs) and by the real built server over
 * HTTP (a person's message posted to a conversation, a browser-like SSE viewer attached, the run
 * over when the viewer receives the leader's summary).
 *
 * Per model call: wall time (the run's wall time / its model calls) and CPU time (the server
 * process's user + system time from /proc/<pid>/stat over the run, until the leader went idle;
 * the floor's from `process.cpuUsage()`), at 1 conversation at a time (per-run figures, median
 * over the runs) and at 10 conversations at once (per round, median over rounds). Overhead is
 * app minus floor. The server's resident memory (VmRSS, and its peak VmHWM) is sampled every 10
 * of the 100 conversations run one after another (each with its viewer, closed once it is over),
 * and of 100 more run after them for this alone (`BENCH_ENGINE_MEMORY_RUNS`), with what the
 * server still holds for conversations (`GET /api/health` → `resident`): the peak RSS for the
 * first 100 against the peak for all 200, and the RSS after 10, 50, 100 and 200, show whether
 * memory grows with the number of conversations run.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { finished, mainThreadCpuMs, newConversation, post, processCpuMs, processMemoryMb, signals, viewer } from "./conversation.mjs";
import { instrument, loadFakeOpenAI } from "./fake-model.mjs";
import { startFloor } from "./floor.mjs";
import { nowMs, request, ROOT, startServer, stats, tempDir } from "./lib.mjs";
import { GOAL, PLANNED_CALLS, SUMMARY_MARK, WORKER_ROLES, workloadHandler, writeFixtureProject } from "./workload.mjs";

const RUNS = Number(process.env.BENCH_ENGINE_RUNS) || 100;
/** Conversations run after the timed ones, for the memory figures only. */
const MORE_RUNS = Number(process.env.BENCH_ENGINE_MEMORY_RUNS ?? RUNS);
/** App runs before the timed ones (the floor's warm-up is 3 runs per transport). */
const WARM_RUNS = Number(process.env.BENCH_ENGINE_WARMUP ?? 30);
const CONCURRENT = 10;
/** The `openai` client the floor runs on (its package.json is not among the package's exports). */
const OPENAI_VERSION = JSON.parse(readFileSync(path.join(ROOT, "node_modules", "openai", "package.json"), "utf8")).version;
/** Rounds of CONCURRENT conversations at once (the median over 3 moved by a millisecond between runs). */
const ROUNDS = Number(process.env.BENCH_ENGINE_ROUNDS) || 7;
/** Memory is sampled every this many conversations (and after the last). */
const MEMORY_EVERY = 10;
const round2 = (x) => +x.toFixed(2);
const progress = (line) => process.stderr.write(`[bench engine] ${line}\n`);

/** Model calls the fake answered for conversation `conv`. */
const callsOf = (calls, conv) => [...calls.values()].filter((c) => c.conv === conv).length;

/**
 * Starts the workload in each of `titles` at once (conversations created and viewers snapshotted
 * first) and waits for every summary and idle leader. Returns wall ms (POST → last summary
 * received), server CPU ms (POST → last leader idle) and model calls.
 */
async function appRuns({ port, project, pid, calls }, titles) {
  const runs = [];
  for (const title of titles) {
    const id = await newConversation(port, title, project);
    const watch = viewer(port, id);
    runs.push({ title, id, watch });
  }
  await Promise.all(runs.map((r) => r.watch.until((s) => s.snapshot, 30_000, `snapshot of ${r.title}`)));
  const cpu0 = processCpuMs(pid);
  const main0 = mainThreadCpuMs(pid);
  const t0 = nowMs();
  await Promise.all(runs.map((r) => post(port, r.id, GOAL)));
  const summaryOf = (s) => s.leaderTexts.find((m) => m.content.includes(SUMMARY_MARK));
  await Promise.all(
    runs.map((r) =>
      r.watch.until(
        (s) => {
          const summary = summaryOf(s);
          return summary !== undefined && s.busyFalseAt >= summary.at;
        },
        180_000,
        `summary of ${r.title}`,
      ),
    ),
  );
  const cpu = processCpuMs(pid) - cpu0;
  const mainCpu = mainThreadCpuMs(pid) - main0;
  const wall = Math.max(...runs.map((r) => summaryOf(r.watch.state).at)) - t0;
  for (const r of runs) r.watch.close();
  // Let each run settle (agents done, files written) before the next one is measured.
  for (const r of runs) await finished(port, r.id, { agents: WORKER_ROLES.length, marker: SUMMARY_MARK });
  return { wall_ms: wall, cpu_ms: cpu, main_thread_cpu_ms: mainCpu, calls: runs.reduce((n, r) => n + callsOf(calls, r.title), 0) };
}

/** `resident` of `GET /api/health` once no release is under way (the last run is let go as its viewer leaves). */
async function settledResident(port) {
  for (let i = 0; ; i++) {
    const resident = (await request(port, "GET", "/api/health")).json.resident;
    if ((resident.runs_in_use === 0 && resident.runs_releasing === 0 && resident.runs === resident.runs_kept_for_notices) || i >= 100) return resident;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Figures of sequential runs: per-run wall per call (median…), CPU per call over all runs, calls per run. */
function sequentialFigures(runs) {
  const calls = runs.reduce((n, r) => n + r.calls, 0);
  const half = Math.floor(runs.length / 2);
  return {
    runs: runs.length,
    ms_per_call: stats(runs.map((r) => r.wall_ms / r.calls)),
    // The JIT keeps compiling for the first few dozen runs of a new server (see docs/benchmarks-history.md).
    ms_per_call_median_first_half: stats(runs.slice(0, half).map((r) => r.wall_ms / r.calls)).median,
    ms_per_call_median_second_half: stats(runs.slice(half).map((r) => r.wall_ms / r.calls)).median,
    cpu_ms_per_call: round2(runs.reduce((n, r) => n + r.cpu_ms, 0) / calls),
    ...(runs[0]?.main_thread_cpu_ms !== undefined
      ? { main_thread_cpu_ms_per_call: round2(runs.reduce((n, r) => n + r.main_thread_cpu_ms, 0) / calls) }
      : {}),
    wall_ms_per_run: stats(runs.map((r) => r.wall_ms)),
    calls_per_run: stats(runs.map((r) => r.calls)),
  };
}

/** Figures of concurrent rounds: per round wall / calls and CPU / calls, medians over rounds. */
function concurrentFigures(rounds) {
  return {
    rounds: rounds.length,
    ms_per_call: stats(rounds.map((r) => r.wall_ms / r.calls)),
    cpu_ms_per_call: stats(rounds.map((r) => r.cpu_ms / r.calls)),
    ...(rounds[0]?.main_thread_cpu_ms !== undefined ? { main_thread_cpu_ms_per_call: stats(rounds.map((r) => r.main_thread_cpu_ms / r.calls)) } : {}),
    wall_ms_per_round: stats(rounds.map((r) => r.wall_ms)),
    calls_per_round: stats(rounds.map((r) => r.calls)),
  };
}

function sideBySide(floor, app, cpuOf) {
  const mainOf = (x) => (typeof x.main_thread_cpu_ms_per_call === "number" ? x.main_thread_cpu_ms_per_call : x.main_thread_cpu_ms_per_call?.median);
  return {
    floor_ms_per_call: floor.ms_per_call.median,
    app_ms_per_call: app.ms_per_call.median,
    overhead_ms_per_call: round2(app.ms_per_call.median - floor.ms_per_call.median),
    floor_cpu_ms_per_call: cpuOf(floor),
    app_cpu_ms_per_call: cpuOf(app),
    overhead_cpu_ms_per_call: round2(cpuOf(app) - cpuOf(floor)),
    // Of that CPU, the main thread's (the rest: V8's compiler and GC threads, the file system's thread pool).
    floor_main_thread_cpu_ms_per_call: mainOf(floor),
    app_main_thread_cpu_ms_per_call: mainOf(app),
  };
}

/** Runs the engine-versus-floor measurements and returns their figures. */
export async function benchEngine() {
  const { mod, cleanup } = await loadFakeOpenAI();
  const home = tempDir("astrion-bench-engine-");
  const project = tempDir("astrion-bench-engine-project-");
  writeFixtureProject(project);
  const calls = new Map();
  const signal = signals();
  let fake;
  let server;
  let floor;
  const started = Date.now();
  try {
    fake = await mod.startFakeOpenAI({ script: workloadHandler(mod, calls, signal) });
    instrument(fake, { dropBodies: true });
    writeFileSync(
      path.join(home, "models.json"),
      JSON.stringify({
        default: "fake",
        models: { offline: { provider: "offline", model: "astrion-offline" }, fake: { base_url: fake.url, api_key_env: "FAKE_OPENAI_KEY", model: "fake", max_concurrency: 64 } },
      }),
    );
    server = await startServer({ home, env: { FAKE_OPENAI_KEY: "sk-bench", ASTRION_LEADER_BATCH_MS: "0" } });
    const { port } = server;
    const pid = (await request(port, "GET", "/api/health")).json.pid;
    floor = await startFloor({ url: fake.url, project });
    const ctx = { port, project, pid, calls };

    // Warm-up, not counted: module loading and route compilation in the server, JIT in both.
    await floor.sequential(3, "floor-warm");
    await floor.sequential(3, "floor-app-transport-warm", "app");
    for (let i = 0; i < WARM_RUNS; i++) await appRuns(ctx, [`warm-${i}`]);
    const afterWarmUp = processMemoryMb(pid);
    const samples = [];
    const held = {};

    progress(`floor: ${RUNS} runs one after another`);
    const floorSequential = await floor.sequential(RUNS, "floor-seq");
    progress(`floor on the app's transport: ${RUNS} runs one after another`);
    const floorAppSequential = await floor.sequential(RUNS, "floor-app-transport-seq", "app");
    progress(`app: ${RUNS} conversations one after another`);
    const appSequential = [];
    for (let i = 1; i <= RUNS + MORE_RUNS; i++) {
      const run = await appRuns(ctx, [`seq-${i}`]);
      // The timed figures are the first RUNS; the next MORE_RUNS only show whether memory keeps rising.
      if (i <= RUNS) appSequential.push(run);
      if (i === RUNS + 1) progress(`app: ${MORE_RUNS} more, for memory only`);
      if (i % MEMORY_EVERY === 0 || i === RUNS || i === RUNS + MORE_RUNS) {
        // What the server still holds once the last run is over and its viewer gone.
        const resident = await settledResident(port);
        if (i === MEMORY_EVERY || i === RUNS || i === RUNS + MORE_RUNS) held[`after_${i}_conversations`] = resident;
        samples.push({ conversations: i, ...processMemoryMb(pid) });
      }
      if (i % 25 === 0) progress(`  ${i} done`);
    }
    progress(`${ROUNDS} rounds of ${CONCURRENT} conversations at once, floor and app alternating`);
    const floorRounds = [];
    const floorAppRounds = [];
    const appRounds = [];
    for (let r = 0; r < ROUNDS; r++) {
      floorRounds.push(await floor.concurrent(CONCURRENT, `floor-par-${r}`));
      floorAppRounds.push(await floor.concurrent(CONCURRENT, `floor-app-transport-par-${r}`, "app"));
      appRounds.push(await appRuns(ctx, Array.from({ length: CONCURRENT }, (_, i) => `par-${r}-${i}`)));
    }

    const first = samples[0];
    const atRuns = samples.find((x) => x.conversations === RUNS);
    const last = samples.at(-1);
    const half = samples.findLast((x) => x.conversations <= RUNS / 2) ?? first;
    const memory = {
      [`peak_rss_mb_for_${RUNS}_conversations_run_one_after_another`]: atRuns.peak_rss_mb,
      [`rss_mb_after_${first.conversations}_conversations`]: first.rss_mb,
      [`rss_mb_after_${RUNS}_conversations`]: atRuns.rss_mb,
      [`rss_growth_mb_from_${first.conversations}_to_${RUNS}_conversations`]: round2(atRuns.rss_mb - first.rss_mb),
      // Once the JIT's code and the heap's size have settled (the first few dozen runs), what is
      // left of any growth with the number of conversations run.
      [`rss_growth_mb_from_${half.conversations}_to_${RUNS}_conversations`]: round2(atRuns.rss_mb - half.rss_mb),
      ...(MORE_RUNS > 0
        ? {
            [`peak_rss_mb_for_${RUNS + MORE_RUNS}_conversations`]: last.peak_rss_mb,
            [`rss_mb_after_${RUNS + MORE_RUNS}_conversations`]: last.rss_mb,
            [`rss_growth_mb_from_${RUNS}_to_${RUNS + MORE_RUNS}_conversations`]: round2(last.rss_mb - atRuns.rss_mb),
          }
        : {}),
      after_warm_up: afterWarmUp,
      [`every_${MEMORY_EVERY}_conversations`]: samples,
      held_for_conversations: held,
    };
    progress(
      `peak RSS for ${RUNS} conversations run one after another: ${atRuns.peak_rss_mb} MB; ` +
        `RSS after ${first.conversations}: ${first.rss_mb} MB, after ${RUNS}: ${atRuns.rss_mb} MB` +
        (MORE_RUNS > 0 ? `; peak for ${RUNS + MORE_RUNS}: ${last.peak_rss_mb} MB, RSS after ${RUNS + MORE_RUNS}: ${last.rss_mb} MB` : ""),
    );
    const seq = { floor: sequentialFigures(floorSequential), floor_on_app_transport: sequentialFigures(floorAppSequential), app: sequentialFigures(appSequential) };
    const par = { floor: concurrentFigures(floorRounds), floor_on_app_transport: concurrentFigures(floorAppRounds), app: concurrentFigures(appRounds) };
    return {
      engine_vs_floor: {
        conditions:
          `Fake OpenAI-compatible model answering at zero latency on loopback (bench/fake-model.mjs), same for both. Workload per run: leader creates ${WORKER_ROLES.length} workers; ` +
          `each worker reads 2 files of a fixture project (read_file) then reports; leader summarizes (${PLANNED_CALLS} model calls planned; the app's leader also answers ` +
          `"waiting" when reports reach it one by one). Floor: bare openai@${OPENAI_VERSION} streaming tool loop in a child process, workers concurrent, on the client's default fetch ` +
          `(side_by_side) and on the app's own transport over node:http (side_by_side_floor_on_app_transport). App: the built server ` +
          `(next start) over HTTP with one SSE viewer per conversation, ASTRION_LEADER_BATCH_MS=0; wall = POST → summary received by the viewer; server CPU = POST → ` +
          `leader idle, from /proc/<pid>/stat (10 ms ticks), the main thread's from /proc/<pid>/task/<pid>/stat. Load average at start ${os.loadavg().map((x) => x.toFixed(2)).join(" ")}.`,
        side_by_side: {
          one_conversation_at_a_time: sideBySide(seq.floor, seq.app, (x) => x.cpu_ms_per_call),
          [`${CONCURRENT}_conversations_at_once`]: sideBySide(par.floor, par.app, (x) => x.cpu_ms_per_call.median),
        },
        // The same, against a floor whose client sends its requests as the app's does (over
        // node:http, lib/models/http-fetch.ts): what is left once the transport is the same.
        side_by_side_floor_on_app_transport: {
          one_conversation_at_a_time: sideBySide(seq.floor_on_app_transport, seq.app, (x) => x.cpu_ms_per_call),
          [`${CONCURRENT}_conversations_at_once`]: sideBySide(par.floor_on_app_transport, par.app, (x) => x.cpu_ms_per_call.median),
        },
        one_conversation_at_a_time: seq,
        [`${CONCURRENT}_conversations_at_once`]: par,
        server_memory_mb: memory,
        seconds: Math.round((Date.now() - started) / 1000),
      },
    };
  } catch (error) {
    if (server) error.message += `\n--- server output (tail) ---\n${server.output().slice(-4000)}`;
    throw error;
  } finally {
    floor?.stop();
    await server?.stop();
    await fake?.close();
    cleanup();
    rmSync(home, { recursive: true, force: true });
    rmSync(project, { recursive: true, force: true });
  }
}

