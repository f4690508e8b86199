/** The presence conformance suite (./presence-contract.ts) against the in-process store (lib/presence/memory-store.ts). */
import { memoryPresenceStore } from "@/lib/presence";
import { describePresence } from "./presence-contract";

// One process holds every conversation on the data folder: both "instances" share its one map.
describePresence("in-process", async () => {
  const store = memoryPresenceStore();
  return { a: store, b: store };
});
