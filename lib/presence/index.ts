/**
 * Public face of presence (issue 32): the port, its rules over any store, the in-process store
 * and the SSE side channel. Redis's store is in lib/bus-redis. Server only.
 */
import "server-only";

export type { Presence, PresenceEntry, PresenceStore, StopWatching } from "./port";
export { createPresence } from "./hub";
export { memoryPresenceStore } from "./memory-store";
export { presenceOnStream } from "./stream";
export { presentPeople } from "./view";
