/**
 * Presence's pure view (counting per person, expiry, drawers and typing) and its side channel on
 * a real SSE stream (lib/sse over the in-process bus and store): the stream registers its viewer
 * when it opens and lets it go when it closes, names it in `hello`, sends who is present on every
 * change and heartbeats, all as `event: presence` frames without an id.
 */
import { describe, expect, it } from "vitest";
import { conversationTopic, EventBus } from "@/lib/bus";
import type { ConversationSnapshot } from "@/lib/contracts/events";
import { PresenceFrameSchema, type PresenceFrame } from "@/lib/contracts/presence";
import { createEventStream } from "@/lib/sse";
import { createPresence, memoryPresenceStore, presenceOnStream, presentPeople, type PresenceEntry } from "@/lib/presence";

const ann = { id: "p_ann", name: "Ann" };
const bob = { id: "p_bob", name: "Bob" };

function entry(viewer: string, person: { id: string; name: string }, extra: Partial<PresenceEntry> = {}): PresenceEntry {
  return { viewer, person, joinedAt: 10, drawer: null, typing: null, typingUntil: 0, expiresAt: 1_000, ...extra };
}

describe("presentPeople", () => {
  it("counts a person once over their tabs, joining their drawers and live typing", () => {
    const { people, expired } = presentPeople(
      [
        entry("v_a1", ann, { joinedAt: 20, drawer: 2, typing: 2, typingUntil: 600 }),
        entry("v_b1", bob, { joinedAt: 15 }),
        entry("v_a2", ann, { joinedAt: 30, drawer: 1, typing: "leader", typingUntil: 400 }),
        entry("v_a3", ann, { joinedAt: 31, drawer: 2 }),
      ],
      500,
    );
    expect(expired).toEqual([]);
    // Bob arrived first; Ann's typing to the leader went quiet at 400.
    expect(people).toEqual([
      { person: bob, drawers: [], typing: [] },
      { person: ann, drawers: [1, 2], typing: [2] },
    ]);
  });

  it("leaves out and names the entries whose acknowledgment is overdue", () => {
    const { people, expired } = presentPeople([entry("v_a1", ann, { expiresAt: 500 }), entry("v_b1", bob, { expiresAt: 501 }), entry("v_a2", ann, { expiresAt: 100 })], 500);
    expect(people.map((p) => p.person.id)).toEqual([bob.id]);
    expect(expired).toEqual(["v_a1", "v_a2"]);
  });

  it("lists the leader first, then agents by number", () => {
    const { people } = presentPeople(
      [entry("v_1", ann, { typing: 3, typingUntil: 900 }), entry("v_2", ann, { typing: "leader", typingUntil: 900 }), entry("v_3", ann, { typing: 1, typingUntil: 900 })],
      500,
    );
    expect(people[0]!.typing).toEqual(["leader", 1, 3]);
  });
});

const CONV_ID = "conv_20260711_210000_001";
const SNAP = { conversation: { id: CONV_ID }, leader: { messages: [], busy: false, token_statistics: {} }, agents: [], questions: [], notices: [] } as unknown as ConversationSnapshot;

/** Reads an SSE byte stream and collects its presence frames (checking they carry no id). */
function presenceFramesOf(stream: ReadableStream<Uint8Array>) {
  const frames: PresenceFrame[] = [];
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const done = (async () => {
    for (;;) {
      const { value, done: end } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (end) return;
      text += decoder.decode(value, { stream: true });
      let cut: number;
      while ((cut = text.indexOf("\n\n")) >= 0) {
        const block = text.slice(0, cut);
        text = text.slice(cut + 2);
        if (!block.startsWith("event: presence\n")) continue;
        expect(block).not.toMatch(/^id:/m);
        frames.push(PresenceFrameSchema.parse(JSON.parse(block.split("\n")[1]!.slice("data: ".length))));
      }
    }
  })();
  return { frames, reader, done };
}

async function eventually<T>(what: string, check: () => T | undefined | null | false | Promise<T | undefined | null | false>): Promise<T> {
  for (let i = 0; i < 500; i++) {
    const value = await check();
    if (value) return value;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe("presence on the SSE stream", () => {
  it("registers the viewer while the stream is open, sends hello, people and heartbeats, and lets it go when it closes", async () => {
    const bus = new EventBus();
    const presence = createPresence(memoryPresenceStore(), { sweepMs: 20 });
    const open = (person: { id: string; name: string }, signal?: AbortSignal) =>
      presenceFramesOf(
        createEventStream({
          bus,
          topic: conversationTopic(CONV_ID),
          snapshot: async () => SNAP,
          signal,
          side: presenceOnStream({ presence, conversation: CONV_ID, person, heartbeatMs: 30 }),
        }),
      );
    const annTab = open(ann);
    const hello = await eventually("hello", () => annTab.frames.find((f) => f.type === "hello"));
    expect(hello).toMatchObject({ type: "hello", person: ann });
    await eventually("Ann sees herself present", () => annTab.frames.some((f) => f.type === "people" && f.people.length === 1));
    expect(await presence.people(CONV_ID)).toEqual([{ person: ann, drawers: [], typing: [] }]);

    const stopBob = new AbortController();
    const bobTab = open(bob, stopBob.signal);
    const lastPeople = (tab: typeof annTab) => tab.frames.filter((f) => f.type === "people").at(-1);
    await eventually("Ann sees Bob", () => {
      const last = lastPeople(annTab);
      return last?.type === "people" && last.people.map((p) => p.person.name).join() === "Ann,Bob";
    });
    await eventually("heartbeats", () => bobTab.frames.filter((f) => f.type === "heartbeat").length >= 2);
    // Bob's acknowledgment names his viewer; with it he opens agent 2's drawer.
    const bobHello = bobTab.frames.find((f) => f.type === "hello");
    expect(bobHello?.type === "hello" && (await presence.beat(CONV_ID, bobHello.viewer, bob.id, { drawer: 2, typing: null }))).toBe(true);
    await eventually("Ann sees Bob's drawer", () => {
      const last = lastPeople(annTab);
      return last?.type === "people" && last.people[1]?.drawers.join() === "2";
    });

    stopBob.abort(); // the stream closing: gone at once
    await eventually("Bob gone", () => {
      const last = lastPeople(annTab);
      return last?.type === "people" && last.people.length === 1;
    });
    await annTab.reader.cancel();
    await eventually("nobody left", async () => (await presence.counts())[CONV_ID] === undefined);
    expect(await presence.people(CONV_ID)).toEqual([]);
    await presence.close();
  });
});
