/**
 * The shared context of one conversation (seed 003 §4.3): `conversations/<id>/shared_context.json`
 * and the bodies of its API. Pure: the browser parses API answers with the same schemas.
 *
 * Each key has its own version (a value's identity): 0 means "no value yet", the first write makes
 * it 1, and every change of the value adds 1. Writers say which version they based an overwrite
 * on (`expected_version`), which is how a stale write is told from a fresh one.
 */
import { z } from "zod";

/** Who may write, ranked by {@link AUTHORITY}: the leader (coordinator) and a person outrank agents. */
export const AuthorRoleSchema = z.enum(["leader", "agent", "person"]);
/** Who wrote a value. */
export type AuthorRole = z.infer<typeof AuthorRoleSchema>;

/**
 * Authority of each author role for rule 1 of the arbitration. A person ranks like the leader:
 * both coordinate, and a person must be able to correct the leader's shared notes.
 */
export const AUTHORITY: Readonly<Record<AuthorRole, number>> = { leader: 2, person: 2, agent: 1 };

/** Longest key. Keys also name timeline resources (`shared_context:<key>`). */
export const MAX_KEY_LENGTH = 200;
/** Longest value one write may carry. */
export const MAX_WRITE_LENGTH = 20_000;
/** Longest value an entry may grow to by appends; beyond it the append is refused, not truncated. */
export const MAX_VALUE_LENGTH = 100_000;
/** Most keys one conversation may hold, so a looping agent cannot grow the file without bound. */
export const MAX_ENTRIES = 500;
/** Resolutions kept in the file's `history` (the timeline keeps all of them). */
export const MAX_HISTORY = 200;
/** Writes that may wait for a person at once, so a looping writer cannot grow the file without bound. */
export const MAX_PENDING = 100;

/** A key: 1–200 characters after trimming, no control characters, not `__proto__`. */
export const SharedKeySchema = z
  .string()
  .trim()
  .min(1, "a key is required")
  .max(MAX_KEY_LENGTH, `at most ${MAX_KEY_LENGTH} characters`)
  .regex(/^[^\u0000-\u001f\u007f]+$/, "must not contain control characters")
  // Reading the file back drops a `__proto__` key (the schema must: assigning it would replace
  // the object's prototype), so such a value would be lost; refused instead.
  .refine((key) => key !== "__proto__", "__proto__ is reserved; choose another key");

/** How a write combines with the current value. */
export const WriteModeSchema = z.enum(["append", "overwrite"]);
/** How a write combines with the current value. */
export type WriteMode = z.infer<typeof WriteModeSchema>;

/** A version number: 0 = no value yet. */
export const VersionSchema = z.number().int().nonnegative();

/** One key's current value. */
export const EntrySchema = z.looseObject({
  key: SharedKeySchema,
  value: z.string().max(MAX_VALUE_LENGTH),
  version: z.number().int().positive(),
  /** Display name of the writer (`Team Leader`, `研究员-1`, `person`). */
  author: z.string().min(1).max(200),
  author_role: AuthorRoleSchema,
  /** When the value was written (applied), UTC ISO with milliseconds. */
  updated_at: z.iso.datetime(),
  /**
   * When the write that produced the value was requested: stamped by the server as the request
   * reached it, before it queued behind other writes. The later-wins rule compares request times,
   * not the order writes were applied in. Absent in files written before it existed: `updated_at`
   * stands in.
   */
  requested_at: z.iso.datetime().optional(),
  /**
   * Set when a person decided a conflict over this key: they took this value (`take_proposed`)
   * or kept it (`keep_current`). The value then carries a person's authority in rule 1.
   */
  decided_by: z.string().min(1).max(200).optional(),
  /** When that person's decision was requested; it is the value's time for the later-wins rule. */
  decided_at: z.iso.datetime().optional(),
  /**
   * The rank the value holds in rule 1: the highest of its writers since the last overwrite and of
   * a person who decided it. An append adds to a value without lowering it, so an agent appending a
   * note to the leader's value does not hand the value to agents. Absent in older files:
   * `author_role` (a person when `decided_by` is set).
   */
  authority: AuthorRoleSchema.optional(),
});
/** One key's current value. */
export type Entry = z.infer<typeof EntrySchema>;

/** What a write proposed: the value, its writer and the version it was based on. */
export const ProposalSchema = z.looseObject({
  value: z.string().max(MAX_WRITE_LENGTH),
  mode: WriteModeSchema,
  author: z.string().min(1).max(200),
  author_role: AuthorRoleSchema,
  /** The version the writer read before writing (absent for appends, which never conflict). */
  expected_version: VersionSchema.nullable(),
  /** When the write was arbitrated (applied, refused or queued for a person), UTC ISO. */
  at: z.iso.datetime(),
  /** When the write was requested (see {@link EntrySchema}'s `requested_at`); absent in older files: `at` stands in. */
  requested_at: z.iso.datetime().optional(),
});
/** What a write proposed. */
export type Proposal = z.infer<typeof ProposalSchema>;

/** `conflict_<hex>`. */
export const ConflictIdSchema = z.string().regex(/^conflict_[A-Za-z0-9_-]{1,64}$/, "must look like conflict_<hex>");

/** A stale overwrite that no rule could settle: it waits for a person (rule 3). */
export const ConflictSchema = z.looseObject({
  conflict_id: ConflictIdSchema,
  key: SharedKeySchema,
  /** The value the proposal would replace, as it was when the conflict arose (null: none). */
  current: EntrySchema.nullable(),
  proposed: ProposalSchema,
  created_at: z.iso.datetime(),
});
/** A write waiting for a person. */
export type Conflict = z.infer<typeof ConflictSchema>;

/** Which rule decided an overwrite. */
export const ResolutionRuleSchema = z.enum([
  /** `expected_version` was the current version: a plain overwrite (still recorded, never silent). */
  "fresh",
  /** Rule 1: the coordinator outranks an agent — the leader, a person, or a value a person decided. */
  "leader_wins",
  /** Rule 2: same authority, the later request wins (request times, not the order of arrival). */
  "later_wins",
  /** Rule 3: same authority and the two requests within the conflict window — a person must decide. */
  "awaiting_person",
  /** A person decided a pending conflict. */
  "person_decision",
  /** `expected_version` is newer than any version the key has had: the writer is confused, refused. */
  "unknown_version",
]);
/** Which rule decided an overwrite. */
export type ResolutionRule = z.infer<typeof ResolutionRuleSchema>;

/** One side of a resolution. */
export const SideSchema = z.looseObject({
  side: z.enum(["current", "proposed"]),
  author: z.string().min(1).max(200).nullable(),
  author_role: AuthorRoleSchema.nullable(),
  /** The current side's value was decided by this person (it then ranks as a person's). */
  decided_by: z.string().nullable().optional(),
  /** The rank the current side was judged with, when it is not its author's (see the entry's `authority`). */
  authority: AuthorRoleSchema.optional(),
});
/** One side of a resolution. */
export type Side = z.infer<typeof SideSchema>;

/**
 * The `conflict_resolution` record of one overwrite decision: written to the timeline (and the
 * file's history) for every overwrite, so no overwrite is ever silent. Both values are kept whole.
 */
export const ResolutionSchema = z.looseObject({
  key: SharedKeySchema,
  rule: ResolutionRuleSchema,
  outcome: z.enum(["applied", "rejected", "pending"]),
  /** null while pending. */
  winner: SideSchema.nullable(),
  loser: SideSchema.nullable(),
  /** The value before the decision (null: the key had none). */
  current_value: z.string().nullable(),
  current_version: VersionSchema,
  proposed_value: z.string(),
  expected_version: VersionSchema.nullable(),
  /** The key's version after the decision. */
  version: VersionSchema,
  conflict_id: ConflictIdSchema.nullable(),
  decided_by: z.string().nullable(),
  at: z.iso.datetime(),
  /** Request time of the current value (the time the later-wins rule used; null: no value). */
  current_requested_at: z.iso.datetime().nullable().optional(),
  /** Request time of the proposed write. */
  proposed_requested_at: z.iso.datetime().optional(),
  /** The conflict window in force (`ASTRION_CONFLICT_WINDOW_MS`). */
  window_ms: z.number().int().nonnegative().optional(),
});
/** The record of one overwrite decision. */
export type Resolution = z.infer<typeof ResolutionSchema>;

/** The file `conversations/<id>/shared_context.json`. */
export const SharedContextFileSchema = z.looseObject({
  /** Format version of the file (not of any entry). */
  version: z.literal(1),
  entries: z.record(z.string(), EntrySchema),
  pending: z.array(ConflictSchema),
  /** The latest {@link MAX_HISTORY} resolutions, newest last. */
  history: z.array(ResolutionSchema).optional(),
});
/** The shared context file. */
export type SharedContextFile = z.infer<typeof SharedContextFileSchema>;

/** The file of a conversation that has no shared context yet. */
export function emptySharedContext(): SharedContextFile {
  return { version: 1, entries: {}, pending: [], history: [] };
}

/**
 * A write request, as the tool and the PUT body take it. An overwrite must say which version it
 * read (0 for a key that has no value yet), so it can never overwrite blindly; an append may omit it.
 */
export const WriteBodySchema = z
  .object({
    key: SharedKeySchema,
    value: z.string().max(MAX_WRITE_LENGTH, `at most ${MAX_WRITE_LENGTH} characters`),
    mode: WriteModeSchema,
    expected_version: VersionSchema.optional(),
  })
  .superRefine((body, ctx) => {
    if (body.mode === "overwrite" && body.expected_version === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["expected_version"],
        message: "an overwrite needs the version you read (read the shared context first; 0 for a new key)",
      });
    }
  });
/** A write request. */
export type WriteBody = z.infer<typeof WriteBodySchema>;

/** How a person decides a pending conflict. */
export const DecisionChoiceSchema = z.enum(["keep_current", "take_proposed"]);
/** How a person decides a pending conflict. */
export type DecisionChoice = z.infer<typeof DecisionChoiceSchema>;

/** `POST /api/conversations/[id]/shared-context/decisions`. */
export const DecisionBodySchema = z.object({
  conflict_id: ConflictIdSchema,
  choice: DecisionChoiceSchema,
});
/** `POST …/shared-context/decisions` body. */
export type DecisionBody = z.infer<typeof DecisionBodySchema>;

/**
 * What happened to one write or decision. `before` is the key's entry before it, `entry` after;
 * `resolution` is set for every overwrite and every person's decision (null for appends).
 */
export const DecisionSchema = z.object({
  key: z.string(),
  mode: WriteModeSchema,
  outcome: z.enum(["applied", "rejected", "pending"]),
  rule: z.union([ResolutionRuleSchema, z.literal("append")]),
  /** The key's version after the decision. */
  version: VersionSchema,
  before: EntrySchema.nullable(),
  entry: EntrySchema.nullable(),
  proposed: ProposalSchema,
  /** Set when the write now waits for a person. */
  conflict: ConflictSchema.nullable(),
  resolution: ResolutionSchema.nullable(),
});
/** What happened to one write or decision. */
export type Decision = z.infer<typeof DecisionSchema>;

/** `GET /api/conversations/[id]/shared-context` answer. */
export const SharedContextResponseSchema = z.object({ shared_context: SharedContextFileSchema });
/** A conversation's shared context as the API returns it. */
export type SharedContextResponse = z.infer<typeof SharedContextResponseSchema>;

/** What `PUT …/shared-context` (a person's write) and `POST …/shared-context/decisions` answer. */
export const DecisionResponseSchema = z.object({ decision: DecisionSchema });
