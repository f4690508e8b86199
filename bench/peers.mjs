/**
 * The peers in the engine bench (issues 28 and 31): other frameworks doing the floor's user
 * workload against the same fake model in the same run, each in a child process of its own so
 * its CPU is its own: OpenAI Agents JS (bench/peer-agents.mjs, persists nothing) and LangGraph.js
 * with its SQLite and its PostgreSQL checkpointers (bench/peer-langgraph.mjs; PostgreSQL on a
 * throwaway cluster, bench/pg-cluster.mjs, skipped with the reason when its binaries are missing).
 * Installed on demand into a cache folder (bench/peer-install.mjs), never into this project.
 *
 * Fairness is checked, not assumed: every peer run's calls, as the fake model saw them, must
 * match the floor's ({@link workloadSignature}: each worker's two read_file calls, its report
 * and its answer to the follow-up; the leader's three create_sub_agent calls, one
 * send_message_to_agent per report and one summary), and the calls the peer counted must be the
 * calls the fake answered; the bench throws otherwise. How often the leader is woken (and so
 * answers "waiting") is each framework's own scheduling and is not part of the check: the
 * per-call figures divide by each run's own calls, which are reported beside the floor's.
 */
import { startAgentsPeer } from "./peer-agents.mjs";
import { installedVersions, PEERS, peersAsked, preparePeers } from "./peer-install.mjs";
import { startLangGraphPeer } from "./peer-langgraph.mjs";
import { pgBinDir, startPgCluster } from "./pg-cluster.mjs";

const progress = (line) => process.stderr.write(`[bench peers] ${line}\n`);
/** The JSON key of a peer (`--peers` names use dashes, the report's keys underscores). */
const keyOf = (name) => ({ agents: "agents_js", "langgraph-sqlite": "langgraph_sqlite", "langgraph-postgres": "langgraph_postgres" })[name];
const ownCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/**
 * What a conversation's calls were, as the fake answered them (its `calls` records), without
 * what depends on scheduling (how often the leader was woken, the workers' names and order).
 */
function workloadSignature(calls, conv) {
  const workers = new Map();
  const leader = { calls: 0, create_sub_agent: 0, send_message_to_agent: 0, summary: 0 };
  for (const c of calls.values()) {
    if (c.conv !== conv) continue;
    if (c.who === "leader") {
      leader.calls++;
      for (const t of c.tools) if (Object.hasOwn(leader, t)) leader[t]++;
      if (c.summary) leader.summary++;
      continue;
    }
    const w = workers.get(c.who) ?? { calls: 0, read_file: 0, report_to_leader: 0, text: 0 };
    w.calls++;
    for (const t of c.tools) w[t] = (w[t] ?? 0) + 1;
    if (c.text) w.text++;
    workers.set(c.who, w);
  }
  const { calls: leaderCalls, ...leaderKinds } = leader;
  return {
    calls: leaderCalls + [...workers.values()].reduce((n, w) => n + w.calls, 0),
    key: JSON.stringify({ leader: leaderKinds, workers: [...workers.values()].map((w) => JSON.stringify(w)).sort() }),
  };
}

/** The floor's signature over `convs` (they must all agree: the floor is the reference). */
export function floorSignature(calls, convs) {
  const keys = new Set(convs.map((c) => workloadSignature(calls, c).key));
  if (keys.size !== 1) throw new Error(`the floor's runs made different calls: ${[...keys].join(" | ")}`);
  return [...keys][0];
}

/** Throws unless conversation `conv` of `peer` made the floor's calls (`expected`) and `counted` of them. */
function check(peer, calls, conv, counted, expected) {
  const got = workloadSignature(calls, conv);
  if (got.key !== expected) throw new Error(`${peer.label}: run ${conv} did not make the floor's calls.\n  floor: ${expected}\n  peer:  ${got.key}`);
  if (counted !== undefined && counted !== got.calls) throw new Error(`${peer.label}: run ${conv} counted ${counted} model calls, the fake answered ${got.calls}`);
  return got.calls;
}

/**
 * Installs (once) and starts the peers asked for (`--peers`, BENCH_PEERS; all by default) on the
 * fake at `url`. Resolves to `{ list, skipped, installedIn, versions, stop() }`; each of `list` is
 * `{ name, key, label, runner, cluster }`. `sharedCluster`: a PostgreSQL cluster the caller started
 * and stops (the app on PostgreSQL + Redis runs on the same one); without it one is started here.
 */
export async function startPeers({ url, project, sharedCluster = null }) {
  const asked = peersAsked();
  const out = { list: [], skipped: {}, installedIn: null, versions: null, stop: async () => {} };
  if (!asked.length) return out;
  const dir = preparePeers();
  const versions = installedVersions(dir);
  Object.assign(out, { installedIn: dir, versions });
  let cluster = null;
  out.stop = async () => {
    for (const p of out.list) await p.runner.stop();
    if (cluster !== sharedCluster) await cluster?.stop();
  };
  const lg = versions["@langchain/langgraph"];
  try {
    for (const name of PEERS.filter((n) => asked.includes(n))) {
      const key = keyOf(name);
      if (name === "agents") {
        out.list.push({ name, key, label: `OpenAI Agents JS ${versions["@openai/agents"]} (persists nothing)`, runner: await startAgentsPeer({ url, project, dir }) });
      } else if (name === "langgraph-sqlite") {
        const label = `LangGraph.js ${lg} + SQLite checkpointer ${versions["@langchain/langgraph-checkpoint-sqlite"]}`;
        out.list.push({ name, key, label, runner: await startLangGraphPeer({ url, project, dir, saver: "sqlite" }) });
      } else if (name === "langgraph-postgres") {
        const { dir: bin, reason } = pgBinDir();
        if (!bin) {
          out.skipped[key] = reason;
          progress(`${name} skipped: ${reason}`);
          continue;
        }
        cluster = sharedCluster ?? (await startPgCluster());
        progress(`PostgreSQL ${cluster.version} for ${name} on 127.0.0.1:${cluster.port}, postmaster pid ${cluster.pid}`);
        const label = `LangGraph.js ${lg} + PostgreSQL checkpointer ${versions["@langchain/langgraph-checkpoint-postgres"]} (PostgreSQL ${cluster.version})`;
        out.list.push({ name, key, label, cluster, runner: await startLangGraphPeer({ url, project, dir, saver: "postgres", databaseUrl: cluster.url }) });
      }
    }
  } catch (error) {
    await out.stop();
    throw error;
  }
  for (const p of out.list) progress(`${p.key}: ${p.label}, pid ${p.runner.pid}`);
  return out;
}

/**
 * `count` runs of `peer` one after another (conversations `<prefix>-<n>`), each checked against
 * the floor's calls (`expected`). Per run, as the floor's: wall and CPU ms, model calls, and this
 * process's CPU (the fake's) and the database's shared evenly over the batch.
 */
export async function peerSequential(peer, calls, count, prefix, expected) {
  const own = ownCpuMs();
  const db = peer.cluster?.cpuMs();
  const runs = await peer.runner.sequential(count, prefix);
  const each = (ownCpuMs() - own) / count;
  const dbEach = peer.cluster ? (peer.cluster.cpuMs() - db) / count : undefined;
  return runs.map((r, i) => ({ ...r, calls: check(peer, calls, `${prefix}-${i}`, r.calls, expected), bench_process_cpu_ms: each, database_cpu_ms: dbEach }));
}

/** `count` runs of `peer` at once, checked as {@link peerSequential}'s; the round's totals. */
export async function peerConcurrent(peer, calls, count, prefix, expected) {
  const db = peer.cluster?.cpuMs();
  const round = await peer.runner.concurrent(count, prefix);
  const { calls_by_run: byRun, ...rest } = round;
  byRun.forEach((n, i) => check(peer, calls, `${prefix}-${i}`, n, expected));
  return { ...rest, database_cpu_ms: peer.cluster ? peer.cluster.cpuMs() - db : undefined };
}

const round2 = (x) => +x.toFixed(2);
const med = (x) => (typeof x === "number" ? x : x?.median);
const sumOf = (xs, k) => xs.reduce((n, r) => n + (r[k] ?? 0), 0);

/**
 * The engine part's `peers` key: per peer and workload, wall and CPU per model call at one
 * conversation and at `concurrent` at once beside the floor's, the overhead (ms) and CPU ratio
 * over it, calls per run beside the floor's, and for PostgreSQL the database's CPU per call.
 * `seq[v][key]` and `par[key]` are the figures (bench/engine.mjs `sequentialFigures` /
 * `concurrentFigures`), `rawSeq` / `rawPar` the runs they came from.
 */
export function peersReport({ peers, seq, par, rawSeq, rawPar, concurrent }) {
  const out = { asked: peersAsked(), installed_in: peers.installedIn, versions: peers.versions, skipped: peers.skipped };
  const versus = (floor, p, pick) => ({ floor: pick(floor), peer: pick(p), overhead: round2(pick(p) - pick(floor)), ratio: round2(pick(p) / pick(floor)) });
  for (const p of peers.list) {
    const entry = { label: p.label };
    for (const [v, group] of Object.entries(seq)) {
      if (!group[p.key]) continue;
      const f = group.floor;
      const mine = group[p.key];
      const one = {
        wall_ms_per_call: versus(f, mine, (x) => med(x.ms_per_call)),
        cpu_ms_per_call: versus(f, mine, (x) => x.cpu_ms_per_call),
        calls_per_run: { floor: f.calls_per_run, peer: mine.calls_per_run },
      };
      if (p.cluster) one.database_cpu_ms_per_call = round2(sumOf(rawSeq[v][p.key], "database_cpu_ms") / sumOf(rawSeq[v][p.key], "calls"));
      entry[v] = { one_conversation: one };
      if (v === "user" && par?.[p.key]) {
        const many = {
          wall_ms_per_call: versus(par.floor, par[p.key], (x) => med(x.ms_per_call)),
          cpu_ms_per_call: versus(par.floor, par[p.key], (x) => med(x.cpu_ms_per_call)),
          calls_per_round: { floor: par.floor.calls_per_round, peer: par[p.key].calls_per_round },
        };
        if (p.cluster) many.database_cpu_ms_per_call = round2(sumOf(rawPar[p.key], "database_cpu_ms") / sumOf(rawPar[p.key], "calls"));
        entry[v][`${concurrent}_conversations_at_once`] = many;
      }
    }
    out[p.key] = entry;
  }
  return out;
}
