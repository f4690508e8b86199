import { describe, expect, it } from "vitest";
import type { RuntimeEvent } from "@/lib/contracts/events";
import { HeldTopic } from "./held-topic";
import { formatId } from "./ids";
import type { ChannelMessage, JoinRead } from "./scripts";

const TOPIC = "conv:conv_20260101_000000_000002";
const ME = "omeprocess";
const P = "nprovisional";
const Q = "nsharednumber";

function ev(n: number): RuntimeEvent {
  return { type: "usage", token_statistics: { n } };
}

const announced = (numbering: string, position: number, tag: string, n: number): ChannelMessage => ({ k: "e", n: numbering, s: position, t: tag, e: ev(n) });
const mark = (origin: string, token: string, numbering: string, top: number): ChannelMessage => ({ k: "j", o: origin, j: token, n: numbering, s: top });
const nsOf = (messages: Array<{ event: unknown }>) => messages.map((m) => (m.event as { token_statistics: { n: number } }).token_statistics.n);

function read(numbering: string, top: number, positions: number[]): JoinRead {
  return { numbering, top, history: positions.map((p) => ({ numbering, position: p, tag: `oa${p}`, event: ev(p) })), boundaryId: null };
}

describe("HeldTopic: a join put in order with the channel", () => {
  it("before its mark, takes only its own numbering's announcements; after it, keeps them until the read is in", () => {
    const held = new HeldTopic(TOPIC, P, 10, ME);
    held.beginJoin("t1");
    held.sendingJoin();
    // Older than the read (another numbering): the read covers them.
    expect(held.onMessage(announced(Q, 1, "oa1", 1))).toEqual([]);
    expect(held.onMessage(mark(ME, "t1", Q, 2))).toEqual([]);
    // Newer than the read, arriving before its answer: kept for after it.
    expect(held.onMessage(announced(Q, 3, "oa3", 3))).toEqual([]);
    expect(held.joining).toBe(true);
    const out = held.onJoinReply("t1", read(Q, 2, [1, 2]));
    expect(nsOf(out)).toEqual([3]);
    expect(held.joining).toBe(false);
    expect(held.joined).toBe(true);
    expect(held.copy.numbering).toBe(Q);
    expect(nsOf((held.copy.eventsSince(formatId(Q, 1, "oa1")) as { events: Array<{ event: unknown }> }).events)).toEqual([2, 3]);
  });

  it("an answer before the mark waits for it; the copy's own events read back are confirmed, not delivered again", () => {
    const held = new HeldTopic(TOPIC, P, 10, ME);
    const mine = held.copy.addLocal(ev(1), `${ME}1`);
    held.beginJoin("t2");
    held.sendingJoin();
    expect(held.onJoinReply("t2", { numbering: P, top: 1, history: [{ numbering: P, position: 1, tag: `${ME}1`, event: ev(1) }], boundaryId: null })).toEqual([]);
    expect(held.joining).toBe(true);
    expect(held.onMessage(mark(ME, "t2", P, 1))).toEqual([]);
    expect(held.joining).toBe(false);
    expect(held.copy.unconfirmed).toBe(0);
    expect(held.copy.lastId).toBe(mine.id);
  });

  it("ignores other processes' marks and old tokens while joining; when idle, another's mark of a new numbering resets it", () => {
    const held = new HeldTopic(TOPIC, P, 10, ME);
    held.beginJoin("t3");
    held.sendingJoin();
    held.onMessage(mark("oanother", "t3", Q, 0));
    held.onMessage(mark(ME, "old", Q, 0));
    expect(held.joining).toBe(true);
    held.onMessage(mark(ME, "t3", P, 0));
    held.onJoinReply("t3", read(P, 0, []));
    expect(held.copy.numbering).toBe(P);
    const start = held.copy.lastId;
    held.onMessage(mark("oanother", "x", Q, 0));
    expect(held.copy.numbering).toBe(Q);
    expect(held.copy.eventsSince(start)).toEqual({ gap: true });
  });

  it("a renewal answered `same` ends the join; a join abandoned after asking for a new numbering asks again", () => {
    const held = new HeldTopic(TOPIC, P, 10, ME);
    held.beginJoin("t4");
    held.sendingJoin();
    held.onJoinReply("t4", read(P, 0, []));
    held.onMessage(mark(ME, "t4", P, 0));
    held.beginJoin("t5");
    held.sendingJoin();
    expect(held.onJoinReply("t5", "same")).toEqual([]);
    expect(held.joining).toBe(false);
    held.lost = true;
    held.beginJoin("t6");
    expect(held.sendingJoin()).toBe(true);
    expect(held.lost).toBe(false);
    held.abandonJoin();
    expect(held.lost).toBe(true);
    expect(held.needsJoin).toBe(true);
  });

  it("drops its own live events coming back, delivers others' after the last numbered event", () => {
    const held = new HeldTopic(TOPIC, P, 10, ME);
    const live: RuntimeEvent = { type: "delta", agent_id: null, kind: "content", text: "hi" };
    expect(held.onMessage({ k: "l", o: ME, e: live })).toEqual([]);
    expect(held.onMessage({ k: "l", o: "oanother", e: live })).toEqual([{ topic: TOPIC, seq: null, after: 0, id: held.copy.lastId, live: true, event: live }]);
  });
});
