/**
 * The conformance suite of the forwarding port (lib/bus/forwarding.ts): what every
 * implementation must do, run unchanged against the in-process hub
 * (test/conformance/forwarding-hub.test.ts) and Redis (test/backends/redis-forwarder.test.ts).
 * A request reaches the named instance only, once, with its sender; the reply (a result or an
 * error body) reaches its sender only; requests from one sender arrive in the order sent, also
 * when two senders send at once; an instance that serves nothing, or does not answer, is told
 * without waiting past the timeout; a request that waited past its sender's timeout says so.
 */
import { describe, expect, it } from "vitest";
import type { CommandForwarder, ForwardReply, ServedRequest } from "@/lib/bus/forwarding";
import { until } from "@/test/helpers/wait";

/** Makes the instances of one case; `dispose` closes them. */
export interface ForwarderFactory {
  /** An instance named `self`, connected. */
  instance(self: string): Promise<CommandForwarder>;
  dispose(): Promise<void>;
}

/** What a handler of these cases records. */
interface Heard {
  to: string;
  from: string;
  conversation_id: string;
  command: unknown;
}

/** One case of the suite: a name, and what it does with a fresh factory. */
export interface ForwardingCase {
  name: string;
  run(factory: ForwarderFactory): Promise<void>;
}

/** A handler that records what it hears and answers with its instance's name and the command. */
const echo = (to: string, heard: Heard[]) => async (r: ServedRequest): Promise<ForwardReply> => {
  heard.push({ to, from: r.from, conversation_id: r.conversation_id, command: r.command });
  return { ok: true, value: { by: to, command: r.command } };
};

/** Every case of the suite. */
export const FORWARDING_CASES: ForwardingCase[] = [
  {
    name: "delivers a request to the named instance only, with its sender, and its reply to the sender only",
    async run(f) {
      const [a, b, c] = [await f.instance("inst-a"), await f.instance("inst-b"), await f.instance("inst-c")];
      const heard: Heard[] = [];
      await a.serve(echo("inst-a", heard));
      await c.serve(echo("inst-c", heard));
      const outcome = await b.send("inst-a", { conversation_id: "conv_1", command: { op: "stop", args: {} } }, 5_000);
      expect(outcome).toEqual({ kind: "answered", reply: { ok: true, value: { by: "inst-a", command: { op: "stop", args: {} } } } });
      expect(heard).toEqual([{ to: "inst-a", from: "inst-b", conversation_id: "conv_1", command: { op: "stop", args: {} } }]);
    },
  },

  {
    name: "carries an error answer back as it was given: code, message, details and kind",
    async run(f) {
      const [a, b] = [await f.instance("inst-a"), await f.instance("inst-b")];
      const problem = { code: "not_found", message: "Agent 9 does not exist", details: { agent_id: 9 }, kind: "NotFoundError" };
      await a.serve(async () => ({ ok: false, error: problem }));
      expect(await b.send("inst-a", { conversation_id: "conv_1", command: {} }, 5_000)).toEqual({ kind: "answered", reply: { ok: false, error: problem } });
    },
  },

  {
    name: "tells a request to an instance that serves nothing as not answered",
    async run(f) {
      const b = await f.instance("inst-b");
      await f.instance("inst-a");
      const outcome = await b.send("inst-a", { conversation_id: "conv_1", command: {} }, 2_000);
      expect(outcome.kind).toBe("unanswered");
      // Nobody at all by that name: the same.
      expect((await b.send("inst-gone", { conversation_id: "conv_1", command: {} }, 2_000)).kind).toBe("unanswered");
    },
  },

  {
    name: "gives up on a holder that does not answer, and the holder can tell the sender gave up",
    async run(f) {
      const [a, b] = [await f.instance("inst-a"), await f.instance("inst-b")];
      let served: ServedRequest | null = null;
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      await a.serve(async (r) => {
        served = r;
        await held;
        return { ok: true, value: "late" };
      });
      const outcome = await b.send("inst-a", { conversation_id: "conv_1", command: {} }, 300);
      expect(outcome).toEqual({ kind: "unanswered", reason: "timeout" });
      expect(served).not.toBeNull();
      // Counted from its arrival, so a little after the sender gave up (the time on the way).
      await until("the holder sees the request expired", () => served!.expired(), 2_000);
      release();
      // A late answer reaches nobody and breaks nothing: the next request is answered.
      await a.serve(echo("inst-a", []));
      expect((await b.send("inst-a", { conversation_id: "conv_1", command: 2 }, 5_000)).kind).toBe("answered");
    },
  },

  {
    name: "a request answered in time was not expired when it arrived",
    async run(f) {
      const [a, b] = [await f.instance("inst-a"), await f.instance("inst-b")];
      const expired: boolean[] = [];
      await a.serve(async (r) => (expired.push(r.expired()), { ok: true, value: null }));
      await b.send("inst-a", { conversation_id: "conv_1", command: {} }, 10_000);
      expect(expired).toEqual([false]);
    },
  },

  {
    name: "hands requests from two senders sending at once to the holder in each sender's order, each reply to its own request",
    async run(f) {
      const [a, b, c] = [await f.instance("inst-a"), await f.instance("inst-b"), await f.instance("inst-c")];
      const heard: Heard[] = [];
      await a.serve(echo("inst-a", heard));
      const sendAll = (from: CommandForwarder, tag: string) => Promise.all(Array.from({ length: 10 }, (_, i) => from.send("inst-a", { conversation_id: "conv_1", command: `${tag}${i}` }, 10_000)));
      const [fromB, fromC] = await Promise.all([sendAll(b, "b"), sendAll(c, "c")]);
      expect(fromB.map((o) => (o.kind === "answered" && o.reply.ok ? (o.reply.value as { command: string }).command : o))).toEqual(Array.from({ length: 10 }, (_, i) => `b${i}`));
      expect(fromC.map((o) => (o.kind === "answered" && o.reply.ok ? (o.reply.value as { command: string }).command : o))).toEqual(Array.from({ length: 10 }, (_, i) => `c${i}`));
      expect(heard.filter((h) => h.from === "inst-b").map((h) => h.command)).toEqual(Array.from({ length: 10 }, (_, i) => `b${i}`));
      expect(heard.filter((h) => h.from === "inst-c").map((h) => h.command)).toEqual(Array.from({ length: 10 }, (_, i) => `c${i}`));
      expect(heard).toHaveLength(20);
    },
  },

  {
    name: "stops serving when told: later requests are not answered",
    async run(f) {
      const [a, b] = [await f.instance("inst-a"), await f.instance("inst-b")];
      const heard: Heard[] = [];
      const stop = await a.serve(echo("inst-a", heard));
      stop();
      expect((await b.send("inst-a", { conversation_id: "conv_1", command: {} }, 1_000)).kind).toBe("unanswered");
      expect(heard).toEqual([]);
    },
  },

  {
    name: "closed, a sender's waits end at once and it sends nothing more",
    async run(f) {
      const [a, b] = [await f.instance("inst-a"), await f.instance("inst-b")];
      await a.serve(() => new Promise(() => undefined));
      const waiting = b.send("inst-a", { conversation_id: "conv_1", command: {} }, 60_000);
      // Let the request go out before the close.
      await new Promise((resolve) => setTimeout(resolve, 100));
      await b.close();
      expect(await waiting).toEqual({ kind: "unanswered", reason: "unreachable" });
      expect(await b.send("inst-a", { conversation_id: "conv_1", command: {} }, 1_000)).toEqual({ kind: "unanswered", reason: "unreachable" });
    },
  },
];

/** Runs one case against a fresh factory from `make`, disposed of afterwards whatever happened. */
export async function runForwardingCase(c: ForwardingCase, make: () => Promise<ForwarderFactory>): Promise<void> {
  const factory = await make();
  try {
    await c.run(factory);
  } finally {
    await factory.dispose();
  }
}

/** Registers the suite; `make` is called once per case. */
export function describeCommandForwarder(name: string, make: () => Promise<ForwarderFactory>): void {
  describe(`the forwarding port: ${name}`, () => {
    for (const c of FORWARDING_CASES) it(c.name, () => runForwardingCase(c, make));
  });
}
