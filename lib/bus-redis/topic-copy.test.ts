import { describe, expect, it } from "vitest";
import type { RuntimeEvent } from "@/lib/contracts/events";
import { formatId } from "./ids";
import { TopicCopy, type StreamEntry } from "./topic-copy";

const TOPIC = "conv:conv_20260101_000000_000001";
const N = "nfirstnumbering";
const M = "nothernumbering";

function ev(n: number): RuntimeEvent {
  return { type: "usage", token_statistics: { n } };
}

function entry(numbering: string, position: number, tag: string, n: number): StreamEntry {
  return { numbering, position, tag, event: ev(n) };
}

const ns = (result: ReturnType<TopicCopy["eventsAfter"]>) => ("gap" in result ? "gap" : result.events.map((e) => (e.event as unknown as { token_statistics: { n: number } }).token_statistics.n));

describe("TopicCopy", () => {
  it("confirms its own events when Redis gives them back, and delivers others' events after them", () => {
    const copy = new TopicCopy(TOPIC, N, 10);
    const one = copy.addLocal(ev(1), "omine1");
    const two = copy.addLocal(ev(2), "omine2");
    expect([one.seq, two.seq]).toEqual([1, 2]);
    expect(one.id).toBe(formatId(N, 1, "omine1"));
    expect(copy.unconfirmed).toBe(2);
    expect(copy.apply(entry(N, 1, "omine1", 1))).toBeNull();
    expect(copy.apply(entry(N, 2, "omine2", 2))).toBeNull();
    expect(copy.apply(entry(N, 2, "omine2", 2))).toBeNull(); // read twice: ignored
    expect(copy.unconfirmed).toBe(0);
    const three = copy.apply(entry(N, 3, "oother1", 3));
    expect(three).toMatchObject({ seq: 3, id: formatId(N, 3, "oother1") });
    expect(ns(copy.eventsSince(one.id))).toEqual([2, 3]);
    expect(copy.lastId).toBe(three!.id);
  });

  it("another process's event where one of its own was expected: resets, so cursors and ids from before answer a gap", () => {
    const copy = new TopicCopy(TOPIC, N, 10);
    copy.addLocal(ev(1), "omine1");
    copy.apply(entry(N, 1, "omine1", 1));
    const mine = copy.addLocal(ev(2), "omine2"); // expects position 2
    const theirs = copy.apply(entry(N, 2, "oother1", 20))!;
    expect(theirs.seq).toBe(mine.seq + 2); // past a hole
    expect(copy.eventsAfter(mine.seq)).toEqual({ gap: true });
    expect(copy.eventsAfter(1)).toEqual({ gap: true });
    expect(copy.eventsSince(mine.id)).toEqual({ gap: true });
    // Ours landed after theirs: delivered now as any other event, under the id Redis gave it.
    const again = copy.apply(entry(N, 3, "omine2", 2))!;
    expect(again).toMatchObject({ seq: theirs.seq + 1, id: formatId(N, 3, "omine2") });
    expect(ns(copy.eventsSince(theirs.id))).toEqual([2]);
    // The first event, confirmed before the clash, is still a valid point to resume from.
    expect(ns(copy.eventsSince(formatId(N, 1, "omine1")))).toEqual([20, 2]);
  });

  it("an entry of another numbering, or one past an entry it missed, resets it", () => {
    const copy = new TopicCopy(TOPIC, N, 10);
    const first = copy.apply(entry(N, 1, "oa1", 1))!;
    const other = copy.apply(entry(M, 1, "oa2", 2))!;
    expect(other.seq).toBe(first.seq + 2);
    expect(copy.numbering).toBe(M);
    expect(copy.eventsSince(first.id)).toEqual({ gap: true });
    expect(copy.eventsAfter(first.seq)).toEqual({ gap: true });
    const skipped = copy.apply(entry(M, 3, "oa4", 4))!; // position 2 never came
    expect(copy.eventsSince(other.id)).toEqual({ gap: true });
    expect(skipped.seq).toBe(other.seq + 2);
  });

  it("keeps its window; the id just before it, and a bare position it has, are points to resume from", () => {
    const copy = new TopicCopy(TOPIC, N, 3);
    const ids = [1, 2, 3, 4, 5].map((n) => copy.apply(entry(N, n, `oa${n}`, n))!.id);
    expect(copy.buffered).toBe(3);
    expect(ns(copy.eventsSince(ids[1]))).toEqual([3, 4, 5]);
    expect(copy.eventsSince(ids[0])).toEqual({ gap: true });
    expect(ns(copy.eventsSince(formatId(N, 3)))).toEqual([4, 5]);
    expect(copy.eventsSince(formatId(N, 6))).toEqual({ gap: true }); // not there yet
    expect(copy.eventsSince(formatId(N, 3, "oforged"))).toEqual({ gap: true });
  });

  it("a reset onto what a join read keeps the history for replay without delivering it", () => {
    const copy = new TopicCopy(TOPIC, "nprovisional1", 3);
    const before = copy.lastSeq;
    const history = [4, 5, 6].map((n) => entry(N, n, `oa${n}`, n));
    copy.reset(N, 3, formatId(N, 3, "oa3"), history);
    expect(copy.eventsAfter(before)).toEqual({ gap: true });
    expect(ns(copy.eventsSince(formatId(N, 3, "oa3")))).toEqual([4, 5, 6]);
    expect(ns(copy.eventsSince(formatId(N, 4, "oa4")))).toEqual([5, 6]);
    expect(copy.lastId).toBe(formatId(N, 6, "oa6"));
    expect(copy.apply(entry(N, 7, "oa7", 7))).toMatchObject({ seq: copy.lastSeq });
  });

  it("follows what another process's join saw only when it is ahead or elsewhere", () => {
    const copy = new TopicCopy(TOPIC, N, 10);
    const one = copy.apply(entry(N, 1, "oa1", 1))!;
    copy.follow(N, 1);
    expect(ns(copy.eventsSince(one.id))).toEqual([]);
    copy.follow(M, 0);
    expect(copy.eventsSince(one.id)).toEqual({ gap: true });
    expect(copy.eventsSince(copy.lastId)).toEqual({ events: [], after: copy.lastSeq });
  });
});
