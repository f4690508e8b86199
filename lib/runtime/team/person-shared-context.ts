import "server-only";
/**
 * A person's actions on a conversation's shared context, run where the conversation's run is
 * (lib/runtime/run-ops.ts names them, so one sent to an instance that does not hold the run is
 * forwarded to the one that does): the read the page makes, a write (arbitrated like any, a person
 * ranking like the leader) and the decision of a write waiting for a person. Everything goes
 * through the engine's storage port, and the timeline records of the action (the person's request,
 * then its decision events: lib/shared-context `recordPersonAction`) are appended through it too
 * and published once durable.
 */
import { authorParty, type Author } from "@/lib/contracts/people";
import { decideConflict, recordPersonAction, timelineEventsOf, writeSharedContext, type Decision, type DecisionBody, type SharedContextChange, type SharedContextFile, type WriteBody } from "@/lib/shared-context";
import type { TeamState } from "./state";

/** The name a person's writes carry as the entry's `author` and a decision's `decided_by`. */
const PERSON = "person";

/** A person's shared-context actions on one run (see the file's header). */
export class PersonSharedContext {
  readonly #s: TeamState;

  constructor(s: TeamState) {
    this.#s = s;
  }

  #change(): SharedContextChange {
    return (fn) => this.#s.store.updateSharedContext(this.#s.convId, fn);
  }

  async #record(author: Author | undefined, action: string, key: string, payload: Record<string, unknown>, decision: Decision): Promise<void> {
    const s = this.#s;
    await recordPersonAction(
      { append: (record) => s.storage.appendTimeline(s.convId, record), publish: (record) => s.publish({ type: "timeline", record }) },
      { action, key, payload, author },
      timelineEventsOf(decision, authorParty(author)),
    );
  }

  /** The shared context as it is now. */
  read(): Promise<SharedContextFile> {
    return this.#s.store.readSharedContext(this.#s.convId);
  }

  /** A person's write, requested at `requestedAt` (stamped as the request reached the server). */
  async write(body: WriteBody, requestedAt: Date, author: Author | undefined): Promise<Decision> {
    const expected_version = body.expected_version ?? null;
    const decision = await writeSharedContext(this.#change(), { key: body.key, value: body.value, mode: body.mode, expected_version, author: PERSON, author_role: "person", requested_at: requestedAt });
    await this.#record(author, "update_shared_context", body.key, { key: body.key, mode: body.mode, expected_version }, decision);
    return decision;
  }

  /** A person's decision of a write that waits for one. @throws NotFoundError for an unknown conflict, ConflictError for one already decided. */
  async decide(body: DecisionBody, requestedAt: Date, author: Author | undefined): Promise<Decision> {
    const decision = await decideConflict(this.#change(), body.conflict_id, body.choice, PERSON, requestedAt);
    await this.#record(author, "decide_conflict", decision.key, { conflict_id: body.conflict_id, choice: body.choice }, decision);
    return decision;
  }
}
