/**
 * SIGKILL at random moments spread over two instances (issue 31; `npm run crash-test --
 * --instances 2`): two real built servers on one PostgreSQL and one Redis (started by the test,
 * one shared settings folder, a 2 s lease) run teams of 4 sub-agents against a slow fake model;
 * one of them, drawn at random, is killed (its whole process group) after a random delay and
 * started again, CRASH_KILLS times (10 by default). A viewer follows the team at work over SSE,
 * reconnecting with `Last-Event-ID` to whichever instance holds the run. At the end:
 * - every run finished with every report and the leader's summary;
 * - no model call whose answer was committed was asked for again (the fake fingerprints requests);
 * - no write_file ran twice (the project folder is watched: one rename per completed write);
 * - the figures, written to CRASH_FIGURES as one JSON line when set: those two counts, the
 *   takeover time of each run the killed instance held (from just before the kill to the new
 *   lease, on the database's clock; median and worst), and the events the viewer lost (a gap in
 *   a stream's positions not covered by a snapshot).
 */
import { writeFileSync, type FSWatcher } from "node:fs";
import http from "node:http";
import path from "node:path";
import { Client } from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pgClusterForFile } from "@/test/support/pg-cluster";
import { startRedis, type TestRedis } from "@/test/support/redis-server";
import { crashTeam, watchWrites, type Msg } from "./helpers/crash-team";
import { startFakeOpenAI, type FakeOpenAI } from "./helpers/fake-openai";
import { seedRolesAllowingWrites } from "./helpers/roles";
import { killServer, startServer, tempDir, type TestServer } from "./helpers/server";
import { until } from "./helpers/wait";

const KILLS = Number(process.env.CRASH_KILLS ?? 10);
const LEASE_MS = 2000;
const TEAM = ["full-stack-engineer", "technical-writer", "test-engineer", "ui-operator"];
const STEP_DELAY_MS = 40;
const { handler, asked } = crashTeam(TEAM, { stepDelayMs: STEP_DELAY_MS, chunkDelayMs: 10 });

const pg = pgClusterForFile();
let redis: TestRedis;
let databaseUrl: string;
let fake: FakeOpenAI;
let home: string;
let project: string;
let watcher: FSWatcher;
/** The two instances' slots: the server running in each now. */
const slots: Array<TestServer | null> = [null, null];
const renames = new Map<string, number>();

let db: Client;
async function rows<T>(sql: string, params: unknown[] = []): Promise<T[]> {
  return (await db.query(sql, params)).rows as T[];
}

// Every team keeps its viewer to the end (200 kills start about 140 teams): one client address
// may hold that many streams here, beyond the default 20.
const env = () => ({ ASTRION_DATABASE_URL: databaseUrl, ASTRION_REDIS_URL: redis.url, ASTRION_LEASE_MS: String(LEASE_MS), FAKE_OPENAI_KEY: "sk-fake", ASTRION_LEADER_BATCH_MS: "20", ASTRION_SSE_MAX_PER_CLIENT: "1000", ASTRION_SSE_MAX_TOTAL: "1000" });
const live = () => slots.filter((s): s is TestServer => s !== null);
const any = () => live()[Math.floor(Math.random() * live().length)]!;
/** The owner id an instance leases as (it says so at start: lib/server/backend.ts). */
const ownerOf = (s: TestServer) => /leases runs as (\S+) /.exec(s.output())?.[1] ?? null;

/** A viewer of one conversation, reconnecting with Last-Event-ID to whichever instance serves it. */
class Viewer {
  lost = 0;
  reconnects = 0;
  /** Answers other than 200 (an instance still starting); none while every stream is allowed. */
  refused = 0;
  events = 0;
  #last = new Map<string, number>();
  #lastId: string | undefined;
  #stopped = false;
  #req: http.ClientRequest | null = null;
  readonly done: Promise<void>;

  constructor(readonly id: string) {
    this.done = this.#loop();
  }

  #take(id: string | undefined, type: string): void {
    this.events++;
    if (!id) return;
    this.#lastId = id;
    const m = /^([0-9a-z]+)-(\d+)-([0-9a-z]+)$/.exec(id);
    if (!m) return;
    const [numbering, position] = [m[1]!, Number(m[2])];
    const last = this.#last.get(numbering);
    // A snapshot covers everything up to its position; another event must follow the last one.
    if (type !== "snapshot" && last !== undefined && position > last + 1) this.lost += position - last - 1;
    this.#last.set(numbering, Math.max(last ?? 0, position));
  }

  async #loop(): Promise<void> {
    while (!this.#stopped) {
      const server = any();
      await new Promise<void>((resolve) => {
        const headers: Record<string, string> = { accept: "text/event-stream", origin: server.url, ...(this.#lastId ? { "last-event-id": this.#lastId } : {}) };
        const req = http.get({ host: "127.0.0.1", port: server.port, path: `/api/conversations/${this.id}/events`, headers }, (res) => {
          if (res.statusCode !== 200) {
            this.refused++;
            res.resume();
            // Destroyed by stop() before its end: closed, never ended.
            res.on("close", resolve);
            return;
          }
          let buffer = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => {
            buffer += chunk;
            for (let cut = buffer.indexOf("\n\n"); cut >= 0; cut = buffer.indexOf("\n\n")) {
              const block = buffer.slice(0, cut);
              buffer = buffer.slice(cut + 2);
              const id = /^id: (.*)$/m.exec(block)?.[1];
              const data = /^data: (.*)$/m.exec(block)?.[1];
              if (data) this.#take(id, (JSON.parse(data) as { type: string }).type);
            }
          });
          res.on("close", resolve);
          res.on("error", () => resolve());
        });
        req.on("error", () => resolve());
        this.#req = req;
      });
      if (!this.#stopped) {
        this.reconnects++;
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
      }
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#req?.destroy();
    await this.done;
  }
}

async function leaderMessages(id: string): Promise<Msg[]> {
  for (;;) {
    const r = await any().api("GET", `/api/conversations/${id}/messages`).catch(() => null);
    if (r?.status === 200) return r.json.messages as Msg[];
    await new Promise((res) => setTimeout(res, 200));
  }
}

async function startTeam(n: number): Promise<string> {
  for (;;) {
    const server = any();
    try {
      const created = await server.api("POST", "/api/conversations", { title: `crash2x${n}`, project_path: project });
      if (created.status !== 201) throw new Error(`create: ${created.status}`);
      const id = created.json.conversation.id as string;
      const sent = await server.api("POST", `/api/conversations/${id}/messages`, { content: "Work as a team" });
      if (sent.status !== 202) throw new Error(`message: ${sent.status}`);
      return id;
    } catch {
      // That instance was killed meanwhile: start the team elsewhere (a half-made one is left idle).
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

beforeAll(async () => {
  redis = await startRedis();
  databaseUrl = await pg.cluster.createDatabase();
  db = new Client({ connectionString: databaseUrl });
  await db.connect();
  fake = await startFakeOpenAI({ script: handler });
  home = tempDir("astrion-crash2-home-");
  seedRolesAllowingWrites(home);
  writeFileSync(path.join(home, "models.json"), JSON.stringify({ default: "fake", models: { fake: { base_url: fake.url, api_key_env: "FAKE_OPENAI_KEY", model: "fake-model", timeouts: { first_response_ms: 10_000 } } } }));
  project = tempDir("astrion-crash2-project-");
  writeFileSync(path.join(project, "README.md"), "# Crash test project\n");
  watcher = watchWrites(project, renames);
  const started = await Promise.all([startServer({ home, env: env() }), startServer({ home, env: env() })]);
  slots[0] = started[0]!;
  slots[1] = started[1]!;
}, 300_000);

afterAll(async () => {
  watcher?.close();
  for (const s of live()) await killServer(s).catch(() => undefined);
  await fake?.close();
  await db?.end();
  await redis?.dispose();
});

describe(`SIGKILL at random moments over two instances (${KILLS} kills)`, () => {
  it("repeats no committed model call and no side effect, takes every run over, and every run finishes", async () => {
    const teams: string[] = [];
    const viewers: Viewer[] = [];
    let current = await startTeam(0);
    teams.push(current);
    viewers.push(new Viewer(current));
    /** Runs the killed instance held: their epoch at the kill, and when (database clock). */
    const pending = new Map<string, { epoch: number; killedAt: number }>();
    const takeovers: number[] = [];
    let polling = true;
    const poller = (async () => {
      while (polling || pending.size) {
        // Every pending run in one query, so a round is one round trip however many a kill left
        // (a renewal moves the expiry on every third of the term: the sooner seen, the closer the bound).
        const found = new Map(
          (
            await rows<{ id: string; epoch: string; acquired: Date; active: boolean; released: boolean }>(
              // Taken and already released again (the run ended): not knowing when, now is a bound.
              "SELECT l.conversation_id AS id, l.epoch, CASE WHEN l.expires_at = '-infinity' THEN now() ELSE l.expires_at - $2::float8 * interval '1 millisecond' END AS acquired, c.status = 'active' AS active, l.expires_at = '-infinity' AS released FROM leases l JOIN conversations c ON c.id = l.conversation_id WHERE l.conversation_id = ANY ($1::text[])",
              [[...pending.keys()], LEASE_MS],
            )
          ).map((r) => [r.id, r]),
        );
        for (const [id, p] of pending) {
          const row = found.get(id);
          // Archived, or let go by the killed instance itself just before the kill: nothing to take over.
          if (!row?.active || (row.released && Number(row.epoch) === p.epoch)) pending.delete(id);
          else if (Number(row.epoch) > p.epoch) {
            takeovers.push(row.acquired.getTime() - p.killedAt);
            pending.delete(id);
          }
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    for (let k = 0; k < KILLS; k++) {
      await new Promise((r) => setTimeout(r, 50 + Math.floor(Math.random() * 900)));
      const slot = Math.floor(Math.random() * 2);
      const victim = slots[slot]!;
      const owner = ownerOf(victim);
      const held = owner ? await rows<{ conversation_id: string; epoch: string }>("SELECT conversation_id, epoch FROM leases WHERE owner = $1 AND expires_at > now()", [owner]) : [];
      const killedAt = (await rows<{ now: Date }>("SELECT now()"))[0]!.now.getTime();
      slots[slot] = null;
      await killServer(victim);
      for (const h of held) if (!pending.has(h.conversation_id)) pending.set(h.conversation_id, { epoch: Number(h.epoch), killedAt });
      slots[slot] = await startServer({ home, env: env() });
      const messages = await leaderMessages(current);
      if (messages.some((m) => m.role === "assistant" && String(m.content).startsWith("SUMMARY"))) {
        current = await startTeam(teams.length);
        teams.push(current);
        viewers.push(new Viewer(current));
      }
    }
    for (const id of teams) {
      const summary = await until(`the summary of ${id}`, async () => (await leaderMessages(id)).find((m) => m.role === "assistant" && String(m.content).startsWith("SUMMARY")), 120_000);
      expect(summary).toBeTruthy();
      expect((await leaderMessages(id)).filter((m) => String(m.content).includes("的任务完成汇报"))).toHaveLength(TEAM.length);
    }
    polling = false;
    await until("every killed instance's run to be taken over", async () => pending.size === 0, 60_000);
    await poller;
    for (const v of viewers) await v.stop();

    // A fingerprint asked again must not have had an earlier answer committed.
    const saved = new Set<string>();
    for (const r of await rows<{ message: Msg }>("SELECT message FROM messages WHERE conversation_id = ANY ($1::text[])", [teams])) {
      if (r.message.role === "assistant") for (const marker of String(r.message.content ?? "").match(/\[r\d+\]/g) ?? []) saved.add(marker);
    }
    let repeatedCalls = 0;
    for (const markers of asked.values()) {
      const savedOnes = markers.filter((m) => saved.has(m));
      if (savedOnes.length > 1 || (savedOnes.length === 1 && savedOnes[0] !== markers.at(-1))) repeatedCalls++;
    }
    const repeatedEffects = [...renames].filter(([, n]) => n > 1).length;
    const sorted = [...takeovers].sort((a, b) => a - b);
    const figures = {
      instances: 2,
      kills: KILLS,
      teams: teams.length,
      lease_ms: LEASE_MS,
      completed_calls_repeated: repeatedCalls,
      side_effects_repeated: repeatedEffects,
      writes: [...renames.values()].reduce((a, b) => a + b, 0),
      takeovers: sorted.length,
      takeover_ms_median: sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)]! : null,
      takeover_ms_worst: sorted.length ? sorted.at(-1)! : null,
      viewer_events: viewers.reduce((n, v) => n + v.events, 0),
      viewer_reconnects: viewers.reduce((n, v) => n + v.reconnects, 0),
      viewer_events_lost: viewers.reduce((n, v) => n + v.lost, 0),
      viewer_refusals: viewers.reduce((n, v) => n + v.refused, 0),
    };
    console.log(JSON.stringify(figures));
    if (process.env.CRASH_FIGURES) writeFileSync(process.env.CRASH_FIGURES, `${JSON.stringify(figures)}\n`);
    expect(repeatedCalls).toBe(0);
    expect(repeatedEffects).toBe(0);
    expect(renames.size).toBeGreaterThan(0);
    expect(figures.viewer_events_lost).toBe(0);
  }, 60 * 60_000);
});
