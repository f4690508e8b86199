/** Schema of `models.json`, the model registry (SPEC §4). Shared by server and client. */
import { z } from "zod";

/** The built-in model that needs no network. */
export const OFFLINE_MODEL_KEY = "offline";

/**
 * The OpenAI-compatible servers whose documented quirks the request builder and stream reader
 * follow (lib/models/providers). `generic` is plain OpenAI-compatible behaviour.
 */
export const PROVIDER_PROFILES = ["openai", "vllm", "ollama", "deepseek", "dashscope", "lmstudio", "llamacpp", "generic"] as const;
export type ProviderProfile = (typeof PROVIDER_PROFILES)[number];

/**
 * An entry's `provider`: a profile, the built-in `offline` model, or `openai-compatible` (the
 * name before profiles existed: the profile is then guessed, as for an entry that names none).
 */
export const ProviderSchema = z.enum([...PROVIDER_PROFILES, "openai-compatible", "offline"]);

/** Prices in US dollars per million tokens (all optional; without them only tokens are shown). */
const PricesSchema = z.looseObject({
  input: z.number().nonnegative().optional(),
  cached_input: z.number().nonnegative().optional(),
  output: z.number().nonnegative().optional(),
});
export type ModelPrices = z.infer<typeof PricesSchema>;

/** What a stored key's id looks like: `key_` and 12 to 40 lowercase letters or digits. */
export const API_KEY_REF_PATTERN = /^key_[a-z0-9]{12,40}$/;

/** One endpoint the product can call. */
export const ModelEntrySchema = z.looseObject({
  label: z.string().optional(),
  provider: ProviderSchema.default("openai-compatible"),
  /** OpenAI-compatible base URL, e.g. `https://dashscope.aliyuncs.com/compatible-mode/v1`. */
  base_url: z.url().optional(),
  /** Name of the environment variable that holds the API key (never the key itself). */
  api_key_env: z.string().regex(/^[A-Z_][A-Z0-9_]*$/, "an environment variable name").optional(),
  /**
   * Id of a key typed in Settings and kept in the data folder's key store (lib/models/key-store.ts,
   * `model-keys.json`, mode 0600), never in this file. Wins over `api_key_env` when both are set.
   */
  api_key_ref: z.string().regex(API_KEY_REF_PATTERN, "a stored key's id").optional(),
  /** The provider's model name, e.g. `qwen3-max`. */
  model: z.string().min(1),
  /** How thinking is switched on: Qwen's `enable_thinking`, OpenAI's `reasoning_effort`, or not at all. */
  thinking_style: z.enum(["none", "enable_thinking", "reasoning_effort"]).default("none"),
  max_concurrency: z.number().int().min(1).max(256).default(4),
  /**
   * Deadline tier of the first response (seed 003 §3.4): `fast` 2 s (local/small models), `normal`
   * 5 s, `heavy` 15 s. Absent means `normal` (`offline` entries: `fast`); `timeouts.first_response_ms`
   * overrides it. Optional rather than defaulted so entries written in code need not name it.
   */
  tier: z.enum(["fast", "normal", "heavy"]).optional(),
  /** Key of the entry to use when this one keeps failing. */
  fallback: z.string().optional(),
  timeouts: z
    .looseObject({
      first_response_ms: z.number().int().positive().optional(),
      idle_ms: z.number().int().positive().optional(),
    })
    .optional(),
  /** Prices per million input, cached-input and output tokens (issue 29's cost per agent). */
  prices: PricesSchema.optional(),
});
export type ModelEntry = z.infer<typeof ModelEntrySchema>;

/** `models.json`. */
export const ModelsFileSchema = z.looseObject({
  default: z.string(),
  models: z.record(z.string(), ModelEntrySchema),
  /**
   * Names a role file may use for a model (`sonnet`, `inherit`…) → a model key, `$default` or
   * `$conversation` (lib/models/aliases.ts).
   */
  aliases: z.record(z.string().min(1).max(100), z.string().min(1).max(200)).optional(),
});
export type ModelsFile = z.infer<typeof ModelsFileSchema>;

/**
 * Top-level keys of `models.json` that name the model a side job runs on: `classifier` (intent
 * routing), `memory` (the memory distiller), `embedding` (vectors for memory and knowledge search),
 * `reranker` (knowledge passages' relevance).
 */
export type AuxiliaryModelRole = "classifier" | "memory" | "embedding" | "reranker";

/**
 * The model key `models.json` names for `role` (e.g. `"embedding": "nomic"`), when it is a
 * registered model; null otherwise (absent, empty, or a key `models` does not have).
 */
export function auxModelKey(modelsFile: { readonly [key: string]: unknown; models: Record<string, unknown> }, role: AuxiliaryModelRole): string | null {
  const key = Object.prototype.hasOwnProperty.call(modelsFile, role) ? modelsFile[role] : undefined;
  return typeof key === "string" && key.trim() !== "" && Object.prototype.hasOwnProperty.call(modelsFile.models, key) ? key : null;
}
