/**
 * The in-memory conversation index as `GET /api/health` reports it (`index`): its load at boot,
 * every rebuild of `conversations/index.json`, and its rewrites.
 */
import { z } from "zod";

/** Why the index was rebuilt. */
export const IndexRebuildReasonSchema = z.enum(["missing", "corrupt", "out_of_step", "changed_on_disk"]);
export type IndexRebuildReason = z.infer<typeof IndexRebuildReasonSchema>;

/** One rebuild of `conversations/index.json`, as {@link IndexReportSchema} lists it. */
export const IndexRebuildSchema = z.object({
  /** ISO time of the rebuild. */
  at: z.string(),
  reason: IndexRebuildReasonSchema,
  /** What was found and done, in one sentence. */
  message: z.string(),
  /** Where a broken index.json was moved (relative to the data folder), if it was. */
  moved_to: z.string().optional(),
});
export type IndexRebuild = z.infer<typeof IndexRebuildSchema>;

/** What `ConversationStore.indexReport()` answers: the in-memory index and its rebuilds since boot. */
export const IndexReportSchema = z.object({
  /** Conversations in the index (readable metadata.json). */
  conversations: z.number().int().nonnegative(),
  /** Conversation folders whose metadata.json could not be read at boot (reported in problems). */
  unreadable: z.number().int().nonnegative(),
  /** ISO time the index was loaded from the metadata.json files (null before boot). */
  loaded_at: z.string().nullable(),
  /** How long that load took, in milliseconds. */
  load_ms: z.number().nullable(),
  rebuilds: z.array(IndexRebuildSchema),
  /** Whole-file rewrites of index.json since boot (the seed's format has no partial update). */
  writes: z.number().int().nonnegative(),
  /** Milliseconds spent on those rewrites (serializing and writing durably), in total. */
  write_ms_total: z.number().nonnegative(),
  /** Metadata changes that left every index.json field as it was (same title, times, agent count): no rewrite. */
  unchanged: z.number().int().nonnegative(),
  /** The latest rewrite: when, its size, and how long serializing and writing it durably took. */
  last_write: z.object({ at: z.string(), bytes: z.number().int().nonnegative(), ms: z.number() }).nullable(),
});
export type IndexReport = z.infer<typeof IndexReportSchema>;
