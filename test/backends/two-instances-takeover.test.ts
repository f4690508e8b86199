/**
 * Two instances on one PostgreSQL and one Redis, each a real built server on its own port
 * (issue 31, "Leases"): a run whose instance dies or stalls is taken over by the other one.
 *
 * Both servers share one data folder (`ASTRION_HOME`): on PostgreSQL + Redis the data folder
 * holds only the settings every instance shares (roles, models), as a deployment's shared folder
 * would (lib/server/app.ts takes no lock on it then); the conversations are in PostgreSQL. The
 * project folder is one path both see, as docs/postgresql.md requires. The lease term is 2 s
 * (`ASTRION_LEASE_MS`), so the takeover scan runs every second.
 *
 * The fake model (test/helpers/fake-openai.ts) answers slowly and fingerprints every request (the
 * answer carries a marker `[rN]`); the side effects are write_file calls, counted by watching the
 * project folder (one rename onto a file per completed write).
 * - SIGKILL of A mid-run: B takes the run over (the lease's new epoch is B's) within twice the
 *   lease term of the kill (the figure is printed), finishes it to the leader's summary, no
 *   answer that was committed was asked for again, and no write ran twice.
 * - SIGSTOP of A past its lease: B takes over; after SIGCONT A's next write is refused (its log
 *   says so), A drops the run (its health shows no run), along every line file of the
 *   conversation the epochs never go down (no line of A's landed after B's first), and in the
 *   conversation's Redis stream of viewers' events no event of A's follows one of B's (an
 *   event's tag begins with its process's origin).
 * - A project folder B cannot see (B runs in a mount namespace where an empty tmpfs hides the
 *   folder holding it): A killed mid-run, B takes the lease and refuses to resume the run, with
 *   a log line, a refused `resume` on the timeline and a notice on the conversation.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync, type FSWatcher } from "node:fs";
import path from "node:path";
import { Redis } from "ioredis";
import { Client } from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pgClusterForFile } from "@/test/support/pg-cluster";
import { startRedis, type TestRedis } from "@/test/support/redis-server";
import { crashTeam, watchWrites, type Msg } from "../helpers/crash-team";
import { startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai";
import { seedRolesAllowingWrites } from "../helpers/roles";
import { killServer, snapshotOf, startServer, tempDir, type TestServer } from "../helpers/server";
import { openSse } from "../helpers/sse";
import { until } from "../helpers/wait";

const LEASE_MS = 2000;
const TEAM = ["technical-writer", "test-engineer"];
const STEP_DELAY_MS = 250;
const { handler, asked, callsOf } = crashTeam(TEAM, { stepDelayMs: STEP_DELAY_MS, chunkDelayMs: 20 });

const pg = pgClusterForFile();
let redis: TestRedis;
let databaseUrl: string;
let fake: FakeOpenAI;
let home: string;
let project: string;
/** A folder B cannot see (an empty tmpfs over it in B's mount namespace), holding a project A can. */
let hidden: string;
let watcher: FSWatcher;
const servers: TestServer[] = [];
/** Renames onto each file of the project (one per completed write_file). */
const renames = new Map<string, number>();

async function rows<T>(sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

/** The origins (the first 9 characters of the tags, lib/bus-redis/ids.ts) of a conversation's stream entries, in stream order. */
async function streamOrigins(id: string): Promise<string[]> {
  const client = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  try {
    const entries = (await client.xrange(`astrion:bus:{conv:${id}}:s`, "-", "+")) as Array<[string, string[]]>;
    return entries.map(([, fields]) => String(fields[fields.indexOf("t") + 1]).slice(0, 9));
  } finally {
    client.disconnect();
  }
}

async function lease(id: string): Promise<{ owner: string; epoch: number; acquired: Date } | null> {
  const [row] = await rows<{ owner: string; epoch: string; acquired: Date }>(`SELECT owner, epoch, expires_at - $2::float8 * interval '1 millisecond' AS acquired FROM leases WHERE conversation_id = $1`, [id, LEASE_MS]);
  return row ? { owner: row.owner, epoch: Number(row.epoch), acquired: row.acquired } : null;
}

const env = () => ({
  ASTRION_DATABASE_URL: databaseUrl,
  ASTRION_REDIS_URL: redis.url,
  ASTRION_LEASE_MS: String(LEASE_MS),
  FAKE_OPENAI_KEY: "sk-fake",
  ASTRION_LEADER_BATCH_MS: "20",
});

/** Runs B in a mount namespace where `folder` is an empty tmpfs (as a machine that does not have it). */
function hidingLauncher(folder: string): string[] {
  const script = 'mount -t tmpfs none "$1" && shift && exec "$@"';
  for (const ns of [["-m"], ["-r", "-m"]]) {
    const launcher = ["unshare", ...ns, "--propagation", "private", "sh", "-c", script, "sh", folder];
    if (spawnSync(launcher[0]!, [...launcher.slice(1), "true"]).status === 0) return launcher;
  }
  throw new Error("cannot make a mount namespace (unshare -m, as root or with user namespaces): apt-get install -y util-linux, and run as root");
}

async function start(launcher?: string[]): Promise<TestServer> {
  const server = await startServer({ home, env: env(), ...(launcher ? { launcher } : {}) });
  servers.push(server);
  return server;
}

async function startTeam(server: TestServer, title: string, projectPath = project): Promise<string> {
  const created = await server.api("POST", "/api/conversations", { title, project_path: projectPath });
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  const id = created.json.conversation.id as string;
  expect((await server.api("POST", `/api/conversations/${id}/messages`, { content: "Work as a team" })).status).toBe(202);
  return id;
}

async function summaryOn(server: TestServer, id: string): Promise<Msg[]> {
  return until(
    `the summary of ${id}`,
    async () => {
      const messages = (await server.api("GET", `/api/conversations/${id}/messages`)).json.messages as Msg[];
      return messages.some((m) => m.role === "assistant" && String(m.content).startsWith("SUMMARY")) ? messages : null;
    },
    120_000,
  );
}

/** The markers of every assistant message committed for `id` (every agent's and the leader's). */
async function savedMarkers(id: string): Promise<Set<string>> {
  const saved = new Set<string>();
  for (const r of await rows<{ message: Msg }>("SELECT message FROM messages WHERE conversation_id = $1", [id])) {
    if (r.message.role === "assistant") for (const marker of String(r.message.content ?? "").match(/\[r\d+\]/g) ?? []) saved.add(marker);
  }
  return saved;
}

beforeAll(async () => {
  redis = await startRedis();
  databaseUrl = await pg.cluster.createDatabase();
  fake = await startFakeOpenAI({ script: handler });
  home = tempDir("astrion-two-home-");
  seedRolesAllowingWrites(home);
  writeFileSync(path.join(home, "models.json"), JSON.stringify({ default: "fake", models: { fake: { base_url: fake.url, api_key_env: "FAKE_OPENAI_KEY", model: "fake-model", timeouts: { first_response_ms: 10_000 } } } }));
  project = tempDir("astrion-two-project-");
  writeFileSync(path.join(project, "README.md"), "# Two instances\n");
  hidden = tempDir("astrion-two-hidden-");
  mkdirSync(path.join(hidden, "project"));
  writeFileSync(path.join(hidden, "project", "README.md"), "# Only on A\n");
  watcher = watchWrites(project, renames);
}, 120_000);

afterAll(async () => {
  watcher?.close();
  for (const s of servers) {
    try {
      process.kill(-s.proc.pid!, "SIGCONT");
    } catch {
      /* gone */
    }
    await killServer(s).catch(() => undefined);
  }
  await fake?.close();
  await redis?.dispose();
});

describe("two instances on one PostgreSQL and one Redis", () => {
  let a: TestServer;
  let b: TestServer;

  it("A killed mid-run: B takes the run over within twice the lease and finishes it, repeating no committed call and no write", async () => {
    [a, b] = await Promise.all([start(), start(hidingLauncher(hidden))]);
    const title = "killed";
    const id = await startTeam(a, title);
    await until("A's run to be under way", async () => (callsOf.get(title) ?? 0) >= 4, 60_000);
    const before = (await lease(id))!;
    const killedAt = (await rows<{ now: Date }>("SELECT now()"))[0]!.now;
    await killServer(a);

    const taken = await until("B to take the lease over", async () => {
      const now = await lease(id);
      return now && now.epoch > before.epoch ? now : null;
    }, 30_000);
    expect(taken.owner).not.toBe(before.owner);
    // Measured on the database's clock (the lease's own times), from just before the kill.
    const takeoverMs = taken.acquired.getTime() - killedAt.getTime();
    console.log(JSON.stringify({ takeover_ms: takeoverMs, lease_ms: LEASE_MS, bound_ms: 2 * LEASE_MS }));
    expect(takeoverMs).toBeLessThanOrEqual(2 * LEASE_MS);
    expect(b.output()).toContain(`took over ${id} from instance ${before.owner}`);

    const messages = await summaryOn(b, id);
    expect(messages.filter((m) => String(m.content).includes("的任务完成汇报"))).toHaveLength(TEAM.length);
    // No committed answer was asked for again: a fingerprint asked twice had only its last answer saved.
    const saved = await savedMarkers(id);
    for (const markers of asked.values()) {
      const savedOnes = markers.filter((m) => saved.has(m));
      expect(savedOnes.length, `asked ${markers.length} times: ${markers.join(" ")}`).toBeLessThanOrEqual(1);
      if (savedOnes.length === 1) expect(savedOnes[0]).toBe(markers.at(-1));
    }
    // Every write ran once.
    const written = [...renames].filter(([name]) => name.startsWith(`${title}-`));
    expect(written.length).toBe(2 * TEAM.length);
    expect(written.filter(([, n]) => n > 1)).toEqual([]);
  }, 240_000);

  it("A paused past its lease: B takes over; resumed, A's next write is refused, A drops the run, and no line or event of A's lands after B's", async () => {
    a = await start();
    const title = "paused";
    const id = await startTeam(a, title);
    await until("A's run to be under way", async () => (callsOf.get(title) ?? 0) >= 4, 60_000);
    const before = (await lease(id))!;
    process.kill(-a.proc.pid!, "SIGSTOP");
    // What A published so far: its origin.
    const aOrigins = new Set(await streamOrigins(id));
    expect(aOrigins.size).toBe(1);
    let resumed = false;
    let viewer: Awaited<ReturnType<typeof openSse>> | null = null;
    try {
      const taken = await until("B to take the lease over", async () => {
        const now = await lease(id);
        return now && now.epoch > before.epoch ? now : null;
      }, 30_000);
      expect(b.output()).toContain(`took over ${id} from instance ${before.owner}`);
      // A viewer on B from the takeover on: every event it gets names its publisher's origin.
      viewer = await openSse(b, `/api/conversations/${id}/events`);
      expect(viewer.status).toBe(200);
      // B works on: a call after the takeover.
      const calls = callsOf.get(title) ?? 0;
      await until("B to call the model", async () => (callsOf.get(title) ?? 0) > calls, 30_000);
      process.kill(-a.proc.pid!, "SIGCONT");
      resumed = true;
      await until("A to log that its write was refused and it stops", async () => a.output().includes(`${id}: this instance stops running the conversation`) && a.output().includes(`lost its lease (epoch ${before.epoch}; instance ${taken.owner} holds it`), 30_000);
      await until("A to hold no run", async () => (await a.api("GET", "/api/health")).json.resident?.runs === 0, 30_000);
    } finally {
      if (!resumed) process.kill(-a.proc.pid!, "SIGCONT");
    }
    await summaryOn(b, id);
    await viewer!.waitFor(() => viewer!.events.some((e) => e.event.type === "message" && /SUMMARY/.test(JSON.stringify(e.event))), 30_000);
    viewer!.close();
    // The tag is the id's last part (lib/bus-redis/ids.ts: <numbering>-<position>-<tag>).
    const origins = viewer!.events.map((e) => e.id?.split("-")[2]?.slice(0, 9) ?? "");
    const firstOfB = origins.findIndex((o) => o.startsWith("o") && !aOrigins.has(o));
    expect(firstOfB).toBeGreaterThanOrEqual(0);
    expect(origins.slice(firstOfB).filter((o) => aOrigins.has(o))).toEqual([]);
    // Along each line file (timeline, journal, context reports), the epochs never go down: after
    // B's first line, every line is B's.
    const lines = await rows<{ file: string; seq: string; epoch: string }>("SELECT file, seq, epoch FROM conversation_lines WHERE conversation_id = $1 ORDER BY file, seq", [id]);
    expect(lines.length).toBeGreaterThan(0);
    const epochs = new Set(lines.map((l) => Number(l.epoch)));
    expect(epochs.has(before.epoch)).toBe(true);
    expect(Math.max(...epochs)).toBeGreaterThan(before.epoch);
    for (let i = 1; i < lines.length; i++) {
      if (lines[i]!.file !== lines[i - 1]!.file) continue;
      expect(Number(lines[i]!.epoch), `${lines[i]!.file} line ${lines[i]!.seq}`).toBeGreaterThanOrEqual(Number(lines[i - 1]!.epoch));
    }
    const written = [...renames].filter(([name]) => name.startsWith(`${title}-`));
    expect(written.filter(([, n]) => n > 1)).toEqual([]);
  }, 240_000);

  it("a project folder B cannot see: B takes the lease and refuses to resume, with a log line, a timeline record and a notice", async () => {
    const title = "unseen";
    const id = await startTeam(a, title, path.join(hidden, "project"));
    await until("A's run to be under way", async () => (callsOf.get(title) ?? 0) >= 2, 60_000);
    const before = (await lease(id))!;
    await killServer(a);
    await until("B to take the lease over", async () => ((await lease(id))?.epoch ?? 0) > before.epoch, 30_000);
    await until("B to say it cannot resume the run", async () => b.output().includes(`${id}: not resumed here: its project folder ${path.join(hidden, "project")} cannot be used on this instance`), 30_000);
    const timeline = await rows<{ line: string }>("SELECT line FROM conversation_lines WHERE conversation_id = $1 AND file = 'timeline.jsonl' ORDER BY seq", [id]);
    const refused = timeline.map((r) => JSON.parse(r.line) as { action?: string; status?: string }).filter((r) => r.action === "resume" && r.status === "refused");
    expect(refused).toHaveLength(1);
    const snapshot = await snapshotOf(b, id);
    expect((snapshot.notices as Array<{ code: string }>).map((n) => n.code)).toContain("project_refused");
    // Nothing ran on B: no call of this conversation after the takeover was asked for by it.
    const calls = callsOf.get(title) ?? 0;
    expect((await b.api("GET", `/api/conversations/${id}/messages`)).status).toBe(200);
    expect(callsOf.get(title) ?? 0).toBe(calls);
  }, 240_000);
});
