/**
 * The bus suite can fail: each case is run against buses broken on purpose in one way each
 * (wrappers over the EventBus that deliver late, number wake-ups, never let go, ignore the
 * limit…) and must fail an assertion against the ones named for it; the last test checks that
 * every case of the suite is named by at least one flaw.
 */
import { describe, expect, it } from "vitest";
import { EventBus, isConversationTopic, type Bus, type BusMessage, type BusStats, type ReplayResult, type Unsubscribe } from "@/lib/bus";
import { BUS_CASES, runBusCase, type BusCase, type BusMaker } from "./engine-bus";

type Listener = (message: BusMessage) => void;
/** What `subscribe` takes (a conversation or an agent topic's listener: see the port's overloads). */
type AnyListener = (message: never) => void;
const asListener = (listener: AnyListener) => listener as unknown as Listener;

/** A bus that hands everything to an EventBus; a flaw overrides what it breaks. */
class Delegating implements Bus {
  constructor(readonly inner: EventBus) {}
  publish(topic: string, event?: unknown): void {
    this.inner.publish(topic, event);
  }
  subscribe(topic: string, listener: AnyListener): Unsubscribe {
    return this.inner.subscribe(topic, asListener(listener));
  }
  retain(topic: string): Unsubscribe {
    return this.inner.retain(topic as never);
  }
  synced(topic: string): Promise<void> {
    void topic;
    return this.inner.synced();
  }
  lastSeq(topic: string): number {
    return this.inner.lastSeq(topic as never);
  }
  lastId(topic: string): string {
    return this.inner.lastId(topic as never);
  }
  eventsAfter(topic: string, seq: number, limit?: number): ReplayResult {
    return this.inner.eventsAfter(topic as never, seq, limit);
  }
  eventsSince(topic: string, lastEventId: string | null | undefined, limit?: number): ReplayResult {
    return this.inner.eventsSince(topic as never, lastEventId, limit);
  }
  subscriberCount(topic: string): number {
    return this.inner.subscriberCount(topic);
  }
  stats(): BusStats {
    return this.inner.stats();
  }
}

interface Flaw {
  name: string;
  /** Cases (by the start of their name) that must fail against it. */
  fails: string[];
  make: BusMaker;
}

/** A flaw made of a subclass of {@link Delegating} over a bus of the asked window. */
function flaw(name: string, fails: string[], Broken: new (inner: EventBus) => Bus): Flaw {
  return { name, fails, make: ({ replayWindow }) => new Broken(new EventBus({ bufferSize: replayWindow })) };
}

const FLAWS: Flaw[] = [
  flaw("never says a held topic is synced", ["synced resolves"], class extends Delegating {
    override synced(topic: string) {
      return this.inner.stats().retained_topics > 0 && isConversationTopic(topic) ? new Promise<void>(() => undefined) : Promise.resolve();
    }
  }),
  flaw("delivers a microtask after the publish", ["delivers a conversation topic's events"], class extends Delegating {
    override publish(topic: string, event?: unknown) {
      queueMicrotask(() => this.inner.publish(topic, event));
    }
  }),
  flaw("delivers every conversation topic's events on every conversation topic", ["keeps topics apart"], class extends Delegating {
    readonly topics = new Set<string>();
    override subscribe(topic: string, listener: AnyListener) {
      if (isConversationTopic(topic)) this.topics.add(topic);
      return this.inner.subscribe(topic, asListener(listener));
    }
    override publish(topic: string, event?: unknown) {
      if (!isConversationTopic(topic)) return this.inner.publish(topic, event);
      for (const t of new Set([topic, ...this.topics])) this.inner.publish(t, event);
    }
  }),
  flaw("numbers wake-ups", ["an agent topic wakes"], class extends Delegating {
    n = 0;
    override subscribe(topic: string, listener: AnyListener) {
      return this.inner.subscribe(topic, (m) => asListener(listener)(isConversationTopic(topic) ? m : ({ ...m, seq: ++this.n } as BusMessage)));
    }
  }),
  flaw("gives a live event an id of its own", ["a live-only event"], class extends Delegating {
    override subscribe(topic: string, listener: AnyListener) {
      return this.inner.subscribe(topic, (m) => asListener(listener)("live" in m ? { ...m, id: `${m.id}-live` } : m));
    }
  }),
  flaw("holds a topic once something is published on it", ["a conversation topic nobody holds"], class extends Delegating {
    readonly held = new Set<string>();
    override publish(topic: string, event?: unknown) {
      if (isConversationTopic(topic) && !this.held.has(topic)) {
        this.held.add(topic);
        this.inner.retain(topic);
      }
      this.inner.publish(topic, event);
    }
  }),
  flaw("ignores the replay limit", ["replays what a client missed"], class extends Delegating {
    override eventsAfter(topic: string, seq: number) {
      return this.inner.eventsAfter(topic as never, seq);
    }
    override eventsSince(topic: string, lastEventId: string | null | undefined) {
      return this.inner.eventsSince(topic as never, lastEventId);
    }
  }),
  { name: "keeps more than its window", fails: ["answers a gap"], make: () => new EventBus({ bufferSize: 1000 }) },
  flaw("never lets go of a hold", ["a hold keeps numbering", "counts subscribers"], class extends Delegating {
    override retain(topic: string) {
      this.inner.retain(topic as never);
      return () => undefined;
    }
  }),
  flaw("holds a topic after its subscriber is gone", ["a subscriber holds its topic"], class extends Delegating {
    override subscribe(topic: string, listener: AnyListener) {
      if (isConversationTopic(topic)) this.inner.retain(topic);
      return this.inner.subscribe(topic, asListener(listener));
    }
  }),
  flaw("counts every call of a release", ["a release or an unsubscribe called again"], class extends Delegating {
    readonly holds = new Map<string, { count: number; release: Unsubscribe }>();
    override retain(topic: string) {
      const hold = this.holds.get(topic) ?? { count: 0, release: this.inner.retain(topic as never) };
      hold.count += 1;
      this.holds.set(topic, hold);
      return () => {
        if (--hold.count > 0) return;
        hold.release();
        this.holds.delete(topic);
      };
    }
  }),
  flaw("counts no subscriber of an agent topic", ["counts subscribers"], class extends Delegating {
    override subscriberCount(topic: string) {
      return isConversationTopic(topic) ? this.inner.subscriberCount(topic) : 0;
    }
  }),
  flaw("lets a throwing listener end the round", ["a listener that throws"], class extends Delegating {
    readonly listeners = new Map<string, Set<Listener>>();
    override subscribe(topic: string, listener: AnyListener) {
      let set = this.listeners.get(topic);
      if (!set) {
        const mine = new Set<Listener>();
        this.listeners.set(topic, (set = mine));
        this.inner.subscribe(topic, (m) => {
          for (const l of mine) l(m);
        });
      }
      const l = asListener(listener);
      set.add(l);
      return () => void set.delete(l);
    }
  }),
  flaw("replays the window to a new subscriber", ["a subscriber gets only what is published after"], class extends Delegating {
    override subscribe(topic: string, listener: AnyListener) {
      const kept = isConversationTopic(topic) ? this.inner.eventsAfter(topic, 0) : { gap: true as const };
      if (!("gap" in kept)) for (const m of kept.events) asListener(listener)(m);
      return this.inner.subscribe(topic, asListener(listener));
    }
  }),
];

function casesOf(f: Flaw): BusCase[] {
  return f.fails.map((start) => {
    const found = BUS_CASES.filter((c) => c.name.startsWith(start));
    if (found.length !== 1) throw new Error(`"${start}" names ${found.length} cases`);
    return found[0]!;
  });
}

describe("the bus suite fails against a broken bus", () => {
  for (const f of FLAWS) {
    describe(f.name, () => {
      for (const c of casesOf(f)) {
        it(`fails: ${c.name}`, async () => {
          await expect(runBusCase(f.make, c)).rejects.toMatchObject({ name: "AssertionError" });
        });
      }
    });
  }

  it("names every case of the suite under at least one flaw", () => {
    const named = new Set(FLAWS.flatMap(casesOf));
    expect(BUS_CASES.filter((c) => !named.has(c)).map((c) => c.name)).toEqual([]);
  });
});
