/**
 * The bus port: everything the engine (lib/runtime) and the SSE streams (lib/sse) need from a
 * message bus, and nothing about how it is done. The in-process bus (./bus.ts) is the default
 * implementation; a Redis bus would be another (see docs/architecture.md, "Ports"). Types only.
 *
 * Two kinds of topic (./topics.ts):
 * - a conversation topic carries the runtime events browsers see. Its events are numbered
 *   1, 2, 3… and the latest ones are kept for `Last-Event-ID` replay, while the topic is held: by
 *   a subscriber (an SSE viewer) or by {@link Bus.retain} (the runtime, while it works). A topic
 *   held by nobody keeps nothing; when it is held again its numbering starts over under a new id
 *   prefix, so an id handed out before is recognized as foreign (replay answers a gap, the client
 *   gets a snapshot) instead of being matched against unrelated events. Live-only events
 *   (`isLiveOnlyEvent`: streamed text) are delivered to current subscribers, never numbered or kept;
 * - an agent topic only wakes one agent's loop: delivered, never numbered or kept.
 *
 * Reads are synchronous: an SSE stream pulls from the replay window whenever its socket wants more.
 * An implementation backed by a remote broker keeps a local copy of the window of the topics this
 * process holds, fed by its subscription.
 */
import type { RuntimeEvent } from "@/lib/contracts/events";
import type { AgentTopic, ConversationTopic } from "./topics";

/** A conversation-topic event, numbered and kept for replay. */
export interface NumberedEvent<E = RuntimeEvent> {
  readonly topic: string;
  /** 1, 2, 3… within the topic's current numbering. */
  readonly seq: number;
  /** The SSE `id:`: names the numbering and the number (`<bootId>-<epoch>-<seq>` in process). */
  readonly id: string;
  readonly event: E;
}

/** A live-only conversation-topic event (streamed text): delivered to current subscribers, never kept. */
export interface LiveEvent<E = RuntimeEvent> {
  readonly topic: string;
  readonly seq: null;
  /** The number of the last numbered event published before it: it is to be sent after that one. */
  readonly after: number;
  /** The id of that event (a reconnect from here resumes after it, since this one is not kept). */
  readonly id: string;
  readonly live: true;
  readonly event: E;
}

/** An agent-topic event (a wake-up): not numbered, not kept. */
export interface PlainEvent<E = unknown> {
  readonly topic: string;
  readonly seq: null;
  readonly id: null;
  readonly event: E;
}

/** What a conversation topic's subscribers receive. */
export type ConversationMessage = NumberedEvent | LiveEvent;

/** Anything a bus delivers. */
export type BusMessage = NumberedEvent<unknown> | LiveEvent<unknown> | PlainEvent;

/** Ends a subscription or a hold; calling it again does nothing. */
export type Unsubscribe = () => void;

/** The events after a point, and that point; or that some of them are not kept (`gap`). */
export type ReplayResult = { events: NumberedEvent[]; after: number } | { gap: true };

/** What a bus holds now (operators read it in `GET /api/health`). */
export interface BusStats {
  /** Conversation topics with state (numbering, replay window, subscribers). */
  conversation_topics: number;
  /** Numbered events kept for replay, over every conversation topic. */
  buffered_events: number;
  /** Subscribers of conversation topics (SSE streams). */
  subscribers: number;
  /** Conversation topics held by {@link Bus.retain}. */
  retained_topics: number;
  /** Agent topics with a subscriber (agent loops listening for wake-ups). */
  agent_topics: number;
}

/** The bus port. */
export interface Bus {
  /**
   * Delivers `event` to every current subscriber of `topic`, synchronously, without waiting for
   * any of them. On a held conversation topic a numbered event is kept for replay before it is
   * delivered, so a subscriber already finds it there. A listener that throws keeps the event
   * from neither the other subscribers nor the publisher.
   */
  publish(topic: ConversationTopic, event: RuntimeEvent): void;
  publish(topic: AgentTopic, event?: unknown): void;
  /** Calls `listener` with every event published on `topic` from now on; holds the topic meanwhile. */
  subscribe(topic: ConversationTopic, listener: (message: ConversationMessage) => void): Unsubscribe;
  subscribe(topic: AgentTopic, listener: (message: PlainEvent) => void): Unsubscribe;
  /**
   * Keeps a conversation topic's numbering and replay window while nobody subscribes (a run is
   * working: a viewer that drops and reconnects is replayed what it missed). The returned
   * function lets go; with no hold and no subscriber left, the topic's state is released.
   */
  retain(topic: ConversationTopic): Unsubscribe;
  /**
   * Resolves once this process's copy of a held topic has caught up with the other processes'
   * events (a broker's bus: its first join is done, or a short bound has passed, never hanging),
   * so that a replay from an id another instance handed out is answered; at once for a bus that
   * is the only copy (in process). An SSE route holds the topic, awaits this, then subscribes.
   */
  synced(topic: ConversationTopic): Promise<void>;
  /** The number of the last event of the topic's current numbering (0 before any, or when not held). */
  lastSeq(topic: ConversationTopic): number;
  /** The id a snapshot taken now carries: the last event's id, or the start of the numbering. */
  lastId(topic: ConversationTopic): string;
  /** The numbered events after number `seq`, at most `limit`, oldest first; a gap when some are not kept. */
  eventsAfter(topic: ConversationTopic, seq: number, limit?: number): ReplayResult;
  /**
   * What a client that last saw `lastEventId` missed: a gap when there is no id, it is malformed,
   * of another numbering (another process, or a numbering released since), or no longer kept.
   */
  eventsSince(topic: ConversationTopic, lastEventId: string | null | undefined, limit?: number): ReplayResult;
  /** Subscribers of `topic` now. */
  subscriberCount(topic: string): number;
  /** What the bus holds now. */
  stats(): BusStats;
}
