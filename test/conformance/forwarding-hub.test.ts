/** The forwarding port's conformance suite on the in-process hub (the reference implementation). */
import type { CommandForwarder } from "@/lib/bus/forwarding";
import { ForwardingHub } from "@/test/support/forwarding-hub";
import { describeCommandForwarder } from "./command-forwarding";

describeCommandForwarder("in process", async () => {
  const hub = new ForwardingHub();
  const made: CommandForwarder[] = [];
  return {
    instance: async (self) => {
      const f = hub.instance(self);
      made.push(f);
      return f;
    },
    dispose: async () => void (await Promise.all(made.map((f) => f.close()))),
  };
});
