/**
 * The timeline events a shared-context decision produces. Pure, so the exact records are tested
 * and the runtime and the API routes write the same ones.
 *
 * Each event is shaped to be spread straight into the runtime's `emit(cause, init)`: an `event`
 * envelope decided by code, plus the touched key's `version` for the timeline record.
 */
import type { Decision } from "./schema";

/** Timeline actions of the shared context. */
type SharedContextAction = "conflict_resolution" | "shared_context_write";

/** One timeline event of a shared-context write or decision. */
export interface SharedContextTimelineEvent {
  /** Always "event": decided by code, never by a model (seed 003 §3.3). */
  type: "event";
  /** Appends: the writer. Overwrite decisions: `system` (code arbitrated). */
  from: string;
  /** Appends: `system`. Overwrite decisions: the writer. */
  to: string;
  /** `conflict_resolution` for every overwrite decision (no overwrite is silent), `shared_context_write` for appends. */
  action: SharedContextAction;
  /** `shared_context:<key>`. */
  resource: string;
  /** `ok` applied, `refused` rejected, `pending` waiting for a person. */
  status: "ok" | "refused" | "pending";
  /** The key's version after the decision (the timeline record's `version`). */
  version: number;
  /** Overwrites: the whole resolution (both values, rule, winner, loser) and the writer; appends: the added text and the new version. */
  payload: Record<string, unknown>;
}

const STATUS = { applied: "ok", rejected: "refused", pending: "pending" } as const;

/** The `system` party (kept literal here so this module stays free of the protocol's imports). */
const SYSTEM = "system";

/**
 * The timeline events of `decision`, made by the party `writerParty` (`agent:2`, `leader`, `user`).
 * One event per decision: appends give `shared_context_write`, everything else `conflict_resolution`.
 */
export function timelineEventsOf(decision: Decision, writerParty: string): SharedContextTimelineEvent[] {
  const resource = `shared_context:${decision.key}`;
  const status = STATUS[decision.outcome];
  if (decision.mode === "append") {
    return [
      {
        type: "event",
        from: writerParty,
        to: SYSTEM,
        action: "shared_context_write",
        resource,
        status,
        version: decision.version,
        payload: {
          key: decision.key,
          mode: "append",
          appended: decision.proposed.value,
          version: decision.version,
          author: decision.proposed.author,
          author_role: decision.proposed.author_role,
        },
      },
    ];
  }
  return [
    {
      type: "event",
      from: SYSTEM,
      to: writerParty,
      action: "conflict_resolution",
      resource,
      status,
      version: decision.version,
      payload: { ...decision.resolution, writer: writerParty },
    },
  ];
}
