/**
 * The app on PostgreSQL + Redis in the engine part (issue 31, "Performance"): the services it runs
 * on (a throwaway PostgreSQL cluster, shared with LangGraph's PostgreSQL checkpointer so both use
 * the same server, and a throwaway redis-server), and the two-instance figure: the same built app
 * as two servers on one PostgreSQL and one Redis, running ten conversations each at once, beside
 * one of them running ten alone.
 *
 * `BENCH_ENGINE_SCALED=0` leaves the scaled targets out; they are skipped, with the reason, when
 * PostgreSQL's or Redis's binaries are missing.
 */
import os from "node:os";
import pg from "pg";
import { pgBinDir, startPgCluster } from "./pg-cluster.mjs";
import { redisBinary, startRedisServer } from "./redis-server.mjs";

const progress = (line) => process.stderr.write(`[bench engine] ${line}\n`);

/**
 * Starts PostgreSQL and Redis for the scaled targets, or resolves to `{ skipped }` with why not.
 * Resolves to `{ cluster, redis, databaseUrl, env, cpuMs(), stop() }`: `env` switches a server to
 * them, `cpuMs()` is the CPU the two servers have used so far (PostgreSQL's processes and Redis).
 */
export async function startScaledServices(env = process.env) {
  if (env.BENCH_ENGINE_SCALED === "0") return { skipped: "BENCH_ENGINE_SCALED=0" };
  const pgBin = pgBinDir(env);
  if (!pgBin.dir) return { skipped: pgBin.reason };
  const redisBin = redisBinary();
  if (!redisBin.bin) return { skipped: redisBin.reason };
  const cluster = await startPgCluster({ env });
  let redis;
  try {
    redis = await startRedisServer();
    const client = new pg.Client({ connectionString: cluster.url });
    await client.connect();
    try {
      await client.query("CREATE DATABASE astrion_bench");
    } finally {
      await client.end();
    }
  } catch (error) {
    await redis?.stop();
    await cluster.stop();
    throw error;
  }
  const databaseUrl = cluster.url.replace(/\/postgres$/, "/astrion_bench");
  progress(`PostgreSQL ${cluster.version} on 127.0.0.1:${cluster.port} (pid ${cluster.pid}), Redis ${redis.version} on 127.0.0.1:${redis.port} (pid ${redis.pid}) for the scaled targets`);
  return {
    cluster,
    redis,
    databaseUrl,
    env: { ASTRION_DATABASE_URL: databaseUrl, ASTRION_REDIS_URL: redis.url },
    cpuMs: () => cluster.cpuMs() + redis.cpuMs(),
    label: `PostgreSQL ${cluster.version} + Redis ${redis.version}`,
    async stop() {
      await redis.stop();
      await cluster.stop();
    },
  };
}

const round2 = (x) => +x.toFixed(2);
const CORES = os.cpus().length;
const ownCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : null;
};

/**
 * Two instances against one: `rounds` times, ten conversations on instance A alone, then ten on A
 * and ten on B at once (`run(app, titles)` runs titles at once on one app and resolves to its
 * figures, bench/engine.mjs `appRuns`). Per round and instance: wall ms per model call (its
 * conversations' wall / its calls) and its server's CPU per call; the services' CPU per call
 * over both, and `cpu_bound_ms_per_call`: the wall per call per instance the cores allowed at
 * best, given every process's CPU per call in those rounds. `floorMsPerCall`: the floor's ten-at-once median, for the overheads.
 */
export async function twoInstances({ a, b, rounds, concurrent, run, services, floorMsPerCall }) {
  const one = [];
  const two = [];
  for (let r = 0; r < rounds; r++) {
    const s0 = services.cpuMs();
    const alone = await run(a, Array.from({ length: concurrent }, (_, i) => `${a.name}-alone-r${r}-${i}`));
    const s1 = services.cpuMs();
    one.push({ ms_per_call: alone.wall_ms / alone.calls, cpu_ms_per_call: alone.cpu_ms / alone.calls, services_cpu_ms_per_call: (s1 - s0) / alone.calls });
    const own0 = ownCpuMs();
    const [onA, onB] = await Promise.all([
      run(a, Array.from({ length: concurrent }, (_, i) => `${a.name}-pair-r${r}-${i}`)),
      run(b, Array.from({ length: concurrent }, (_, i) => `${b.name}-pair-r${r}-${i}`)),
    ]);
    const calls = onA.calls + onB.calls;
    const ownPerCall = (ownCpuMs() - own0) / calls;
    const servicesPerCall = (services.cpuMs() - s1) / calls;
    const serversPerCall = (onA.cpu_ms + onB.cpu_ms) / calls;
    two.push({
      // What the machine's cores allowed: every process's CPU per call (both servers, PostgreSQL
      // and Redis, and the bench's own: the fake model and the viewers) spread over the cores,
      // as wall per call of one instance (each makes half the calls).
      cpu_bound_ms_per_call: ((serversPerCall + servicesPerCall + ownPerCall) * 2) / CORES,
      bench_process_cpu_ms_per_call: ownPerCall,
      ms_per_call_a: onA.wall_ms / onA.calls,
      ms_per_call_b: onB.wall_ms / onB.calls,
      ms_per_call: (onA.wall_ms / onA.calls + onB.wall_ms / onB.calls) / 2,
      cpu_ms_per_call: (onA.cpu_ms + onB.cpu_ms) / calls,
      services_cpu_ms_per_call: servicesPerCall,
    });
  }
  const pick = (xs, k) => round2(median(xs.map((x) => x[k])));
  const oneMs = pick(one, "ms_per_call");
  const twoMs = pick(two, "ms_per_call");
  const oneOverhead = round2(oneMs - floorMsPerCall);
  const twoOverhead = round2(twoMs - floorMsPerCall);
  return {
    conditions: `${rounds} rounds: ${concurrent} conversations at once on instance A alone, then ${concurrent} on A and ${concurrent} on B at once (both on one PostgreSQL and one Redis); per instance, its conversations' wall / its model calls; medians over rounds. Overhead: minus the floor's ${concurrent}-at-once ms per call (${floorMsPerCall}).`,
    one_instance: { conversations: concurrent, ms_per_call: oneMs, overhead_ms_per_call: oneOverhead, cpu_ms_per_call: pick(one, "cpu_ms_per_call"), services_cpu_ms_per_call: pick(one, "services_cpu_ms_per_call") },
    two_instances: {
      conversations: concurrent * 2,
      ms_per_call: twoMs,
      ms_per_call_a: pick(two, "ms_per_call_a"),
      ms_per_call_b: pick(two, "ms_per_call_b"),
      overhead_ms_per_call: twoOverhead,
      cpu_ms_per_call: pick(two, "cpu_ms_per_call"),
      services_cpu_ms_per_call: pick(two, "services_cpu_ms_per_call"),
      bench_process_cpu_ms_per_call: pick(two, "bench_process_cpu_ms_per_call"),
      cpu_bound_ms_per_call: pick(two, "cpu_bound_ms_per_call"),
    },
    cores: CORES,
    overhead_ratio_two_to_one: oneOverhead > 0 ? round2(twoOverhead / oneOverhead) : null,
    ms_per_call_ratio_two_to_one: round2(twoMs / oneMs),
  };
}
