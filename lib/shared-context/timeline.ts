/**
 * The timeline records of a person's shared-context action (a PUT or a decision from the UI),
 * which happens outside any agent's turn: the person's request starts its own trace, is
 * recorded, and the decision events follow it. Each record is appended through the engine's
 * storage (ordered and made durable with the conversation's other changes), then published on
 * the conversation's topic so open timeline views update live — the same two steps as the
 * runtime's `emit`.
 */
import { follow, startTrace, SYSTEM_PARTY, USER_PARTY, type Envelope } from "@/lib/contracts/envelope";
import { timelineRecord, type TimelineRecord } from "@/lib/contracts/timeline-record";
import type { SharedContextTimelineEvent } from "./events";
import { authorParty, type Author } from "@/lib/contracts/people";

/** What the person did, for the request record. */
export interface PersonAction {
  /** `update_shared_context` or `decide_conflict`. */
  action: string;
  key: string;
  payload: Record<string, unknown>;
  /** The person who did it (issue 32): the request's `from` and `author`. */
  author?: Author;
}

/** Where the records go: appended to the conversation's timeline, then published to its viewers. */
export interface PersonActionSink {
  append(record: TimelineRecord): Promise<void>;
  publish(record: TimelineRecord): void;
}

/**
 * Records a person's action and its decision events, in order, through `sink`. Returns the
 * request envelope (its `trace_id` names the whole action).
 */
export async function recordPersonAction(sink: PersonActionSink, request: PersonAction, events: readonly SharedContextTimelineEvent[]): Promise<Envelope> {
  const cause = startTrace(request.author ? authorParty(request.author) : USER_PARTY, SYSTEM_PARTY, request.payload, { author: request.author });
  const first = timelineRecord(cause, { action: request.action, resource: `shared_context:${request.key}` });
  await sink.append(first);
  sink.publish(first);
  for (const event of events) {
    const envelope = follow(cause, { type: event.type, from: event.from, to: event.to, payload: event.payload, producer: "code" });
    const record = timelineRecord(envelope, { action: event.action, resource: event.resource, status: event.status, version: event.version });
    await sink.append(record);
    sink.publish(record);
  }
  return cause;
}
