/**
 * Memory stays bounded, against the real built server and the real `openai` client talking to a
 * fake OpenAI-compatible model: what the server holds for a conversation (its run, its files in
 * memory, its bus topic and replay buffer, its open log files) is let go once no viewer follows it
 * and no run works, as `GET /api/health` → `resident` shows; streamed text reaches viewers live and
 * is never replayed; an id from before a release gets a fresh snapshot; conversations run one
 * after another leave nothing behind.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ResidentReport } from "@/lib/contracts/http";
import type { RuntimeEvent } from "@/lib/contracts/events";
import { fakeText, fakeToolCalls, startFakeOpenAI, type FakeOpenAI, type FakeRequestBody, type Script } from "./helpers/fake-openai";
import { startServer, tempDir, type TestServer } from "./helpers/server";
import { openSse, type SseConnection } from "./helpers/sse";
import { until } from "./helpers/wait";
import { writeFakeModels } from "./helpers/models-file";

type Msg = { role: string; content?: string | null; tool_calls?: Array<{ function: { name: string } }> };

const SUMMARY = "SUMMARY-OF-THE-TEAM";

let fake: FakeOpenAI;
let server: TestServer;
let project: string;
/** Worker calls held until the test lets them go, by conversation title. */
const gates = new Map<string, () => void>();

function msgs(body: FakeRequestBody): Msg[] {
  return (body.messages ?? []) as Msg[];
}
function titleOf(body: FakeRequestBody): string {
  return /Conversation: (\S+)/.exec(String(msgs(body)[0]?.content ?? ""))?.[1] ?? "unknown";
}
function called(body: FakeRequestBody, name: string): boolean {
  return msgs(body).some((m) => m.role === "assistant" && (m.tool_calls ?? []).some((c) => c.function.name === name));
}
function reports(body: FakeRequestBody): number {
  return msgs(body).filter((m) => m.role === "user" && String(m.content ?? "").includes("的任务完成汇报\nid: ")).length;
}

/** The leader delegates to one researcher, who reads the README and reports; the leader sums up, streamed in pieces. */
function handler(body: FakeRequestBody): Script | Promise<Script> {
  const title = titleOf(body);
  if (JSON.stringify(body.tools ?? []).includes("create_sub_agent")) {
    if (!called(body, "create_sub_agent")) return fakeToolCalls([{ name: "create_sub_agent", arguments: { role_id: "researcher", task: "Read the README" } }], { content: "Asking a researcher." });
    if (reports(body) === 0) return fakeText("Waiting for the report.");
    return fakeText(`${SUMMARY} for ${title}: the project is a small demo, as its README says.`, { contentChunks: 8 });
  }
  if (!called(body, "read_file")) {
    const read = fakeToolCalls([{ name: "read_file", arguments: { path: "README.md" } }]);
    // A "held-" conversation's worker waits for the test: its run is working meanwhile.
    if (title.startsWith("held-")) return new Promise<Script>((resolve) => gates.set(title, () => resolve(read)));
    return read;
  }
  return fakeToolCalls([{ name: "report_to_leader", arguments: { summary: "README read: a small demo project." } }]);
}

beforeAll(async () => {
  fake = await startFakeOpenAI({ script: handler });
  const home = tempDir("astrion-home-");
  writeFakeModels(home, fake.url);
  project = tempDir("astrion-project-");
  mkdirSync(path.join(project, "src"));
  writeFileSync(path.join(project, "README.md"), "# Demo\n\nA small demo project.\n");
  server = await startServer({ home, env: { FAKE_OPENAI_KEY: "sk-fake-test-key", ASTRION_LEADER_BATCH_MS: "0" } });
});

afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

async function resident(): Promise<ResidentReport> {
  const res = await server.api("GET", "/api/health");
  expect(res.status).toBe(200);
  return res.json.resident;
}

const NOTHING_HELD: ResidentReport = {
  conversations_open: 0,
  runs: 0,
  runs_in_use: 0,
  runs_working: 0,
  runs_kept_for_notices: 0,
  runs_releasing: 0,
  bus_topics: 0,
  bus_buffered_events: 0,
  bus_agent_topics: 0,
  sse_streams: 0,
  snapshot_frames: 0,
  log_files_open: 0,
};

/** Waits until the server holds nothing for any conversation. */
async function nothingHeld(): Promise<void> {
  let last: ResidentReport | undefined;
  await until("nothing held for any conversation", async () => {
    last = await resident();
    return JSON.stringify(last) === JSON.stringify(NOTHING_HELD) ? true : null;
  }).catch((error: Error) => {
    throw new Error(`${error.message}; still held: ${JSON.stringify(last)}`);
  });
}

async function newConversation(title: string): Promise<string> {
  const res = await server.api("POST", "/api/conversations", { title, project_path: project });
  expect(res.status).toBe(201);
  return res.json.conversation.id;
}

async function post(id: string, content: string): Promise<void> {
  const res = await server.api("POST", `/api/conversations/${id}/messages`, { content });
  expect(res.status).toBe(202);
}

async function viewer(id: string, headers: Record<string, string> = {}): Promise<SseConnection> {
  const conn = await openSse(server, `/api/conversations/${id}/events`, headers);
  expect(conn.status).toBe(200);
  await conn.waitFor(() => conn.events.length >= 1);
  return conn;
}

function types(conn: SseConnection): Array<RuntimeEvent["type"]> {
  return conn.events.map((e) => e.event.type);
}

/** The saved leader message holding the summary, as a viewer received it. */
function summaryOf(conn: SseConnection): string | undefined {
  for (const { event } of conn.events) {
    if (event.type === "message" && event.agent_id === null && String(event.message.content ?? "").includes(SUMMARY)) return String(event.message.content);
    if (event.type === "snapshot") {
      const saved = event.snapshot.leader.messages.find((m) => String(m.content ?? "").includes(SUMMARY));
      if (saved) return String(saved.content);
    }
  }
  return undefined;
}

/** True once the viewer saw the summary saved and the leader idle after it. */
function finished(conn: SseConnection): boolean {
  const at = conn.events.findIndex((e) => e.event.type === "message" && String(e.event.message.content ?? "").includes(SUMMARY));
  return at >= 0 && conn.events.slice(at).some((e) => e.event.type === "leader_busy" && !e.event.busy);
}

describe("memory held for a conversation", () => {
  it("is let go when no viewer follows it and no run works; streamed text is never replayed; an id from before gets a fresh snapshot", async () => {
    await nothingHeld();
    const id = await newConversation("once");
    const watcher = await viewer(id);
    expect(await resident()).toMatchObject({ conversations_open: 1, runs: 1, bus_topics: 1, sse_streams: 1, snapshot_frames: 1 });

    // A second viewer looks once, then goes away: the first keeps the conversation held.
    const leaving = await viewer(id);
    leaving.close();
    const lastSeen = leaving.events.at(-1)!.id!;

    await post(id, "Tell me about this project.");
    await watcher.waitFor(() => finished(watcher), 30_000);
    // The summary was streamed to the watcher live (what the model sends within one event-loop turn goes as one event).
    const streamed = watcher.events.flatMap(({ event }) => (event.type === "delta" && event.agent_id === null && event.kind === "content" ? [event.text] : []));
    expect(streamed.length).toBeGreaterThan(0);
    const summary = summaryOf(watcher)!;
    expect(streamed.join("")).toContain(summary);
    await until("the run idle", async () => ((await resident()).runs_working === 0 ? true : null));
    // Idle but watched: still held, with what a reconnecting viewer needs, and no streamed text in it.
    const held = await resident();
    expect(held).toMatchObject({ conversations_open: 1, runs: 1, bus_topics: 1, runs_working: 0 });
    // The buffer holds exactly the numbered events the watcher received since its snapshot.
    const numbered = () => watcher.events.filter((e) => e.event.type !== "snapshot" && e.event.type !== "delta").length;
    await watcher.waitFor(() => numbered() === held.bus_buffered_events);
    expect(held.bus_buffered_events).toBeGreaterThan(10);

    // The viewer that left comes back with its Last-Event-ID: replayed what it missed, the saved
    // summary whole, and not one piece of streamed text.
    const back = await openSse(server, `/api/conversations/${id}/events`, { "last-event-id": lastSeen });
    await back.waitFor(() => summaryOf(back) !== undefined && finished(back));
    expect(types(back)).not.toContain("snapshot");
    expect(types(back)).not.toContain("delta");
    expect(summaryOf(back)).toBe(summary);
    const replayedUpTo = back.events.at(-1)!.id!;
    back.close();

    // The last viewer leaves: everything held for the conversation goes.
    watcher.close();
    await nothingHeld();

    // Its numbering went with it: the id from before gets a fresh snapshot (never the events a new
    // numbering gives the same numbers), and the snapshot holds the saved summary, read from disk.
    const late = await openSse(server, `/api/conversations/${id}/events`, { "last-event-id": replayedUpTo });
    await late.waitFor(() => late.events.length >= 1);
    expect(late.events[0]!.event.type).toBe("snapshot");
    expect(late.events[0]!.id).not.toBe(replayedUpTo);
    expect(summaryOf(late)).toBe(summary);
    late.close();
    await nothingHeld();
  });

  it("keeps the replay buffer of a working run whose only viewer dropped, so the viewer's reconnect is replayed, not resent a snapshot", async () => {
    await nothingHeld();
    const id = await newConversation("held-run");
    const first = await viewer(id);
    await post(id, "Tell me about this project.");
    await until("the worker's model call", () => gates.has("held-run") || null);
    first.close();
    const lastSeen = first.events.at(-1)!.id!;
    await until("the viewer gone", async () => ((await resident()).sse_streams === 0 ? true : null));
    // No viewer, but the run works: its run, files and bus topic stay.
    expect(await resident()).toMatchObject({ conversations_open: 1, runs: 1, runs_working: 1, bus_topics: 1, sse_streams: 0 });

    const back = await openSse(server, `/api/conversations/${id}/events`, { "last-event-id": lastSeen });
    await back.waitFor(() => back.comments.includes("connected"));
    gates.get("held-run")!();
    await back.waitFor(() => finished(back), 30_000);
    expect(types(back)).not.toContain("snapshot");
    expect(summaryOf(back)).toContain(SUMMARY);
    back.close();
    await nothingHeld();
  });

  it("holds nothing of conversations run one after another, each with a viewer, and every run's files stay complete", async () => {
    await nothingHeld();
    const RUNS = 5;
    for (let i = 1; i <= RUNS; i++) {
      const id = await newConversation(`seq-${i}`);
      const watch = await viewer(id);
      expect(await resident()).toMatchObject({ conversations_open: 1, runs: 1, bus_topics: 1 });
      await post(id, "Tell me about this project.");
      await watch.waitFor(() => finished(watch), 30_000);
      watch.close();
      // Not one more per conversation run: nothing at all once its viewer left and its run is idle.
      await nothingHeld();
      const saved = (await server.api("GET", `/api/conversations/${id}/messages`)).json.messages as Msg[];
      expect(saved.find((m) => String(m.content ?? "").includes(`${SUMMARY} for seq-${i}`))).toBeDefined();
    }
  });
});
