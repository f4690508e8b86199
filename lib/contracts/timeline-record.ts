/**
 * One record of the audit timeline `conversations/<id>/timeline.jsonl` (SPEC §3, seed 003 §4.4):
 * the seed's fields plus the whole envelope, so any moment of a run can be rebuilt from the file.
 * Pure: the browser parses timeline API answers with the same schema.
 */
import { z } from "zod";
import { EnvelopeSchema, isCheckedEnvelope, PartySchema, TraceIdSchema, TurnIdSchema, type Envelope } from "./envelope";

/** Record statuses this product writes. Readers accept any short string (the governance layer adds more). */
export const TIMELINE_STATUSES = ["ok", "queued", "delivered", "failed", "refused", "interrupted", "capped"] as const;

/** A timeline record's fields besides its envelope. */
const RECORD_FIELDS = {
  turn_id: TurnIdSchema,
  parent_turn_id: TurnIdSchema.nullable(),
  from_agent: PartySchema,
  to_agent: PartySchema,
  /** What happened: `user_message`, `create_sub_agent`, `report`, `conflict_resolution`, … */
  action: z.string().min(1).max(100),
  /** What it touched (`agent:2`, `shared_context:plan`, `file:src/app.ts`), or null. */
  resource: z.string().max(1000).nullable(),
  /** See {@link TIMELINE_STATUSES}. */
  status: z.string().min(1).max(50),
  /** The touched resource's version after the action (shared-context arbitration); 0 when unversioned. */
  version: z.number().int().nonnegative(),
  /** When the action was recorded, UTC ISO. */
  timestamp: z.iso.datetime(),
  trace_id: TraceIdSchema,
};

function agreeWithEnvelope(record: { trace_id: string; turn_id: string; parent_turn_id: string | null; envelope: Envelope }, ctx: z.RefinementCtx): void {
  for (const key of ["trace_id", "turn_id", "parent_turn_id"] as const) {
    if (record[key] !== record.envelope[key]) {
      ctx.addIssue({ code: "custom", path: [key], message: `must equal envelope.${key}` });
    }
  }
}

/**
 * A timeline record. `trace_id`, `turn_id` and `parent_turn_id` repeat the envelope's (they are
 * what the timeline view filters and links by) and must agree with it.
 */
export const TimelineRecordSchema = z.looseObject({ ...RECORD_FIELDS, envelope: EnvelopeSchema }).superRefine(agreeWithEnvelope);

/** {@link TimelineRecordSchema} for an envelope checked as it was built (see `isCheckedEnvelope`): the same rules, the envelope not checked twice. */
const RecordOfCheckedEnvelopeSchema = z
  .looseObject({ ...RECORD_FIELDS, envelope: z.custom<Envelope>((value) => isCheckedEnvelope(value), "must be a checked envelope") })
  .superRefine(agreeWithEnvelope);

/** A timeline record. */
export type TimelineRecord = z.infer<typeof TimelineRecordSchema>;

/** What {@link timelineRecord} needs besides the envelope. */
export interface TimelineRecordInit {
  action: string;
  /** Default null. */
  resource?: string | null;
  /** Default "ok". */
  status?: string;
  /** Default 0. */
  version?: number;
  /** Default now. */
  now?: Date;
}

/** The records {@link timelineRecord} made (checked then; records are never changed in place). */
const checkedRecords = new WeakSet<TimelineRecord>();

/** Whether `record` is one {@link timelineRecord} made, so checked against the schema already. */
export function isCheckedRecord(record: TimelineRecord): boolean {
  return checkedRecords.has(record);
}

/** The timeline record of `envelope`, its ids and parties copied so they can never disagree. */
export function timelineRecord(envelope: Envelope, init: TimelineRecordInit): TimelineRecord {
  const schema = isCheckedEnvelope(envelope) ? RecordOfCheckedEnvelopeSchema : TimelineRecordSchema;
  const record = schema.parse({
    turn_id: envelope.turn_id,
    parent_turn_id: envelope.parent_turn_id,
    from_agent: envelope.from,
    to_agent: envelope.to,
    action: init.action,
    resource: init.resource ?? null,
    status: init.status ?? "ok",
    version: init.version ?? 0,
    timestamp: (init.now ?? new Date()).toISOString(),
    trace_id: envelope.trace_id,
    envelope,
  });
  checkedRecords.add(record);
  return record;
}
