/**
 * What the engine bench's peers rest on (bench/peers.mjs, bench/pg-cluster.mjs), attacked here
 * without installing the peers themselves (the bench does that, and is their own test):
 * - a peer run is measured only if it made the floor's calls, as the fake model saw them, and
 *   counted them right: a run missing one call, or miscounting, stops the bench;
 * - the throwaway PostgreSQL cluster serves on loopback and is stopped and removed by `stop()`,
 *   when the process that started it dies of an error, and when it is ended by SIGTERM;
 * - the throwaway redis-server (the app on PostgreSQL + Redis, bench/scaled.mjs) answers on
 *   loopback, counts its CPU, and is gone with its folder after `stop()`.
 * The bench's modules are plain JS, loaded by path.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeText, fakeToolCalls, startFakeOpenAI, type FakeOpenAI } from "./helpers/fake-openai";
import { tempDir } from "./helpers/server";

const ROOT = path.resolve(__dirname, "..");
/** A bench module by path (typed loosely: they are plain JS without declarations). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const bench = (file: string): Promise<any> => import(pathToFileURL(path.join(ROOT, "bench", file)).href);

type CallRecord = { conv: string; who: string; text: boolean; tools: string[]; summary: boolean };
type Run = { wall_ms: number; cpu_ms: number; calls: number };
type Floor = { sequential(count: number, prefix: string, options: { shape: string }): Promise<Run[]>; stop(): void };

describe("a peer's runs are checked against the floor's calls", () => {
  let fake: FakeOpenAI;
  let floor: Floor;
  const calls = new Map<number, CallRecord>();
  let expected: string;
  let project: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let peers: any;

  beforeAll(async () => {
    const workload = await bench("workload.mjs");
    peers = await bench("peers.mjs");
    project = tempDir("astrion-bench-peers-project-");
    workload.writeFixtureProject(project);
    const signal = { fire: () => {} };
    fake = await startFakeOpenAI({ script: workload.workloadHandler({ fakeText, fakeToolCalls }, calls, signal, { shape: "user", textChunks: 50 }) });
    floor = await (await bench("floor.mjs")).startFloor({ url: fake.url, project });
    await floor.sequential(2, "reference", { shape: "user" });
    expected = peers.floorSignature(calls, ["reference-0", "reference-1"]);
  }, 60_000);
  afterAll(async () => {
    floor?.stop();
    await fake?.close();
    if (project) rmSync(project, { recursive: true, force: true });
  });

  /** A stand-in peer whose runs are the floor's, then `tamper`ed with. */
  const peerOf = (tamper: (runs: Run[], prefix: string) => void) => ({
    label: "stand-in",
    runner: {
      sequential: async (count: number, prefix: string) => {
        const runs = await floor.sequential(count, prefix, { shape: "user" });
        tamper(runs, prefix);
        return runs;
      },
    },
  });

  it("measures a run that made the floor's calls, with the calls the fake answered", async () => {
    const runs = await peers.peerSequential(
      peerOf(() => {}),
      calls,
      2,
      "same",
      expected,
    );
    expect(runs).toHaveLength(2);
    const answered = [...calls.values()].filter((c) => c.conv === "same-0").length;
    expect(runs[0].calls).toBe(answered);
    expect(JSON.parse(expected)).toMatchObject({ leader: { create_sub_agent: 3, send_message_to_agent: 3, summary: 1 } });
  }, 60_000);

  it("stops the bench on a run that is missing a worker's call", async () => {
    const dropOne = (_runs: Run[], prefix: string) => {
      const entry = [...calls.entries()].find(([, c]) => c.conv === `${prefix}-0` && c.tools.includes("read_file"));
      calls.delete(entry![0]);
    };
    await expect(peers.peerSequential(peerOf(dropOne), calls, 1, "cut", expected)).rejects.toThrow(/did not make the floor's calls/);
  }, 60_000);

  it("stops the bench on a run that counted other calls than the fake answered", async () => {
    const miscount = (runs: Run[]) => {
      runs[0]!.calls += 1;
    };
    await expect(peers.peerSequential(peerOf(miscount), calls, 1, "miscount", expected)).rejects.toThrow(/counted \d+ model calls, the fake answered/);
  }, 60_000);

  it("refuses a reference where the floor's own runs disagree", () => {
    const odd = new Map(calls);
    odd.set(-1, { conv: "reference-1", who: "leader", text: false, tools: ["create_sub_agent"], summary: false });
    expect(() => peers.floorSignature(odd, ["reference-0", "reference-1"])).toThrow(/the floor's runs made different calls/);
  });
});

/** Whether `pid` is a running process (a zombie waiting to be reaped is not). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** Starts a cluster in a child Node process running `then` after it printed `{ pid, dir, url }`; resolves with those and the exit. */
function clusterInChild(then: string): Promise<{ info: { pid: number; dir: string }; exit: Promise<number | null>; kill: (s: NodeJS.Signals) => void }> {
  const script =
    `const { startPgCluster } = await import(${JSON.stringify(pathToFileURL(path.join(ROOT, "bench", "pg-cluster.mjs")).href)});\n` +
    `const c = await startPgCluster();\nconsole.log(JSON.stringify({ pid: c.pid, dir: c.dir, url: c.url }));\n${then}`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stderr.on("data", (c) => (err += c));
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    child.stdout.on("data", (c) => {
      out += c;
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (line) resolve({ info: JSON.parse(line), exit, kill: (s) => child.kill(s) });
    });
    void exit.then((code) => reject(new Error(`the child exited with ${code} before its cluster was up:\n${err}`)));
  });
}

describe("the bench's throwaway PostgreSQL cluster", () => {
  beforeAll(async () => {
    const { pgBinDir } = await bench("pg-cluster.mjs");
    const { dir, reason } = pgBinDir();
    if (!dir) throw new Error(`${reason}: apt-get install -y postgresql`);
  });

  it("serves on loopback and is gone after stop()", async () => {
    const { startPgCluster } = await bench("pg-cluster.mjs");
    const cluster = await startPgCluster();
    try {
      expect(cluster.url).toMatch(/^postgresql:\/\/postgres@127\.0\.0\.1:\d+\/postgres$/);
      const client = new pg.Client({ connectionString: cluster.url });
      await client.connect();
      const { rows } = await client.query("select current_setting('fsync') as fsync, current_setting('synchronous_commit') as sync");
      await client.end();
      // The server keeps PostgreSQL's durability: a commit is on disk when it returns.
      expect(rows[0]).toEqual({ fsync: "on", sync: "on" });
      expect(cluster.cpuMs()).toBeGreaterThanOrEqual(0);
      expect(running(cluster.pid)).toBe(true);
    } finally {
      await cluster.stop();
    }
    expect(running(cluster.pid)).toBe(false);
    expect(existsSync(cluster.dir)).toBe(false);
  }, 60_000);

  it("is stopped and removed when the process that started it dies of an error", async () => {
    const { info, exit } = await clusterInChild(`throw new Error("the bench failed");`);
    expect(await exit).not.toBe(0);
    expect(running(info.pid)).toBe(false);
    expect(existsSync(info.dir)).toBe(false);
  }, 60_000);

  it("is stopped and removed when the process that started it is ended by SIGTERM", async () => {
    const { info, exit, kill } = await clusterInChild(`setInterval(() => {}, 1000);`);
    expect(running(info.pid)).toBe(true);
    kill("SIGTERM");
    await exit;
    expect(running(info.pid)).toBe(false);
    expect(existsSync(info.dir)).toBe(false);
  }, 60_000);
});

describe("the bench's throwaway redis-server", () => {
  it("answers on loopback and is gone with its folder after stop()", async () => {
    const { redisBinary, startRedisServer } = await bench("redis-server.mjs");
    if (!redisBinary().bin) throw new Error(`${redisBinary().reason}`);
    const server = await startRedisServer();
    let dir = "";
    try {
      expect(server.url).toMatch(/^redis:\/\/127\.0\.0\.1:\d+$/);
      const { Redis } = await import("ioredis");
      const client = new Redis(server.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
      await client.connect();
      expect(await client.ping()).toBe("PONG");
      dir = String(await client.config("GET", "dir").then((r) => (r as string[])[1]));
      client.disconnect();
      expect(existsSync(dir)).toBe(true);
      expect(server.cpuMs()).toBeGreaterThanOrEqual(0);
      expect(running(server.pid)).toBe(true);
    } finally {
      await server.stop();
    }
    expect(running(server.pid)).toBe(false);
    expect(existsSync(dir)).toBe(false);
  }, 60_000);
});
