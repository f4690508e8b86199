/**
 * The forwarding port (lib/bus/forwarding.ts) between instances in one process: a hub that
 * delivers each request to the handler of the instance it names, as JSON (so nothing is shared by
 * reference that would not survive a wire), in the order sent. The reference implementation the
 * conformance suite (test/conformance/command-forwarding.ts) is checked on beside Redis.
 */
import type { CommandForwarder, ForwardHandler, ForwardOutcome, ForwardRequest } from "@/lib/bus/forwarding";

/** Instances that reach each other in this process. */
export class ForwardingHub {
  readonly #handlers = new Map<string, ForwardHandler>();

  /** An instance named `self` on the hub. */
  instance(self: string): CommandForwarder {
    const handlers = this.#handlers;
    const waiting = new Set<(outcome: ForwardOutcome) => void>();
    let closed = false;
    return {
      self,
      send(owner: string, request: ForwardRequest, timeoutMs: number): Promise<ForwardOutcome> {
        const handler = handlers.get(owner);
        if (closed) return Promise.resolve({ kind: "unanswered", reason: "unreachable" });
        if (!handler) return Promise.resolve({ kind: "unanswered", reason: "no_listener" });
        const wire = JSON.parse(JSON.stringify(request)) as ForwardRequest;
        const arrived = Date.now();
        return new Promise<ForwardOutcome>((resolve) => {
          const settle = (outcome: ForwardOutcome) => {
            clearTimeout(timer);
            waiting.delete(settle);
            resolve(outcome);
          };
          const timer = setTimeout(() => settle({ kind: "unanswered", reason: "timeout" }), timeoutMs);
          waiting.add(settle);
          void handler({ ...wire, from: self, expired: () => Date.now() - arrived > timeoutMs }).then((reply) => settle({ kind: "answered", reply: JSON.parse(JSON.stringify(reply)) }));
        });
      },
      async serve(handler: ForwardHandler) {
        handlers.set(self, handler);
        return () => {
          if (handlers.get(self) === handler) handlers.delete(self);
        };
      },
      async close() {
        closed = true;
        handlers.delete(self);
        for (const settle of [...waiting]) settle({ kind: "unanswered", reason: "unreachable" });
      },
    };
  }
}
