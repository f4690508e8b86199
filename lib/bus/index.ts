/**
 * Public face of the bus: topics, the process-wide {@link getBus} and its types. Server only.
 */
import "server-only";

export * from "./topics";
export {
  DEFAULT_BUFFER_SIZE,
  EventBus,
  getBus,
  parseEventId,
  type BusMessage,
  type EventBusOptions,
  type NumberedEvent,
  type PlainEvent,
  type ReplayResult,
  type Unsubscribe,
} from "./bus";
