import "server-only";
/**
 * Writes the timeline events of a person's shared-context action (a PUT or a decision from the
 * UI), which happen outside any agent's turn: the person's request starts its own trace, is
 * recorded, and the decision events follow it. Each record is appended durably, then published
 * on the conversation's bus topic so open timeline views update live — the same two steps as the
 * runtime's `emit`.
 */
import { conversationTopic, type Bus } from "@/lib/bus";
import { appendTimeline, follow, startTrace, SYSTEM_PARTY, timelineFile, timelineRecord, USER_PARTY, type Envelope, type JsonLineFiles } from "@/lib/protocol";
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

/** The parts of the server a person's action is recorded with: the bus and the process's JSON Lines files. */
export interface PersonActionParts {
  readonly bus: Bus;
  readonly lines: JsonLineFiles;
}

/**
 * Records a person's action and its decision events in the conversation's timeline (appended
 * through the process's JSON Lines files, as the engine's records are) and publishes them.
 * Returns the request envelope (its `trace_id` names the whole action).
 */
export async function recordPersonAction(
  { bus, lines }: PersonActionParts,
  conversationId: string,
  conversationDir: string,
  request: PersonAction,
  events: readonly SharedContextTimelineEvent[],
): Promise<Envelope> {
  const file = timelineFile(conversationDir);
  const topic = conversationTopic(conversationId);
  const cause = startTrace(request.author ? authorParty(request.author) : USER_PARTY, SYSTEM_PARTY, request.payload, { author: request.author });
  const first = timelineRecord(cause, { action: request.action, resource: `shared_context:${request.key}` });
  await appendTimeline(lines, file, first);
  bus.publish(topic, { type: "timeline", record: first });
  for (const event of events) {
    const envelope = follow(cause, { type: event.type, from: event.from, to: event.to, payload: event.payload, producer: "code" });
    const record = timelineRecord(envelope, { action: event.action, resource: event.resource, status: event.status, version: event.version });
    await appendTimeline(lines, file, record);
    bus.publish(topic, { type: "timeline", record });
  }
  return cause;
}
