/**
 * A throwaway PostgreSQL cluster for the bench (LangGraph's PostgreSQL checkpointer, issue 31):
 * `initdb` into a temporary folder, `pg_ctl start` on a free loopback port with its socket in that
 * folder, and `stop()` that stops it and removes the folder. Run as root (as the bench is here),
 * the server runs as the `postgres` user (`runuser -u postgres --`: PostgreSQL refuses root);
 * otherwise as the current user. Binaries: the newest /usr/lib/postgresql/<version>/bin (Debian's
 * layout), or BENCH_PG_BIN. The server keeps PostgreSQL's defaults for durability (fsync and
 * synchronous_commit on), so a commit is on disk when it returns, as the app's steps are.
 *
 * A cluster still running when the process exits, or is ended by SIGINT / SIGTERM, is stopped
 * then (`pg_ctl stop -m immediate`), so a failed or interrupted bench leaves no server behind.
 * Plain JS on purpose: the tests have their own starter (test/support/pg-cluster.ts).
 */
import { spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

/** PostgreSQL's bin folder, or null with why not (the caller reports the peer as skipped). */
export function pgBinDir(env = process.env) {
  if (env.BENCH_PG_BIN) return existsSync(path.join(env.BENCH_PG_BIN, "initdb")) ? { dir: env.BENCH_PG_BIN } : { dir: null, reason: `no initdb in BENCH_PG_BIN=${env.BENCH_PG_BIN}` };
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(path.join(root, v, "bin", "initdb")) && existsSync(path.join(root, v, "bin", "pg_ctl"))) : [];
  versions.sort((a, b) => Number(b) - Number(a));
  if (!versions.length) return { dir: null, reason: `no PostgreSQL server binaries under ${root} (apt-get install postgresql)` };
  return { dir: path.join(root, versions[0], "bin") };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

const running = new Set();
let hooked = false;
/** Stops every cluster still running, synchronously (exit and signal handlers cannot wait). */
function stopAllNow() {
  for (const c of running) c.stopNow();
}
function hookExit() {
  if (hooked) return;
  hooked = true;
  process.once("exit", stopAllNow);
  for (const signal of ["SIGINT", "SIGTERM"]) {
    process.once(signal, () => {
      stopAllNow();
      process.kill(process.pid, signal);
    });
  }
}

/**
 * Starts a cluster and resolves to `{ url, port, pid, version, dir, cpuMs(), stop() }`: `url` is a
 * `postgresql://` URL to the `postgres` database over TCP on 127.0.0.1; `cpuMs()` the CPU time
 * of the server and all its processes so far (for per-call figures); `dir` the temporary folder
 * (data, socket, log); `stop()` stops it and removes that folder. Throws with the command's output when a step fails (binaries missing:
 * see {@link pgBinDir}).
 */
export async function startPgCluster({ env = process.env } = {}) {
  const { dir: bin, reason } = pgBinDir(env);
  if (!bin) throw new Error(reason);
  const asRoot = process.getuid?.() === 0;
  const root = mkdtempSync(path.join(os.tmpdir(), "astrion-bench-pg-"));
  const data = path.join(root, "data");
  const log = path.join(root, "server.log");
  if (asRoot) {
    const ids = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
    const gids = spawnSync("id", ["-g", "postgres"], { encoding: "utf8" });
    if (ids.status !== 0) throw new Error("running as root, but there is no postgres user to run the server as (apt-get install postgresql creates it)");
    chownSync(root, Number(ids.stdout), Number(gids.stdout));
  }
  const pg = (tool, args) => {
    const [cmd, argv] = asRoot ? ["runuser", ["-u", "postgres", "--", path.join(bin, tool), ...args]] : [path.join(bin, tool), args];
    const r = spawnSync(cmd, argv, { encoding: "utf8", cwd: root, env: { ...env, LC_ALL: "C" } });
    if (r.status !== 0) throw new Error(`${tool} ${args.join(" ")} failed with ${r.status ?? r.signal}:\n${r.stdout}${r.stderr}${existsSync(log) ? readFileSync(log, "utf8").slice(-2000) : ""}`);
    return r.stdout;
  };
  const port = await freePort();
  let started = false;
  const stopNow = () => {
    if (started) {
      try {
        pg("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
      } catch {
        /* already stopped */
      }
      started = false;
    }
    rmSync(root, { recursive: true, force: true });
  };
  const cluster = { stopNow };
  try {
    // --no-sync: initdb's own files need not reach the disk (the cluster is thrown away); the
    // server itself runs with fsync on.
    pg("initdb", ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync"]);
    running.add(cluster);
    hookExit();
    const options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${root} -c max_connections=100`;
    pg("pg_ctl", ["-D", data, "-l", log, "-o", options, "-w", "-t", "60", "start"]);
    started = true;
  } catch (error) {
    running.delete(cluster);
    stopNow();
    throw error;
  }
  const pid = Number(readFileSync(path.join(data, "postmaster.pid"), "utf8").split("\n")[0]);
  const version = readFileSync(path.join(data, "PG_VERSION"), "utf8").trim();
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    port,
    pid,
    version,
    dir: root,
    cpuMs: () => clusterCpuMs(pid),
    stop: async () => {
      running.delete(cluster);
      stopNow();
    },
  };
}

let tickMs;
/** Milliseconds per clock tick of /proc/<pid>/stat (`getconf CLK_TCK`, 100 on Linux). */
function msPerTick() {
  tickMs ??= 1000 / (Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout?.trim()) || 100);
  return tickMs;
}
/** utime + stime (and, with `children`, cutime + cstime) of `pid` from /proc, in ms; 0 once gone. */
export function procCpuMs(pid, children = false) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // Fields 14–17 of proc(5), counted from the state (field 3) here.
    const ticks = Number(f[11]) + Number(f[12]) + (children ? Number(f[13]) + Number(f[14]) : 0);
    return ticks * msPerTick();
  } catch {
    return 0;
  }
}

/**
 * The CPU time of the postmaster and every process it started (backends, the WAL writer, the
 * checkpointer…): those alive now, and those that exited (counted in the postmaster's cutime).
 */
function clusterCpuMs(pid) {
  let total = procCpuMs(pid, true);
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) total += procCpuMs(Number(entry), false);
    } catch {
      /* the process ended meanwhile */
    }
  }
  return total;
}
