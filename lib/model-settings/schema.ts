/**
 * The HTTP shapes of Settings → Models (`/api/models/…`): an entry as the form edits it, how its API
 * key changes, the editor's view of models.json (with its etag), the local servers found on
 * 127.0.0.1 and a server's model list. Built from models.json's own schema (lib/models/schema.ts),
 * so a field is described once; shared by server and browser; pure. (The shapes that do not
 * depend on models.json's schema, such as a key's public status, are in lib/contracts/http.ts.)
 */
import { z } from "zod";
import { ModelKeySchema, PublicKeySourceSchema } from "@/lib/contracts/http";
import { ModelEntrySchema, ProviderSchema } from "@/lib/models/schema";

const entry = ModelEntrySchema.shape;

/** An http(s) URL without user info: a key goes in the API key field, never in the URL. */
export const BaseUrlSchema = z
  .string()
  .trim()
  .max(2000)
  .refine((v) => {
    try {
      const u = new URL(v);
      return (u.protocol === "http:" || u.protocol === "https:") && u.username === "" && u.password === "";
    } catch {
      return false;
    }
  }, "an http:// or https:// URL without a user name or password, e.g. http://127.0.0.1:11434/v1");

/** The name of an environment variable that holds a key. */
const EnvNameSchema = z.string().trim().regex(/^[A-Z_][A-Z0-9_]{0,99}$/, "an environment variable name in capitals, e.g. OPENAI_API_KEY");

/** A price per million tokens, in US dollars. */
const PriceSchema = z.number().nonnegative("a price cannot be negative").max(10_000).optional();

/** The fields of a models.json entry the Settings form edits (every other key of the entry is kept). */
export const ModelEntryFieldsSchema = z.strictObject({
  label: z.string().trim().max(200, "at most 200 characters").optional(),
  provider: ProviderSchema,
  base_url: BaseUrlSchema.optional(),
  model: z.string().trim().min(1, "a model name is required").max(300, "at most 300 characters"),
  thinking_style: entry.thinking_style.unwrap(),
  max_concurrency: z.number().int("a whole number").min(1, "at least 1").max(256, "at most 256"),
  tier: entry.tier,
  fallback: ModelKeySchema.optional(),
  timeouts: z
    .strictObject({
      first_response_ms: z.number().int("a whole number of milliseconds").min(100, "at least 100 ms").max(600_000, "at most 600,000 ms").optional(),
      idle_ms: z.number().int("a whole number of milliseconds").min(100, "at least 100 ms").max(3_600_000, "at most 3,600,000 ms").optional(),
    })
    .optional(),
  prices: z.strictObject({ input: PriceSchema, cached_input: PriceSchema, output: PriceSchema }).optional(),
});
export type ModelEntryFields = z.infer<typeof ModelEntryFieldsSchema>;

/**
 * How a save changes the entry's API key: `keep` it as it is, `none` (a local server), `env` (read
 * from an environment variable), or `stored` (the key typed in the form, kept in the data folder's
 * key store and never sent back).
 */
const KeepKey = z.object({ mode: z.literal("keep") });
const NoKey = z.object({ mode: z.literal("none") });
const EnvKey = z.object({ mode: z.literal("env"), env: EnvNameSchema });
const TypedKey = z.object({ mode: z.literal("stored"), value: z.string().trim().min(1, "type the key").max(4096, "at most 4096 characters") });
export const ApiKeyChangeSchema = z.discriminatedUnion("mode", [KeepKey, NoKey, EnvKey, TypedKey]);
export type ApiKeyChange = z.infer<typeof ApiKeyChangeSchema>;

/** The etag of models.json the form was read with (a stale one is a 409: reload). */
const EtagSchema = z.string().regex(/^[0-9a-f]{16}$/, "an etag").optional();

/** `POST /api/models/entries`: a new entry. */
export const CreateModelEntryBodySchema = z.strictObject({
  key: ModelKeySchema,
  entry: ModelEntryFieldsSchema,
  api_key: z.discriminatedUnion("mode", [NoKey, EnvKey, TypedKey]).default({ mode: "none" }),
  etag: EtagSchema,
});
export type CreateModelEntryBody = z.input<typeof CreateModelEntryBodySchema>;

/** `PUT /api/models/entries/{key}`: the entry's new fields. */
export const UpdateModelEntryBodySchema = z.strictObject({
  entry: ModelEntryFieldsSchema,
  api_key: ApiKeyChangeSchema.default({ mode: "keep" }),
  etag: EtagSchema,
});
export type UpdateModelEntryBody = z.input<typeof UpdateModelEntryBodySchema>;

/** `DELETE /api/models/entries/{key}` (body optional). */
export const DeleteModelEntryBodySchema = z.strictObject({ etag: EtagSchema });

/** `PUT /api/models/default`. */
export const SetDefaultModelBodySchema = z.strictObject({ key: ModelKeySchema, etag: EtagSchema });

/** An entry as the editor shows it: the form's fields (user info of a URL removed), never a key. */
const ModelEntryViewSchema = z.object({
  label: z.string().optional(),
  provider: ProviderSchema,
  base_url: z.string().optional(),
  model: z.string(),
  thinking_style: entry.thinking_style.unwrap(),
  max_concurrency: z.number(),
  tier: entry.tier,
  fallback: z.string().optional(),
  timeouts: z.object({ first_response_ms: z.number().optional(), idle_ms: z.number().optional() }).optional(),
  prices: z.object({ input: z.number().optional(), cached_input: z.number().optional(), output: z.number().optional() }).optional(),
});
export type ModelEntryView = z.infer<typeof ModelEntryViewSchema>;

/** What else in models.json names an entry (so it cannot be removed): the default, a fallback, an alias or a side job. */
const ReferenceSchema = z.object({ kind: z.enum(["default", "fallback", "alias", "setting"]), name: z.string() });
export type ModelReference = z.infer<typeof ReferenceSchema>;

/** `GET /api/models/entries` and every change's answer: the editor's view of models.json. */
export const ModelSettingsSchema = z.object({
  file: z.literal("models.json"),
  /** Content hash of models.json as read; send it back with a change. */
  etag: z.string(),
  /** What is wrong with models.json when it does not load (nothing can be changed until it is fixed). */
  error: z.string().nullable(),
  /** The file's `default`. */
  default: z.string(),
  /** The default in effect: the environment (OPENAI_BASE_URL, ASTRION_MODEL) may override the file's. */
  effective_default: z.string(),
  entries: z.array(z.object({ key: z.string(), entry: ModelEntryViewSchema, api_key: PublicKeySourceSchema, referenced_by: z.array(ReferenceSchema) })),
});
export type ModelSettings = z.infer<typeof ModelSettingsSchema>;

/** A model server found on 127.0.0.1, with the models it lists. */
const FoundServerSchema = z.object({
  provider: ProviderSchema,
  base_url: z.string(),
  port: z.number().int(),
  models: z.array(z.string()),
});
export type FoundServer = z.infer<typeof FoundServerSchema>;

/** `GET` / `POST /api/models/discovery`: the last look for local servers. */
export const DiscoveryReportSchema = z.object({
  /** UTC ISO time of the last finished look; null while the first one runs. */
  scanned_at: z.string().nullable(),
  /** The ports looked at, on 127.0.0.1 only. */
  ports: z.array(z.number().int()),
  servers: z.array(FoundServerSchema),
});
export type DiscoveryReport = z.infer<typeof DiscoveryReportSchema>;

/**
 * `POST /api/models/upstream`: list the models a server offers at `base_url` + `/models`. The key
 * is the typed one, the variable named, or the one stored for entry `key`.
 */
export const UpstreamModelsBodySchema = z.strictObject({
  base_url: BaseUrlSchema,
  key: ModelKeySchema.optional(),
  api_key: ApiKeyChangeSchema.optional(),
});

/**
 * Why a server's model list is not there, for the form to say in the person's language: no answer
 * within `seconds`, not reachable, the key refused (`status`), another HTTP status (with the start
 * of its answer, secrets masked), an answer over the size limit, or one that is not a model list.
 */
const UpstreamErrorSchema = z.discriminatedUnion("code", [
  z.object({ code: z.literal("timeout"), seconds: z.number() }),
  z.object({ code: z.literal("unreachable") }),
  z.object({ code: z.literal("unauthorized"), status: z.number().int() }),
  z.object({ code: z.literal("http"), status: z.number().int(), detail: z.string() }),
  z.object({ code: z.literal("too_large") }),
  z.object({ code: z.literal("not_a_list") }),
]);
export type UpstreamError = z.infer<typeof UpstreamErrorSchema>;

/** The answer: the model names, or why there are none (the server did not answer, refused…). */
export const UpstreamModelsSchema = z.object({ models: z.array(z.string()), error: UpstreamErrorSchema.nullable() });
export type UpstreamModels = z.infer<typeof UpstreamModelsSchema>;
