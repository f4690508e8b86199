/**
 * The forwarding suite can fail: each case is run against hubs broken on purpose in one way each
 * (one that delivers to every instance, loses an error's details, reorders, never gives up, lies
 * about a request's age, mixes replies up…) and must fail against the ones named for it; the last
 * test checks that every case of the suite is named by at least one flaw.
 */
import { describe, expect, it } from "vitest";
import type { CommandForwarder, ForwardHandler, ForwardOutcome, ForwardReply, ForwardRequest } from "@/lib/bus/forwarding";
import { FORWARDING_CASES, runForwardingCase, type ForwarderFactory } from "./command-forwarding";

/** The ways a hub can be broken (each flaw turns one on). */
interface Breaks {
  /** Every serving instance gets the request; the sender gets the first reply. */
  broadcast?: boolean;
  /** An error's details and kind are dropped on the way back. */
  dropDetails?: boolean;
  /** The sender is named as the holder. */
  wrongSender?: boolean;
  /** A request to an instance that serves nothing waits for ever. */
  waitForAbsent?: boolean;
  /** The timeout is not kept. */
  noTimeout?: boolean;
  /** `expired()` answers this, whatever the time. */
  expired?: boolean;
  /** Every other request of a sender is handed over later than the one after it. */
  reorder?: boolean;
  /** Two requests answered close together get each other's reply. */
  swapReplies?: boolean;
  /** `close` leaves the sender's waits waiting and lets it send again. */
  closeKeepsWaiting?: boolean;
}

/** A hub as test/support/forwarding-hub.ts, with {@link Breaks}. */
function brokenHub(breaks: Breaks): () => Promise<ForwarderFactory> {
  return async () => {
    const handlers = new Map<string, ForwardHandler>();
    const made: CommandForwarder[] = [];
    let pendingSwap: ((reply: ForwardReply) => ForwardReply) | null = null;
    const instance = (self: string): CommandForwarder => {
      const waiting = new Set<(o: ForwardOutcome) => void>();
      let closed = false;
      let sent = 0;
      const deliver = (owner: string, request: ForwardRequest, timeoutMs: number): Promise<ForwardReply> => {
        const arrived = Date.now();
        const targets = breaks.broadcast ? [...handlers.values()] : [handlers.get(owner)!];
        const served = { ...request, from: breaks.wrongSender ? owner : self, expired: () => breaks.expired ?? Date.now() - arrived > timeoutMs };
        return Promise.race(targets.map((h) => h(served)));
      };
      return {
        self,
        send(owner, request, timeoutMs) {
          if (closed && !breaks.closeKeepsWaiting) return Promise.resolve({ kind: "unanswered", reason: "unreachable" });
          if (!handlers.has(owner)) return breaks.waitForAbsent ? new Promise(() => undefined) : Promise.resolve({ kind: "unanswered", reason: "no_listener" });
          const n = ++sent;
          return new Promise<ForwardOutcome>((resolve) => {
            const settle = (o: ForwardOutcome) => {
              clearTimeout(timer);
              waiting.delete(settle);
              resolve(o);
            };
            const timer = breaks.noTimeout ? undefined : setTimeout(() => settle({ kind: "unanswered", reason: "timeout" }), timeoutMs);
            if (!breaks.closeKeepsWaiting) waiting.add(settle);
            const go = () =>
              void deliver(owner, JSON.parse(JSON.stringify(request)) as ForwardRequest, timeoutMs).then((reply) => {
                let back = JSON.parse(JSON.stringify(reply)) as ForwardReply;
                if (breaks.dropDetails && !back.ok) back = { ok: false, error: { code: back.error.code, message: back.error.message } };
                if (breaks.swapReplies) {
                  if (pendingSwap) {
                    const other = pendingSwap;
                    pendingSwap = null;
                    const mine = back;
                    back = other(mine);
                  } else {
                    pendingSwap = (theirs) => {
                      settle({ kind: "answered", reply: theirs });
                      return back;
                    };
                    return;
                  }
                }
                settle({ kind: "answered", reply: back });
              });
            if (breaks.reorder && n % 2 === 1) setTimeout(go, 30);
            else go();
          });
        },
        async serve(handler) {
          handlers.set(self, handler);
          return () => void (handlers.get(self) === handler && handlers.delete(self));
        },
        async close() {
          closed = true;
          handlers.delete(self);
          if (!breaks.closeKeepsWaiting) for (const settle of [...waiting]) settle({ kind: "unanswered", reason: "unreachable" });
        },
      };
    };
    return {
      instance: async (self) => {
        const f = instance(self);
        made.push(f);
        return f;
      },
      dispose: async () => void (await Promise.all(made.map((f) => f.close()))),
    };
  };
}

interface Flaw {
  name: string;
  /** Cases (by the start of their name) that must fail against it. */
  fails: string[];
  breaks: Breaks;
}

const FLAWS: Flaw[] = [
  { name: "delivers to every instance", fails: ["delivers a request to the named instance only"], breaks: { broadcast: true } },
  { name: "names the holder as the sender", fails: ["delivers a request to the named instance only"], breaks: { wrongSender: true } },
  { name: "drops an error's details and kind", fails: ["carries an error answer back"], breaks: { dropDetails: true } },
  { name: "waits for ever on an instance that serves nothing", fails: ["tells a request to an instance that serves nothing", "stops serving when told"], breaks: { waitForAbsent: true } },
  { name: "keeps no timeout", fails: ["gives up on a holder that does not answer"], breaks: { noTimeout: true } },
  { name: "never says a request expired", fails: ["gives up on a holder that does not answer"], breaks: { expired: false } },
  { name: "says every request expired", fails: ["a request answered in time was not expired"], breaks: { expired: true } },
  { name: "reorders a sender's requests", fails: ["hands requests from two senders"], breaks: { reorder: true } },
  { name: "mixes replies up", fails: ["hands requests from two senders"], breaks: { swapReplies: true } },
  { name: "leaves waits waiting when closed", fails: ["closed, a sender's waits end at once"], breaks: { closeKeepsWaiting: true } },
];

/** A case that hangs fails too: it is given this long. */
const CASE_LIMIT_MS = 3_000;

async function fails(run: () => Promise<void>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<"hung">((resolve) => (timer = setTimeout(() => resolve("hung"), CASE_LIMIT_MS)));
  try {
    const outcome = await Promise.race([run().then(() => "passed" as const), hung]);
    return outcome === "hung";
  } catch {
    return true;
  } finally {
    clearTimeout(timer);
  }
}

describe("the forwarding suite fails against broken hubs", () => {
  for (const flaw of FLAWS) {
    for (const prefix of flaw.fails) {
      const c = FORWARDING_CASES.find((x) => x.name.startsWith(prefix));
      it(`${flaw.name}: fails "${prefix}…"`, async () => {
        expect(c, `no case starts with "${prefix}"`).toBeDefined();
        expect(await fails(() => runForwardingCase(c!, brokenHub(flaw.breaks)))).toBe(true);
      }, 10_000);
    }
  }

  it("names every case of the suite in some flaw", () => {
    const named = new Set(FLAWS.flatMap((f) => f.fails.map((prefix) => FORWARDING_CASES.find((c) => c.name.startsWith(prefix))?.name)));
    expect(FORWARDING_CASES.filter((c) => !named.has(c.name)).map((c) => c.name)).toEqual([]);
  });

  it("the unbroken hub passes every case (the flaws are what fails)", async () => {
    for (const c of FORWARDING_CASES) expect(await fails(() => runForwardingCase(c, brokenHub({}))), c.name).toBe(false);
  }, 30_000);
});
