/**
 * Long-term memory's formats, the one source of the file `memory/entries.json`, of what the
 * distiller hands the service, and of the HTTP bodies. Shared by server and client (pure zod).
 */
import { z } from "zod";

/** What an entry records: a project fact, a person's preference, or an open issue. */
export const MemoryKindSchema = z.enum(["fact", "preference", "open_issue"]);
export type MemoryKind = z.infer<typeof MemoryKindSchema>;

/** Who may read an entry (seed 003 §5.4); enforced by {@link canRead} in ./access. */
export const MemoryLevelSchema = z.enum(["public", "project", "restricted"]);
export type MemoryLevel = z.infer<typeof MemoryLevelSchema>;

/** A role id named in a restricted entry's grant (`leader` for the Team Leader). */
export const GrantRoleSchema = z.string().trim().min(1).max(100);

/** Longest statement kept (characters); entries are conclusions, not transcripts. */
export const MAX_STATEMENT_CHARS = 2000;
/** Longest subject kept (characters). */
export const MAX_SUBJECT_CHARS = 200;

/** Where an entry came from: a conversation and the messages that support it; null when a person added it. */
export const MemorySourceSchema = z.object({
  conversation_id: z.string().min(1).max(200).nullable(),
  message_ids: z.array(z.string().min(1).max(200)).max(100),
});
export type MemorySource = z.infer<typeof MemorySourceSchema>;

/** Why an entry changed: a duplicate merged, a contradiction replaced it, a person edited or re-levelled it. */
export const MemoryChangeReasonSchema = z.enum(["duplicate", "contradiction", "edit", "relevel"]);
export type MemoryChangeReason = z.infer<typeof MemoryChangeReasonSchema>;

/** One earlier version of an entry. */
export const MemoryHistoryItemSchema = z.object({
  at: z.string(),
  statement: z.string(),
  subject: z.string(),
  level: MemoryLevelSchema,
  confidence: z.number().min(0).max(1),
  source: MemorySourceSchema,
  reason: MemoryChangeReasonSchema,
});
export type MemoryHistoryItem = z.infer<typeof MemoryHistoryItemSchema>;

/** A masked span in the stored text: which field, what kind, where the marker stands. Never the content. */
export const MemoryRedactionSchema = z.object({
  field: z.enum(["statement", "subject"]),
  kind: z.string().min(1).max(40),
  start: z.number().int().min(0),
  end: z.number().int().min(0),
});
export type MemoryRedaction = z.infer<typeof MemoryRedactionSchema>;

/** An absolute project folder, or null for memory not tied to one. */
export const ProjectPathSchema = z.string().min(1).max(4096).nullable();

/** An entry's id (`mem_` + random). */
export const MemoryIdSchema = z.string().regex(/^mem_[A-Za-z0-9_-]{4,64}$/, "an id like mem_…");

/** One entry of long-term memory. */
export const MemoryEntrySchema = z.object({
  id: MemoryIdSchema,
  kind: MemoryKindSchema,
  statement: z.string().min(1).max(MAX_STATEMENT_CHARS * 4),
  subject: z.string().max(MAX_SUBJECT_CHARS * 4),
  project_path: ProjectPathSchema,
  level: MemoryLevelSchema,
  grant: z.array(GrantRoleSchema).max(50),
  source: MemorySourceSchema,
  created_at: z.string(),
  updated_at: z.string(),
  confidence: z.number().min(0).max(1),
  history: z.array(MemoryHistoryItemSchema),
  redactions: z.array(MemoryRedactionSchema),
  author: z.enum(["distiller", "person"]),
});
export type MemoryEntry = z.infer<typeof MemoryEntrySchema>;

/** `memory/entries.json`. */
export const MemoryEntriesFileSchema = z.object({
  version: z.literal(1),
  entries: z.array(MemoryEntrySchema),
});
export type MemoryEntriesFile = z.infer<typeof MemoryEntriesFileSchema>;

/** What the distiller (or a person) proposes; the service redacts it, then adds or merges it. */
export const MemoryCandidateSchema = z.object({
  kind: MemoryKindSchema,
  statement: z.string().trim().min(1).max(MAX_STATEMENT_CHARS),
  subject: z.string().trim().max(MAX_SUBJECT_CHARS),
  project_path: ProjectPathSchema,
  level: MemoryLevelSchema,
  grant: z.array(GrantRoleSchema).max(50),
  source: MemorySourceSchema,
  confidence: z.number().min(0).max(1),
});
export type MemoryCandidate = z.infer<typeof MemoryCandidateSchema>;

/** Who is reading: the conversation's project and the reading role (`leader` for the Team Leader). */
export const MemoryReaderSchema = z.object({
  project_path: z.string().min(1).nullable(),
  role_id: z.string().min(1).nullable(),
});
export type MemoryReader = z.infer<typeof MemoryReaderSchema>;

/** A project folder in an API body: absolute (POSIX `/…` or Windows `C:\…`), or null. */
export const AbsoluteProjectPathSchema = z
  .string()
  .trim()
  .min(1)
  .max(4096)
  .regex(/^(?:\/|[A-Za-z]:[\\/])/, "an absolute folder path")
  .nullable();

/** `POST /api/memory/entries`: an entry added by hand. */
export const CreateMemoryBodySchema = z.strictObject({
  kind: MemoryKindSchema,
  statement: z.string().trim().min(1).max(MAX_STATEMENT_CHARS),
  subject: z.string().trim().max(MAX_SUBJECT_CHARS).default(""),
  project_path: AbsoluteProjectPathSchema.default(null),
  level: MemoryLevelSchema.default("project"),
  grant: z.array(GrantRoleSchema).max(50).default([]),
  confidence: z.number().min(0).max(1).default(1),
  /** The conversation (and messages) the conclusion comes from, when a person records one from it. */
  source: MemorySourceSchema.optional(),
});
export type CreateMemoryBody = z.infer<typeof CreateMemoryBodySchema>;

/** `PATCH /api/memory/entries/{id}`: edit the text or kind, re-level (with its grant). At least one field. */
export const PatchMemoryBodySchema = z
  .object({
    kind: MemoryKindSchema.optional(),
    statement: z.string().trim().min(1).max(MAX_STATEMENT_CHARS).optional(),
    subject: z.string().trim().max(MAX_SUBJECT_CHARS).optional(),
    level: MemoryLevelSchema.optional(),
    grant: z.array(GrantRoleSchema).max(50).optional(),
    project_path: AbsoluteProjectPathSchema.optional(),
  })
  .strict()
  .refine((b) => Object.values(b).some((v) => v !== undefined), { message: "nothing to change: name at least one field" });
export type PatchMemoryBody = z.infer<typeof PatchMemoryBodySchema>;

/** `GET /api/memory/entries` query: search text, filters and a page. */
export const MemoryListQuerySchema = z.object({
  q: z.string().max(1000).optional(),
  kind: MemoryKindSchema.optional(),
  level: MemoryLevelSchema.optional(),
  /** A project folder, or `none` for entries without one. */
  project: z.string().min(1).max(4096).optional(),
  offset: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
export type MemoryListQuery = z.infer<typeof MemoryListQuerySchema>;

/** What `GET /api/memory/entries` answers; `projects` lists every project folder an entry names (for the filter). */
export const MemoryListAnswerSchema = z.object({
  entries: z.array(MemoryEntrySchema),
  total: z.number().int(),
  offset: z.number().int(),
  limit: z.number().int(),
  projects: z.array(z.string()),
});
export type MemoryListAnswer = z.infer<typeof MemoryListAnswerSchema>;

/** What `POST /api/memory/entries` answers: the entry as stored and whether it was added or merged into an older one. */
export const CreateMemoryAnswerSchema = z.object({ entry: MemoryEntrySchema, action: z.enum(["added", "duplicate", "contradiction"]) });
export type CreateMemoryAnswer = z.infer<typeof CreateMemoryAnswerSchema>;

/** What `GET|PATCH /api/memory/entries/{id}` answer: the entry as stored. */
export const MemoryEntryAnswerSchema = z.object({ entry: MemoryEntrySchema });

/** `PUT /api/memory/redaction`: the configured internal account-id patterns (stored in models.json). */
export const RedactionSettingsBodySchema = z.strictObject({ account_patterns: z.array(z.string().min(3).max(128)).max(64) });
