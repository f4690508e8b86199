/**
 * Formats and limits of conversation export and import: the zip's manifest, the API's query and
 * bodies, the answer of an import. Pure: the browser imports the same schemas.
 */
import { z } from "zod";
import { ConversationIdSchema } from "@/lib/contracts/on-disk";

const MiB = 1024 * 1024;

/**
 * Limits of export and import. An export is built in memory from files read once, so it is
 * bounded by {@link EXPORT_LIMITS}; an import body is bounded by the body guard (lib/input-limits)
 * and its contents by {@link IMPORT_LIMITS}, which let any export be imported again.
 */
export const EXPORT_LIMITS = {
  /** Conversations in one bulk export. */
  maxConversations: 50,
  /** Bytes of all exported files together (uncompressed). */
  maxTotalBytes: 256 * MiB,
} as const;

/** Bounds of an imported zip (hostile input). */
export const IMPORT_LIMITS = {
  /** Bytes of the uploaded zip (the request body). */
  maxZipBytes: 64 * MiB,
  /** Entries of the zip, directories included. */
  maxEntries: 10_000,
  /** Bytes of all entries together, uncompressed: the same bound as an export's. */
  maxTotalBytes: EXPORT_LIMITS.maxTotalBytes,
  /** Bytes of one entry, uncompressed. */
  maxEntryBytes: 64 * MiB,
  /** Bytes of one entry name. */
  maxNameBytes: 512,
  /** Conversations in one zip. */
  maxConversations: EXPORT_LIMITS.maxConversations,
} as const;

/** Name of the manifest at the root of every export zip. */
export const MANIFEST_NAME = "astrion-export.json";
/** `format` of the manifest. */
export const EXPORT_FORMAT = "astrion-conversations";
/** `format_version` this version writes and reads. */
export const EXPORT_FORMAT_VERSION = 1;

/** `astrion-export.json`: what the zip holds and who wrote it. */
export const ExportManifestSchema = z.looseObject({
  format: z.literal(EXPORT_FORMAT),
  format_version: z.literal(EXPORT_FORMAT_VERSION),
  app_version: z.string().max(100),
  created_at: z.iso.datetime(),
  conversation_ids: z.array(ConversationIdSchema).min(1).max(IMPORT_LIMITS.maxConversations),
});
/** `astrion-export.json`. */
export type ExportManifest = z.infer<typeof ExportManifestSchema>;

/** `format` of `GET /api/conversations/:id/export`. */
export const ExportFormatSchema = z.enum(["md", "zip"]);
/** An export format. */
export type ExportFormat = z.infer<typeof ExportFormatSchema>;

/** Query of `GET /api/conversations/:id/export`. */
export const ExportQuerySchema = z.object({ format: ExportFormatSchema.default("md") });

/** Body of `POST /api/conversations/export`. */
export const BulkExportBodySchema = z.strictObject({
  ids: z
    .array(ConversationIdSchema)
    .min(1, "name at least one conversation")
    .max(EXPORT_LIMITS.maxConversations, `at most ${EXPORT_LIMITS.maxConversations} conversations`)
    .refine((ids) => new Set(ids).size === ids.length, "each conversation once"),
});

/**
 * What to do with a conversation whose id is taken: nothing (`same_id`, the default: the import
 * is answered 409), import it as a copy under a new id (`new_id`), or replace the existing one
 * (`overwrite`, which also needs `confirm=true`).
 */
export const ImportModeSchema = z.enum(["same_id", "new_id", "overwrite"]);
/** An import mode. */
export type ImportMode = z.infer<typeof ImportModeSchema>;

/** Query of `POST /api/conversations/import` (the body is the zip itself). */
export const ImportQuerySchema = z
  .strictObject({
    mode: ImportModeSchema.default("same_id"),
    confirm: z.enum(["true", "false"]).default("false").transform((v) => v === "true"),
  })
  .refine((q) => q.mode !== "overwrite" || q.confirm, { path: ["confirm"], message: "overwriting needs confirm=true" });

/** One imported conversation. */
export const ImportedConversationSchema = z.object({
  /** The id in the zip. */
  source_id: ConversationIdSchema,
  /** The id it has now. */
  id: ConversationIdSchema,
  title: z.string(),
  /** `created`: under its own id; `copied`: under a new id; `replaced`: over an existing one. */
  outcome: z.enum(["created", "copied", "replaced"]),
});
/** One imported conversation. */
export type ImportedConversation = z.infer<typeof ImportedConversationSchema>;

/** Answer of `POST /api/conversations/import` (201). */
export const ImportResultSchema = z.object({ imported: z.array(ImportedConversationSchema) });
/** Answer of an import. */
export type ImportResult = z.infer<typeof ImportResultSchema>;

/** `details` of the 409 answered when ids are taken and no mode says what to do. */
export const ImportConflictDetailsSchema = z.object({
  taken: z.array(ConversationIdSchema),
  running: z.array(ConversationIdSchema),
  modes: z.array(ImportModeSchema),
});
