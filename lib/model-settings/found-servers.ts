/**
 * Local model servers found on 127.0.0.1, as data: what their model lists say (Ollama's
 * `/api/tags`, the OpenAI-compatible `/v1/models`), which kind of server answered, and the
 * models.json entry that uses one of their models (the "add" of one click). Pure: the probing is
 * ./discovery.ts; the browser builds the entry with the same function.
 */
import { z } from "zod";
import type { ProviderProfile } from "@/lib/models/schema";
import type { FoundServer, ModelEntryFields } from "./schema";

/** The ports looked at by default, and the server each one usually is. */
export const DEFAULT_DISCOVERY_PORTS: ReadonlyMap<number, ProviderProfile> = new Map([
  [11434, "ollama"],
  [1234, "lmstudio"],
  [8000, "vllm"],
  [8080, "llamacpp"],
]);

/** Ollama's `GET /api/tags`. */
const OllamaTagsSchema = z.object({ models: z.array(z.object({ name: z.string().min(1) })) });

/** The OpenAI-compatible `GET /v1/models`. */
const OpenAIModelsSchema = z.object({ data: z.array(z.object({ id: z.string().min(1), owned_by: z.string().optional() })) });

/** The model names of Ollama's tag list, or null when `body` is not one. */
export function ollamaModels(body: unknown): string[] | null {
  const parsed = OllamaTagsSchema.safeParse(body);
  return parsed.success ? parsed.data.models.map((m) => m.name) : null;
}

/** The model ids and owners of an OpenAI-compatible model list, or null when `body` is not one. */
export function openAIModels(body: unknown): { ids: string[]; owners: string[] } | null {
  const parsed = OpenAIModelsSchema.safeParse(body);
  return parsed.success ? { ids: parsed.data.data.map((m) => m.id), owners: parsed.data.data.map((m) => m.owned_by ?? "") } : null;
}

/**
 * Which server answered a `/v1/models` list: vLLM says `owned_by: "vllm"`, llama.cpp's server
 * `"llamacpp"`, LM Studio `"organization_owner"`; otherwise the port's usual server, else generic.
 */
export function guessProvider(owners: readonly string[], port: number): ProviderProfile {
  if (owners.includes("vllm")) return "vllm";
  if (owners.includes("llamacpp")) return "llamacpp";
  if (owners.includes("organization_owner")) return "lmstudio";
  return DEFAULT_DISCOVERY_PORTS.get(port) ?? "generic";
}

/** How a person knows each kind of server. */
export const SERVER_NAMES: Readonly<Record<string, string>> = {
  ollama: "Ollama",
  lmstudio: "LM Studio",
  vllm: "vLLM",
  llamacpp: "llama.cpp",
  generic: "OpenAI-compatible server",
};

/** A model key for `model` of a found server that no key of `taken` has: `ollama-qwen3-8b`, then `-2`… */
export function keyForFound(server: Pick<FoundServer, "provider">, model: string, taken: Iterable<string>): string {
  const used = new Set(taken);
  const slug = `${server.provider}-${model}`
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^[^a-z0-9]+|-+$/g, "")
    .slice(0, 90);
  const base = slug || "local-model";
  if (!used.has(base)) return base;
  for (let n = 2; ; n++) if (!used.has(`${base}-${n}`)) return `${base}-${n}`;
}

/**
 * The models.json entry for `model` of a found server: no key (a local server needs none), and a
 * first-response deadline long enough for the server to load the model on its first call.
 */
export function entryForFound(server: Pick<FoundServer, "provider" | "base_url" | "port">, model: string): ModelEntryFields {
  return {
    label: `${model} (${SERVER_NAMES[server.provider] ?? server.provider}, 127.0.0.1:${server.port})`,
    provider: server.provider,
    base_url: server.base_url,
    model,
    thinking_style: "none",
    max_concurrency: server.provider === "ollama" || server.provider === "llamacpp" ? 1 : 4,
    timeouts: { first_response_ms: 120_000 },
  };
}
