/**
 * The two halves of a peer's child process (bench/peer-agents.mjs, bench/peer-langgraph.mjs), the
 * same protocol as the floor's (bench/floor.mjs): the parent forks the peer's file and asks it over
 * IPC for `sequential` runs (per run: wall and CPU ms, model calls) or `concurrent` ones (totals);
 * the child times them with `process.cpuUsage()`, so the CPU it reports is the framework's own,
 * not the fake model's, which lives in the parent.
 */
import { fork } from "node:child_process";
import { mainThreadCpuMs } from "./conversation.mjs";

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const mainMs = () => mainThreadCpuMs(process.pid);

/**
 * The child's half: `setup(config)` (the JSON the parent passed) resolves to `{ runUser(conv),
 * close() }`, where `runUser` does one run of the user workload as conversation `conv` and
 * resolves to the model calls it made. Answers the parent's requests until it is killed.
 */
export async function servePeer(setup) {
  const config = JSON.parse(process.argv[3]);
  const peer = await setup(config);
  process.on("message", async ({ id, kind, count, prefix }) => {
    try {
      let result;
      if (kind === "sequential") {
        result = [];
        for (let i = 0; i < count; i++) {
          const [t, c, m] = [performance.now(), cpuMs(), mainMs()];
          const calls = await peer.runUser(`${prefix}-${i}`);
          result.push({ wall_ms: performance.now() - t, cpu_ms: cpuMs() - c, main_thread_cpu_ms: mainMs() - m, calls });
        }
      } else if (kind === "concurrent") {
        const [t, c, m] = [performance.now(), cpuMs(), mainMs()];
        const calls = await Promise.all(Array.from({ length: count }, (_, i) => peer.runUser(`${prefix}-${i}`)));
        result = { wall_ms: performance.now() - t, cpu_ms: cpuMs() - c, main_thread_cpu_ms: mainMs() - m, calls: calls.reduce((a, b) => a + b, 0), calls_by_run: calls };
      } else if (kind === "close") {
        await peer.close();
        result = true;
      }
      process.send({ id, result });
    } catch (error) {
      process.send({ id, error: String(error?.stack ?? error) });
    }
  });
  process.send({ ready: true });
}

/**
 * The parent's half: forks `file` with `--child <config as JSON>` and waits for it to be ready.
 * `sequential(count, prefix)` and `concurrent(count, prefix)` run the workload (conversations
 * named `<prefix>-<n>`); `stop()` lets the peer close its storage, then ends the child.
 */
export async function forkPeer(file, config, env = process.env) {
  const proc = fork(file, ["--child", JSON.stringify(config)], { stdio: ["ignore", "inherit", "inherit", "ipc"], env });
  const pending = new Map();
  let nextId = 0;
  await new Promise((resolve, reject) => {
    proc.once("error", reject);
    proc.once("exit", (code) => reject(new Error(`peer ${file} exited with ${code} before it was ready`)));
    proc.once("message", resolve);
  });
  proc.removeAllListeners("exit");
  const exited = new Promise((resolve) => proc.once("exit", resolve));
  proc.once("exit", (code, signal) => {
    for (const p of pending.values()) p.reject(new Error(`peer ${file} exited with ${code ?? signal}`));
    pending.clear();
  });
  proc.on("message", ({ id, result, error }) => {
    const p = pending.get(id);
    pending.delete(id);
    if (error) p?.reject(new Error(error));
    else p?.resolve(result);
  });
  // A run that never ends (a peer waiting for a call the fake will not make) fails the bench
  // instead of hanging it; the limit is the one the app's runs get (bench/engine.mjs).
  const ask = (kind, count, prefix, limitMs = 180_000 * Math.max(1, count ?? 1)) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`peer ${file}: ${kind} ${prefix ?? ""} did not finish in ${limitMs / 1000} s`));
      }, limitMs);
      const done = (f) => (x) => {
        clearTimeout(timer);
        f(x);
      };
      pending.set(id, { resolve: done(resolve), reject: done(reject) });
      proc.send({ id, kind, count, prefix });
    });
  return {
    pid: proc.pid,
    sequential: (count, prefix) => ask("sequential", count, prefix),
    concurrent: (count, prefix) => ask("concurrent", count, prefix),
    stop: async () => {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      // Closing the storage first (a pool, a database file) lets a PostgreSQL cluster stop cleanly.
      await ask("close", undefined, undefined, 5000).catch(() => {});
      proc.kill();
      await exited;
    },
  };
}
