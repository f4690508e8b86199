/**
 * The presence conformance suite: lib/presence's rules over a {@link PresenceStore} (the
 * in-process map, Redis). Every implementation passes it unchanged. Time is a clock the test
 * moves (the acknowledgment timeout and the typing window are read from it), so expiry is tested
 * without waiting for it; the sweep's interval is short and real. Two instances are two ports
 * over the stores `open` gives (one shared map in process; two connections to one Redis).
 */
import { afterEach, describe, expect, it } from "vitest";
import type { PresentPerson } from "@/lib/contracts/presence";
import { createPresence, type Presence, type PresenceStore } from "@/lib/presence";

/** Two stores that see the same entries (two instances), and how to let them go. */
export interface PresenceStores {
  a: PresenceStore;
  b: PresenceStore;
}

const ACK = 25_000;
const TYPING = 5_000;

const ann = { id: "p_ann", name: "Ann" };
const bob = { id: "p_bob", name: "Bob" };
const owner = { id: "owner", name: "Owner" };

let serial = 0;
/** A conversation id no other test of the run uses (Redis keeps other tests' keys). */
function freshConversation(): string {
  serial += 1;
  return `conv_20260101_000000_${String(serial).padStart(3, "0")}_${process.pid}_${Date.now()}`;
}

/** Polls `check` every 10 ms until it holds (fails, naming `what`, after 5 s). */
async function eventually<T>(what: string, check: () => T | undefined | null | false | Promise<T | undefined | null | false>): Promise<T> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A watcher's last delivery. */
function watcher(presence: Presence, conversation: string) {
  const seen: PresentPerson[][] = [];
  const stop = presence.watch(conversation, (people) => seen.push(people));
  return {
    seen,
    stop,
    get last(): PresentPerson[] | undefined {
      return seen.at(-1);
    },
    names(): string[] | undefined {
      return seen.at(-1)?.map((p) => p.person.name);
    },
  };
}

/** Runs the suite against the stores `open` makes. */
export function describePresence(name: string, open: () => Promise<PresenceStores>) {
  describe(`presence conformance: ${name}`, () => {
    let clock = 1_000_000;
    const opened: Presence[] = [];
    const make = async () => {
      const { a, b } = await open();
      const options = { ackTimeoutMs: ACK, typingMs: TYPING, sweepMs: 20, now: () => clock, log: () => undefined };
      const pa = createPresence(a, options);
      const pb = createPresence(b, options);
      opened.push(pa, pb);
      return { a: pa, b: pb };
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((p) => p.close()));
    });

    it("lists a viewer at once and tells a watcher; its leave removes it at once", async () => {
      const { a } = await make();
      const conv = freshConversation();
      const w = watcher(a, conv);
      await eventually("an empty first list", () => w.last?.length === 0);
      await a.join(conv, "v_ann_tab_one", ann);
      expect((await a.people(conv)).map((p) => p.person)).toEqual([ann]);
      await eventually("Ann in the watcher's list", () => w.names()?.join() === "Ann");
      await a.leave(conv, "v_ann_tab_one");
      expect(await a.people(conv)).toEqual([]);
      await eventually("Ann gone from the watcher's list", () => w.last?.length === 0);
      w.stop();
    });

    it("counts a person once however many tabs, in order of arrival, with every tab's drawer", async () => {
      const { a } = await make();
      const conv = freshConversation();
      await a.join(conv, "v_bob_tab_one", bob);
      clock += 1;
      await a.join(conv, "v_ann_tab_one", ann);
      await a.join(conv, "v_ann_tab_two", ann);
      expect(await a.beat(conv, "v_ann_tab_one", ann.id, { drawer: 3, typing: null })).toBe(true);
      expect(await a.beat(conv, "v_ann_tab_two", ann.id, { drawer: 1, typing: null })).toBe(true);
      const people = await a.people(conv);
      expect(people).toEqual([
        { person: bob, drawers: [], typing: [] },
        { person: ann, drawers: [1, 3], typing: [] },
      ]);
      expect((await a.counts())[conv]).toBe(2);
      await a.leave(conv, "v_ann_tab_one");
      expect(await a.people(conv)).toEqual([
        { person: bob, drawers: [], typing: [] },
        { person: ann, drawers: [1], typing: [] },
      ]);
    });

    it("drops a viewer not acknowledged within the timeout, and an acknowledgment renews it", async () => {
      const { a } = await make();
      const conv = freshConversation();
      const w = watcher(a, conv);
      await a.join(conv, "v_ann_tab_one", ann);
      await a.join(conv, "v_bob_tab_one", bob);
      await eventually("both listed", () => w.last?.length === 2);
      clock += ACK - 1_000;
      expect(await a.beat(conv, "v_ann_tab_one", ann.id, { drawer: null, typing: null })).toBe(true);
      clock += 2_000; // Bob's acknowledgment is overdue, Ann's is not
      await eventually("Bob dropped by the sweep", () => w.names()?.join() === "Ann");
      expect(await a.beat(conv, "v_bob_tab_one", bob.id, { drawer: null, typing: null })).toBe(false);
      clock += ACK;
      await eventually("Ann dropped too", () => w.last?.length === 0);
      expect(await a.counts()).not.toHaveProperty(conv);
      w.stop();
    });

    it("refuses an acknowledgment of another person's viewer or of one never registered", async () => {
      const { a } = await make();
      const conv = freshConversation();
      await a.join(conv, "v_ann_tab_one", ann);
      clock += ACK - 1_000;
      expect(await a.beat(conv, "v_ann_tab_one", bob.id, { drawer: 2, typing: "leader" })).toBe(false);
      expect(await a.beat(conv, "v_nobody_here", ann.id, { drawer: null, typing: null })).toBe(false);
      expect(await a.people(conv)).toEqual([{ person: ann, drawers: [], typing: [] }]);
      clock += 2_000; // Bob's beat renewed nothing
      expect(await a.people(conv)).toEqual([]);
    });

    it("shows typing to an agent until the typing window passes, and stops it at once when told", async () => {
      const { a } = await make();
      const conv = freshConversation();
      const w = watcher(a, conv);
      await a.join(conv, "v_ann_tab_one", ann);
      await a.beat(conv, "v_ann_tab_one", ann.id, { drawer: 2, typing: 2 });
      await eventually("Ann typing to agent 2", () => w.last?.[0]?.typing.join() === "2");
      clock += TYPING + 1;
      await eventually("typing over", () => w.last?.[0]?.typing.length === 0);
      expect(w.last).toEqual([{ person: ann, drawers: [2], typing: [] }]);
      await a.beat(conv, "v_ann_tab_one", ann.id, { drawer: null, typing: "leader" });
      await eventually("Ann typing to the leader", () => w.last?.[0]?.typing.join() === "leader");
      await a.beat(conv, "v_ann_tab_one", ann.id, { drawer: null, typing: null });
      await eventually("typing stopped on send", () => w.last?.[0]?.typing.length === 0);
      w.stop();
    });

    it("counts only conversations someone has open", async () => {
      const { a } = await make();
      const [one, two] = [freshConversation(), freshConversation()];
      await a.join(one, "v_owner_tab_one", owner);
      await a.join(one, "v_owner_tab_two", owner);
      await a.join(two, "v_ann_tab_one", ann);
      const counts = await a.counts();
      expect(counts[one]).toBe(1);
      expect(counts[two]).toBe(1);
      await a.leave(two, "v_ann_tab_one");
      const after = await a.counts();
      expect(after[one]).toBe(1);
      expect(after).not.toHaveProperty(two);
    });

    it("shares presence between instances: each sees the other's viewers, changes and leaves", async () => {
      const { a, b } = await make();
      const conv = freshConversation();
      const onA = watcher(a, conv);
      const onB = watcher(b, conv);
      await eventually("both watching", () => onA.last && onB.last);
      await a.join(conv, "v_ann_tab_one", ann);
      await b.join(conv, "v_bob_tab_one", bob);
      await eventually("A sees Ann and Bob", () => onA.names()?.join() === "Ann,Bob" || onA.names()?.join() === "Bob,Ann");
      await eventually("B sees Ann and Bob", () => onB.last?.length === 2);
      // An acknowledgment may reach another instance than the stream's.
      expect(await b.beat(conv, "v_ann_tab_one", ann.id, { drawer: 4, typing: 4 })).toBe(true);
      await eventually("A sees Ann's drawer and typing", () => onA.last?.find((p) => p.person.id === ann.id)?.typing.join() === "4");
      expect((await a.counts())[conv]).toBe(2);
      await b.leave(conv, "v_bob_tab_one");
      await eventually("A sees Bob leave", () => onA.names()?.join() === "Ann");
      onA.stop();
      onB.stop();
    });

    it("a sign-out closes that person's streams on every instance once, and nobody else's", async () => {
      const { a, b } = await make();
      const closed: string[] = [];
      a.onSignOut(ann.id, () => closed.push("ann on A"));
      b.onSignOut(ann.id, () => closed.push("ann on B"));
      const stopped = b.onSignOut(ann.id, () => closed.push("ann's stream on B that already ended"));
      stopped();
      b.onSignOut(bob.id, () => closed.push("bob on B"));
      // Told again until B has heard (its subscription may take a moment to be in place on Redis):
      // each stream closes once however often it is told.
      await eventually("both of Ann's streams closed", async () => {
        await a.signOut(ann.id);
        return closed.length >= 2;
      });
      await a.signOut(ann.id);
      await b.signOut(ann.id);
      expect(closed.sort()).toEqual(["ann on A", "ann on B"]);
    });

    it("stops telling a watcher that stopped", async () => {
      const { a } = await make();
      const conv = freshConversation();
      const w = watcher(a, conv);
      await eventually("a first list", () => w.last);
      w.stop();
      const before = w.seen.length;
      await a.join(conv, "v_ann_tab_one", ann);
      const other = watcher(a, conv);
      await eventually("another watcher hears the join", () => other.last?.length === 1);
      expect(w.seen.length).toBe(before);
      other.stop();
    });
  });
}
