/**
 * Public face of presence (issue 32): the port, its rules over any store, the in-process store
 * and the SSE side channel. Redis's store is in lib/bus-redis. Server only.
 */
import "server-only";

export type { Presence, PresenceEntry, PresenceState, PresenceStore, StopWatching } from "./port";
export { ACK_TIMEOUT_MS, createPresence, SWEEP_MS, TYPING_MS, type PresenceOptions } from "./hub";
export { memoryPresenceStore } from "./memory-store";
export { HEARTBEAT_MS, newViewerId, presenceFrame, presenceOnStream } from "./stream";
export { presentPeople } from "./view";
