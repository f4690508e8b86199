/**
 * Public face of the bus: topics, the {@link Bus} port the engine and the SSE streams depend on,
 * and its in-process implementation (one per process, made by the composition root). Server only.
 */
import "server-only";

export * from "./topics";
export type { Bus, BusMessage, BusStats, ConversationMessage, LiveEvent, NumberedEvent, ReplayResult, Unsubscribe } from "./port";
export { EventBus, parseEventId } from "./bus";
