/**
 * A refused write stops this instance's copy of the run at once (issue 31, "Leases"): the real
 * engine (lib/runtime/engine.ts) over the PostgreSQL store on a throwaway cluster, with a
 * scripted model. Another instance takes the conversation's lease over while the leader's model
 * call is under way; whether this instance finds out by its next commit (refused by the fence)
 * or by its lease renewal, the engine logs it and drops the run: every call under way is
 * aborted, no model call begins and no event is published after it, the rows hold nothing of
 * its answer, and a later request here is refused while the other instance holds the lease.
 *
 * And the other side: a conversation whose instance died mid-run, opened on another instance by
 * any request (a viewer's, before any takeover scan), has its run resumed there, and a change
 * of it that is not a run (the catalog's) leaves the lease to expire so a scan resumes it. A run
 * its instance let go while idle (an agent waiting for a person's answer) is resumed on the
 * instance the answer reaches: the agent goes on there with a token of that instance, also when
 * that instance opened the conversation before only for a change.
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { conversationTopic, EventBus } from "@/lib/bus";
import type { RuntimeEvent } from "@/lib/contracts/events";
import { createPgStorage, createPool, FencedError, LeaseHeldError, type PgEngineStorage } from "@/lib/pg";
import { Engine } from "@/lib/runtime/engine";
import type { TeamRun } from "@/lib/runtime/team-run";
import { limitsFromEnv } from "@/lib/runtime/team/config";
import { builtInToolProviders } from "@/lib/runtime/tool-providers";
import { until } from "@/test/helpers/wait";
import { testEngineDeps } from "@/test/support/engine-deps";
import { pgClusterForFile } from "@/test/support/pg-cluster";
import { callTool, hasCalled, lastResultOf, reportsSeen, ScriptedModel, type ModelCall, type Reply } from "@/test/support/scripted-model";
import { teamEnvironment } from "@/test/support/team-kit";

const pg = pgClusterForFile();
const env = teamEnvironment();
let cleanup: Array<() => Promise<unknown>> = [];

afterEach(async () => {
  for (const fn of cleanup.reverse()) await fn().catch(() => undefined);
  cleanup = [];
});
afterAll(() => env.close());

/** One instance: a storage on the database, the engine over it, its bus, what it logged. */
interface Instance {
  storage: PgEngineStorage;
  engine: Engine;
  bus: EventBus;
  events: RuntimeEvent[];
  logged: string[];
}

async function instance(url: string, owner: string, leaseMs: number, model: ScriptedModel): Promise<Instance> {
  const logged: string[] = [];
  const storage = await createPgStorage({ url, owner, leaseMs, log: (m) => logged.push(m) });
  cleanup.push(() => storage.end());
  const bus = new EventBus();
  const deps = testEngineDeps({ root: env.dataRoot, storage, conversations: storage, roles: env.roles, model, bus });
  const engine = new Engine({ deps, limits: { ...limitsFromEnv({}), leaderBatchMs: 0 }, tools: builtInToolProviders() });
  const events: RuntimeEvent[] = [];
  return { storage, engine, bus, events, logged };
}

/** A model whose first call waits for `first` (or hangs until aborted); later calls answer at once. */
function heldModel(first: Promise<Reply> | "hang"): ScriptedModel {
  return new ScriptedModel((call) => {
    if (call.n === 1) return first === "hang" ? { hang: true, partial: "Work" } : first;
    return { content: `answer ${call.n}` };
  });
}

/** Every event A publishes for the conversation's viewers. */
function followEvents(a: Instance, id: string): void {
  a.bus.subscribe(conversationTopic(id), ({ event }) => a.events.push(event));
}

async function setup(leaseMs: number, first: Promise<Reply> | "hang") {
  const url = await pg.cluster.createDatabase();
  const reader = createPool(url, { max: 2 });
  cleanup.push(() => reader.end());
  const model = heldModel(first);
  const a = await instance(url, "instance-a", leaseMs, model);
  const id = (await a.storage.createConversation({ title: "Halted", project_path: env.project, model_key: model.key, run_mode: "fast" })).id;
  const b = await createPgStorage({ url, owner: "instance-b", leaseMs: 60_000, log: () => undefined });
  cleanup.push(() => b.end());
  // The events A publishes, and how many there were when the engine heard of the failure.
  followEvents(a, id);
  let atHalt = -1;
  let callsAtHalt = -1;
  a.storage.watchFailures((convId) => {
    if (convId !== id) return;
    atHalt = a.events.length;
    callsAtHalt = model.calls.length;
  });
  // Registered after the engine's listener: by then the engine has halted the run.
  return { url, reader, model, a, b, id, atHalt: () => atHalt, callsAtHalt: () => callsAtHalt };
}

async function startWork(a: Instance, id: string): Promise<TeamRun> {
  let run!: TeamRun;
  await a.engine.withRun(id, async (r) => {
    run = r;
    await r.postUserMessage("Plan the work");
  });
  return run;
}


async function leaderRows(reader: ReturnType<typeof createPool>, id: string): Promise<string[]> {
  return (await reader.query<{ role: string }>("SELECT message ->> 'role' AS role FROM messages WHERE conversation_id = $1 AND agent_id = 0 ORDER BY idx", [id])).rows.map((r) => r.role);
}

describe("a refused write stops this instance's run", () => {
  it("found by the fence at the next commit: the run is dropped, its answer never lands, nothing more is called or published", async () => {
    let answer!: (reply: Reply) => void;
    const t = await setup(60_000, new Promise<Reply>((resolve) => (answer = resolve)));
    const run = await startWork(t.a, t.id);
    await t.model.waitFor((c) => c.n === 1);

    // Another instance takes the lease over (A's lease made to look expired, as after a pause).
    await t.reader.query("UPDATE leases SET expires_at = now() - interval '1 second' WHERE conversation_id = $1", [t.id]);
    await t.b.open(t.id);
    // The leader's answer would create a sub-agent, whose calls would follow.
    answer(callTool("create_sub_agent", { role_id: "technical-writer", task: "Write the notes" }));

    await until("A to log the refused write", async () => t.a.logged.some((m) => m.includes("lost its lease")));
    expect(run.halted).toBeInstanceOf(FencedError);
    await run.idle();
    expect(t.a.engine.residency().runs).toBe(0);
    // The engine computes ahead of its commits (a model call waits for no commit; a side effect
    // does), so calls may have begun before the refusal came back: none begins after it, and
    // every one under way was aborted.
    expect(t.callsAtHalt()).toBeGreaterThanOrEqual(1);
    expect(t.model.calls).toHaveLength(t.callsAtHalt());
    expect(t.model.calls.every((c) => c.signal?.aborted)).toBe(true);
    expect(t.atHalt()).toBeGreaterThanOrEqual(0);
    expect(t.a.events).toHaveLength(t.atHalt());
    // The rows hold what was committed before the takeover: the person's message, not A's answer.
    expect(await leaderRows(t.reader, t.id)).toEqual(["user"]);
    expect((await t.b.conversations.listAgents(t.id)).agents).toEqual([]);
    // A later request on A is refused while B holds the lease, and wakes nothing.
    await expect(t.a.engine.withRun(t.id, (r) => r.postUserMessage("Again"))).rejects.toBeInstanceOf(LeaseHeldError);
    expect(t.model.calls).toHaveLength(t.callsAtHalt());
  }, 60_000);

  it("found by the lease renewal while a model call streams: the call is aborted at once and nothing follows", async () => {
    const t = await setup(600, "hang");
    const run = await startWork(t.a, t.id);
    const call = await t.model.waitFor((c) => c.n === 1);
    const before = await leaderRows(t.reader, t.id);

    // B takes the lease over (as a takeover's acquire does: owner and epoch moved on).
    await t.reader.query("UPDATE leases SET owner = 'instance-b', epoch = epoch + 1, expires_at = now() + interval '1 minute' WHERE conversation_id = $1", [t.id]);
    await until("A's renewal to find its lease lost", async () => t.a.logged.some((m) => m.includes("lost its lease")));
    await until("the call under way to be aborted", async () => call.signal?.aborted === true);
    expect(run.halted).toBeInstanceOf(FencedError);
    await run.idle();
    expect(t.a.engine.residency().runs).toBe(0);
    expect(t.callsAtHalt()).toBe(1);
    expect(t.model.calls).toHaveLength(1);
    expect(t.a.events).toHaveLength(t.atHalt());
    expect(await leaderRows(t.reader, t.id)).toEqual(before);
  }, 60_000);
});

describe("a run taken from a dead instance", () => {
  it("continues on the instance where any request opened it first (a viewer's), as a restart's does", async () => {
    const t = await setup(400, "hang");
    await startWork(t.a, t.id);
    await t.model.waitFor((c) => c.n === 1);
    // A dies mid-call: nothing more of it is committed, its lease expires unreleased.
    t.a.storage.abandon();
    await until("A's lease to expire", async () => (await t.reader.query("SELECT 1 FROM leases WHERE conversation_id = $1 AND expires_at <= now()", [t.id])).rowCount === 1);
    const model = heldModel(Promise.resolve({ content: "taken up" }));
    const b = await instance(t.url, "instance-c", 60_000, model);
    // A viewer's request (the events route's snapshot) is the first to open it on this instance.
    await b.engine.withRun(t.id, (run) => run.snapshot());
    const call = await until("the run to go on here (its leader's call made again)", async () => model.calls[0] ?? null, 20_000);
    expect(call.agentId).toBeNull();
    expect((await t.reader.query<{ owner: string }>("SELECT owner FROM leases WHERE conversation_id = $1", [t.id])).rows[0]!.owner).toBe("instance-c");
  }, 60_000);

  it("opened only for a change (not a run), is left to expire so a takeover scan resumes it", async () => {
    const t = await setup(400, "hang");
    await startWork(t.a, t.id);
    await t.model.waitFor((c) => c.n === 1);
    t.a.storage.abandon();
    await until("A's lease to expire", async () => (await t.reader.query("SELECT 1 FROM leases WHERE conversation_id = $1 AND expires_at <= now()", [t.id])).rowCount === 1);
    const c = await createPgStorage({ url: t.url, owner: "instance-c", leaseMs: 400, log: () => undefined });
    cleanup.push(() => c.end());
    // A rename through the storage's files (as the catalog's change of a conversation nobody here runs), then let go.
    await c.conversations.update(t.id, { title: "Renamed" });
    await c.letGo(t.id);
    expect(c.isOpen(t.id)).toBe(false);
    await until("the lease to expire again", async () => (await c.orphaned(10)).some((o) => o.id === t.id));
    expect((await c.orphaned(10)).find((o) => o.id === t.id)?.owner).toBe("instance-c");
  }, 60_000);
});

/** A leader that delegates once, and an agent that asks the person, then reports what it was told. */
function askingTeam(call: ModelCall): Reply {
  if (call.agentId === null) {
    if (!hasCalled(call, "create_sub_agent")) return callTool("create_sub_agent", { role_id: "technical-writer", task: "Write the notes" });
    return { content: reportsSeen(call) ? "SUMMARY: written" : "waiting for the writer" };
  }
  if (!hasCalled(call, "ask_master")) return callTool("ask_master", { question: "Which tone?" });
  return callTool("report_to_leader", { summary: `Tone: ${String(lastResultOf(call, "ask_master")?.answer)}` });
}

describe("a run let go by its instance while idle", () => {
  for (const between of [false, true]) {
    it(`goes on where the person's answer arrives, its agent with a token of that instance${between ? " (opened there for a change before)" : ""}`, async () => {
      const url = await pg.cluster.createDatabase();
      const reader = createPool(url, { max: 2 });
      cleanup.push(() => reader.end());
      const a = await instance(url, "instance-a", 60_000, new ScriptedModel(askingTeam));
      const id = (await a.storage.createConversation({ title: "Moved", project_path: env.project, model_key: "scripted", run_mode: "fast" })).id;
      await a.engine.withRun(id, (run) => run.postUserMessage("Write the notes"));
      const question = await until("the agent to ask", async () => (await a.engine.withRun(id, (run) => run.snapshot())).questions[0] ?? null, 20_000);
      await until("A to be idle", async () => !a.engine.isRunWorking(id));
      // A lets the idle run go (its lease released; its agents keep their tokens on A).
      await a.engine.closeAll();
      const model = new ScriptedModel(askingTeam);
      const b = await instance(url, "instance-b", 60_000, model);
      if (between) {
        // B itself takes it first only for a change (a rename through the storage, as the catalog's), and lets it go.
        await b.storage.conversations.update(id, { title: "Moved again" });
        await b.storage.letGo(id);
        expect(b.storage.isOpen(id)).toBe(false);
      }
      await b.engine.withRun(id, (run) => run.answerQuestion(question.question_id, "Warm", "User", question.agent_id));
      await until("the leader's summary on B", async () => model.calls.some((c) => c.agentId === null && reportsSeen(c) > 0), 20_000);
      await until("B to be idle", async () => !b.engine.isRunWorking(id));
      const agent = (await b.storage.conversations.listAgents(id)).agents[0]!;
      expect(agent.status).toBe("completed");
      // The agent's report went through B's pipeline with B's token: no call of it was refused.
      const refused = (await reader.query("SELECT 1 FROM conversation_lines WHERE conversation_id = $1 AND line LIKE '%no_token%'", [id])).rowCount;
      expect(refused).toBe(0);
      expect(model.calls.filter((c) => c.agentId !== null).map((c) => lastResultOf(c, "ask_master")?.answer)).toEqual(["Warm"]);
    }, 60_000);
  }
});
