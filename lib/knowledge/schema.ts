/**
 * The files of the knowledge index (`<data root>/knowledge/<project hash>/`), the tool's
 * arguments and answer, and the HTTP API's bodies: one zod schema each, types inferred. Pure.
 */
import { z } from "zod";

/** Format version of the stored index; another version is rebuilt from the project's files. */
export const KNOWLEDGE_FORMAT = 1;

/** One passage of a file: a Markdown section or a window of lines. */
export const PassageSchema = z
  .object({
    /** First line, 1-based. */
    start: z.number().int().positive(),
    /** Last line, inclusive. */
    end: z.number().int().positive(),
    /** Markdown heading path (`Install > From source`), "" outside any heading or for code. */
    heading: z.string(),
    text: z.string(),
    /** The passage's embedding (base64 of float32s) when an embedding model is configured. */
    vector: z.string().optional(),
  })
  .strict();
export type Passage = z.infer<typeof PassageSchema>;

/** What the manifest keeps per indexed file: enough to tell whether it changed. */
export const ManifestFileSchema = z
  .object({
    size: z.number().int().nonnegative(),
    mtime_ms: z.number().nonnegative(),
    /** Which chunk shard holds its passages. */
    shard: z.number().int().nonnegative(),
    passages: z.number().int().nonnegative(),
    /** True when only its first `max_file_bytes` bytes were read and indexed. */
    truncated: z.boolean(),
    /** A binary file: seen, not indexed. */
    binary: z.boolean().optional(),
  })
  .strict();
export type ManifestFile = z.infer<typeof ManifestFileSchema>;

/** Files seen but not indexed, by reason. */
export const SkippedSchema = z
  .object({
    gitignored: z.number().int().nonnegative(),
    binary: z.number().int().nonnegative(),
    /** Files past `max_files` (the walk stops counting there). */
    over_file_limit: z.number().int().nonnegative(),
    unreadable: z.number().int().nonnegative(),
  })
  .strict();
export type Skipped = z.infer<typeof SkippedSchema>;

/** `manifest.json`. */
export const ManifestSchema = z
  .object({
    format: z.literal(KNOWLEDGE_FORMAT),
    project_path: z.string(),
    created_at: z.string(),
    /** When the last refresh finished (ISO 8601, UTC). */
    updated_at: z.string(),
    /** The embedding key configured when the index was built (null: none); another key rebuilds it. */
    embedding_key: z.string().nullable(),
    /** The embedding model the vectors come from, or null (no vectors). */
    embedding: z.object({ key: z.string(), dims: z.number().int().positive() }).strict().nullable(),
    /** The last embedding failure, if vectors are missing because of it. */
    embedding_error: z.string().nullable(),
    files: z.record(z.string(), ManifestFileSchema),
    skipped: SkippedSchema,
  })
  .strict();
export type Manifest = z.infer<typeof ManifestSchema>;

/** `chunks/<nn>.json`: the passages of the files whose path hashes to shard nn. */
export const ShardSchema = z
  .object({
    format: z.literal(KNOWLEDGE_FORMAT),
    files: z.record(z.string(), z.array(PassageSchema)),
  })
  .strict();
export type Shard = z.infer<typeof ShardSchema>;

/** State of one project's index. */
export const IndexStateSchema = z.enum(["none", "building", "ready", "error"]);
export type IndexState = z.infer<typeof IndexStateSchema>;

/** One project's index as the API and the tool report it. */
export const ProjectIndexStatusSchema = z
  .object({
    project_path: z.string(),
    state: IndexStateSchema,
    /** Files read so far in the current build, or indexed when ready. */
    files_indexed: z.number().int().nonnegative(),
    /** Files to index (known once the walk is done; the files indexed so far while walking). */
    files_total: z.number().int().nonnegative(),
    passages: z.number().int().nonnegative(),
    /** Files only partly indexed (over `max_file_bytes`). */
    truncated_files: z.number().int().nonnegative(),
    skipped: SkippedSchema,
    /** When the index last finished a build or refresh; null before the first. */
    last_update: z.string().nullable(),
    error: z.string().nullable(),
    /** The embedding model key the vectors come from, or null. */
    embedding: z.string().nullable(),
  })
  .strict();
export type ProjectIndexStatus = z.infer<typeof ProjectIndexStatusSchema>;

/** `GET /api/knowledge`. */
export const KnowledgeReportSchema = z
  .object({
    projects: z.array(ProjectIndexStatusSchema),
    limits: z.object({ max_file_bytes: z.number(), max_files: z.number(), wait_ms: z.number() }).strict(),
  })
  .strict();
export type KnowledgeReport = z.infer<typeof KnowledgeReportSchema>;

/** `POST /api/knowledge/rebuild` body. */
export const RebuildBodySchema = z
  .object({ project_path: z.string().trim().min(1).max(4096) })
  .strict();
export type RebuildBody = z.infer<typeof RebuildBodySchema>;

/** Answer of `POST /api/knowledge/rebuild` (202): the project's index, now `building`. */
export const RebuildAnswerSchema = z.object({ project: ProjectIndexStatusSchema });

/** `search_knowledge` arguments. */
export const SearchKnowledgeArgsSchema = z.object({
  query: z.string().trim().min(1).max(1000).describe("What you need to find, in words: a field, a function, a setting, a value."),
  paths: z
    .array(z.string().min(1).max(300))
    .max(20)
    .optional()
    .describe("Only these folders or globs inside the project (e.g. \"docs\", \"src/**/*.ts\"). Default: the whole project."),
});
export type SearchKnowledgeArgs = z.infer<typeof SearchKnowledgeArgsSchema>;

/** One passage found. */
export const KnowledgeHitSchema = z
  .object({
    /** `file:start-end`, to cite or to pass to read_file. */
    location: z.string(),
    file: z.string(),
    lines: z.string(),
    heading: z.string(),
    text: z.string(),
  })
  .strict();
export type KnowledgeHit = z.infer<typeof KnowledgeHitSchema>;

/** What `search_knowledge` answers. */
export const KnowledgeAnswerSchema = z
  .object({
    passages: z.array(KnowledgeHitSchema),
    /** How the passages were ordered. */
    ranking: z.enum(["bm25", "bm25+vectors"]),
    reranked: z.boolean(),
    index: z.object({ state: IndexStateSchema, files_indexed: z.number(), files_total: z.number() }).strict(),
    truncated: z.boolean(),
    omitted: z.number().int().positive().optional(),
    note: z.string().optional(),
  })
  .strict();
export type KnowledgeAnswer = z.infer<typeof KnowledgeAnswerSchema>;
