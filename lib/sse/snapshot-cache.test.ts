import { describe, expect, it } from "vitest";
import { conversationTopic, EventBus } from "@/lib/bus";
import type { ConversationSnapshot } from "@/lib/contracts/events";
import { createEventStream, type EventStreamOptions } from "./event-stream";
import { SnapshotFrameCache, snapshotCacheFor } from "./snapshot-cache";

const CONV_ID = "conv_20260711_210000_001";
const CONV = conversationTopic(CONV_ID);

function snapshotWith(title: string, messages = 1): ConversationSnapshot {
  return {
    conversation: {
      id: CONV_ID,
      title,
      created_at: "2026-07-11T21:00:00",
      updated_at: "2026-07-11T21:00:00",
      project_path: "/tmp/project",
      model_key: "offline",
      thinking_mode: false,
      run_mode: "fast",
      status: "active",
      agent_count: 0,
      agent_ids: [],
    },
    leader: {
      messages: Array.from({ length: messages }, (_, i) => ({ role: "user" as const, content: `message ${i} `.repeat(50), message_id: `m${i}` })),
      busy: false,
      token_statistics: {},
    },
    agents: [],
    questions: [],
    notices: [],
    caps: { max_agents: 8, max_calls_per_task: 30 },
    model_label: "Offline (built-in) — offline",
  };
}

/** A counting snapshot source: every call is one build of the conversation's state. */
function source(title = "t") {
  const state = { builds: 0, title };
  const snapshot = async () => {
    state.builds++;
    return snapshotWith(state.title, 200);
  };
  return { state, snapshot };
}

interface Opened {
  /** The raw bytes of the snapshot event, as sent. */
  frame: Promise<Uint8Array>;
  close: () => Promise<void>;
}

/** Opens a stream and resolves its snapshot frame (the chunk whose data is a snapshot). */
function openStream(bus: EventBus, options: Partial<EventStreamOptions> & Pick<EventStreamOptions, "snapshot">): Opened {
  const reader = createEventStream({ bus, topic: CONV, heartbeatMs: 0, ...options }).getReader();
  const frame = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) throw new Error("stream ended before its snapshot");
      if (new TextDecoder().decode(value).includes('"type":"snapshot"')) return value;
    }
  })();
  return { frame, close: () => reader.cancel() };
}

describe("shared snapshot frames", () => {
  it("N streams opened at once on an unchanged conversation build the snapshot once and send the same bytes", async () => {
    const bus = new EventBus({ bootId: "b" });
    bus.retain(CONV);
    bus.publish(CONV, { type: "leader_busy", busy: false });
    const { state, snapshot } = source();
    const streams = Array.from({ length: 25 }, () => openStream(bus, { snapshot }));
    const frames = await Promise.all(streams.map((s) => s.frame));
    expect(state.builds).toBe(1);
    // The very same buffer, not 25 copies of it.
    for (const f of frames) expect(f).toBe(frames[0]);
    expect(new TextDecoder().decode(frames[0]).startsWith("id: b-1-1\n")).toBe(true);
    // One opened later, still unchanged, reuses it too.
    const late = openStream(bus, { snapshot });
    expect(await late.frame).toBe(frames[0]);
    expect(state.builds).toBe(1);
    await Promise.all([...streams, late].map((s) => s.close()));
  });

  it("an event on the bus makes the next stream build afresh, with the new id", async () => {
    const bus = new EventBus({ bootId: "b" });
    const { state, snapshot } = source("before");
    const first = openStream(bus, { snapshot });
    await first.frame;
    state.title = "after";
    bus.publish(CONV, { type: "phase", phase: "ENGAGED" });
    const second = openStream(bus, { snapshot });
    const text = new TextDecoder().decode(await second.frame);
    expect(state.builds).toBe(2);
    expect(text).toContain('"title":"after"');
    expect(text.startsWith("id: b-1-1\n")).toBe(true);
    await Promise.all([first.close(), second.close()]);
  });

  it("a topic released and held again never reuses a frame of its old numbering", async () => {
    const bus = new EventBus({ bootId: "b" });
    const { state, snapshot } = source("before");
    const first = openStream(bus, { snapshot, snapshotVersion: () => 1 });
    expect(new TextDecoder().decode(await first.frame).startsWith("id: b-1-0\n")).toBe(true);
    await first.close(); // the topic and its cached frame are released
    state.title = "after";
    const second = openStream(bus, { snapshot, snapshotVersion: () => 1 });
    const text = new TextDecoder().decode(await second.frame);
    expect(text.startsWith("id: b-2-0\n")).toBe(true);
    expect(text).toContain('"title":"after"');
    expect(state.builds).toBe(2);
    await second.close();
  });

  it("a change without an event (snapshotVersion) also builds afresh", async () => {
    const bus = new EventBus();
    const { state, snapshot } = source("old title");
    let version = 1;
    const a = openStream(bus, { snapshot, snapshotVersion: () => version });
    await a.frame;
    state.title = "renamed";
    version = 2;
    const b = openStream(bus, { snapshot, snapshotVersion: () => version });
    expect(new TextDecoder().decode(await b.frame)).toContain('"title":"renamed"');
    expect(state.builds).toBe(2);
    await Promise.all([a.close(), b.close()]);
  });

  it("keeps nothing once the last stream of the conversation has closed", async () => {
    const bus = new EventBus();
    const { state, snapshot } = source();
    const a = openStream(bus, { snapshot });
    const b = openStream(bus, { snapshot });
    await Promise.all([a.frame, b.frame]);
    expect(snapshotCacheFor(bus).size).toBe(1);
    await a.close();
    expect(snapshotCacheFor(bus).size).toBe(1);
    await b.close();
    expect(snapshotCacheFor(bus).size).toBe(0);
    const c = openStream(bus, { snapshot });
    await c.frame;
    expect(state.builds).toBe(2);
    await c.close();
  });

  it("a failed build is not kept: the next stream tries again", async () => {
    const bus = new EventBus();
    let calls = 0;
    const flaky = async () => {
      calls++;
      if (calls === 1) throw new Error("disk hiccup");
      return snapshotWith("ok");
    };
    const keep = openStream(bus, { snapshot: async () => snapshotWith("holder") });
    await keep.frame; // holds the topic so the cache has an entry to lose
    const ended: string[] = [];
    const broken = createEventStream({ bus, topic: CONV, heartbeatMs: 0, snapshot: flaky, snapshotVersion: () => "v2", onEnd: (r) => ended.push(r) });
    const reader = broken.getReader();
    while (!(await reader.read()).done);
    expect(ended).toEqual(["error"]);
    const retry = openStream(bus, { snapshot: flaky, snapshotVersion: () => "v2" });
    expect(new TextDecoder().decode(await retry.frame)).toContain('"title":"ok"');
    expect(calls).toBe(2);
    await Promise.all([keep.close(), retry.close()]);
  });
});

describe("SnapshotFrameCache", () => {
  it("without a hold it builds every time and keeps nothing", async () => {
    const cache = new SnapshotFrameCache();
    let builds = 0;
    const build = async () => new Uint8Array([++builds]);
    await cache.frame("t", "1", build);
    await cache.frame("t", "1", build);
    expect(builds).toBe(2);
    expect(cache.size).toBe(0);
  });

  it("a release is counted once", async () => {
    const cache = new SnapshotFrameCache();
    const a = cache.hold("t");
    const b = cache.hold("t");
    a();
    a();
    expect(cache.size).toBe(1);
    b();
    expect(cache.size).toBe(0);
  });
});
