/**
 * Guessing an entry's profile when it names none (or names the old `openai-compatible`): from the
 * base URL's host (the hosted APIs) or port (the local servers' defaults), or from the server's
 * own `/v1/models` answer, whose `owned_by` each local server fills with its own name. Pure.
 *
 * Sources of `owned_by`: vLLM `ModelCard.owned_by: str = "vllm"`
 * (vllm/entrypoints/openai/protocol.py); llama.cpp `{"owned_by", "llamacpp"}`
 * (tools/server/server.cpp); Ollama `OwnedBy: "library"` (openai/openai.go, `ToListCompletion`);
 * LM Studio `"owned_by": "organization_owner"` (its `/v1/models` as quoted in many setups, e.g.
 * https://lmstudio.ai/docs/app/api/endpoints/openai). Default ports: Ollama 11434, LM Studio
 * 1234, vLLM 8000, llama-server 8080.
 */
import { PROVIDER_PROFILES, type ModelEntry, type ProviderProfile } from "../schema";
import type { ResolvedProvider } from "./types";

const HOSTS: ReadonlyArray<[RegExp, ProviderProfile]> = [
  [/^api\.openai\.com$/i, "openai"],
  [/^api\.deepseek\.com$/i, "deepseek"],
  [/^dashscope(-intl|-us)?\.aliyuncs\.com$/i, "dashscope"],
];

/** Ports only a local server of one kind listens on by default (decided before asking it). */
const SURE_PORTS: Readonly<Record<string, ProviderProfile>> = { "11434": "ollama", "1234": "lmstudio" };
/** Default ports other servers share too: used only when the server's answer decided nothing. */
const LIKELY_PORTS: Readonly<Record<string, ProviderProfile>> = { "8000": "vllm", "8080": "llamacpp" };

const OWNERS: Readonly<Record<string, ProviderProfile>> = { vllm: "vllm", llamacpp: "llamacpp", library: "ollama", organization_owner: "lmstudio" };

/** The profile an entry names, when it names one (not `openai-compatible`, not `offline`). */
function namedProfile(entry: Pick<ModelEntry, "provider">): ProviderProfile | null {
  return (PROVIDER_PROFILES as readonly string[]).includes(entry.provider) ? (entry.provider as ProviderProfile) : null;
}

function parsedUrl(baseUrl: string | undefined): URL | null {
  try {
    return new URL(baseUrl ?? "https://api.openai.com/v1");
  } catch {
    return null;
  }
}

/** The guess from the base URL alone: a hosted API's host, or a port only one local server uses. */
export function guessFromUrl(baseUrl: string | undefined): ResolvedProvider | null {
  const url = parsedUrl(baseUrl);
  if (!url) return null;
  for (const [host, profile] of HOSTS) if (host.test(url.hostname)) return { profile, source: "base_url", detail: url.hostname };
  const sure = url.port ? SURE_PORTS[url.port] : undefined;
  return sure ? { profile: sure, source: "base_url", detail: `port ${url.port}` } : null;
}

/** The weaker guess from a default port several servers use (vLLM's 8000, llama-server's 8080). */
export function guessFromLikelyPort(baseUrl: string | undefined): ResolvedProvider | null {
  const url = parsedUrl(baseUrl);
  const likely = url?.port ? LIKELY_PORTS[url.port] : undefined;
  return likely ? { profile: likely, source: "base_url", detail: `port ${url!.port}` } : null;
}

/** The guess from a server's `/v1/models` answer (its models' `owned_by`), or null. */
export function guessFromModelList(body: unknown): ResolvedProvider | null {
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) return null;
  for (const model of data) {
    const owner = (model as { owned_by?: unknown } | null)?.owned_by;
    if (typeof owner === "string" && Object.hasOwn(OWNERS, owner)) return { profile: OWNERS[owner]!, source: "server", detail: `owned_by "${owner}"` };
  }
  return null;
}

/** What is known without asking the server: the named profile, else the URL's guess, else null. */
export function resolveWithoutServer(entry: Pick<ModelEntry, "provider" | "base_url">): ResolvedProvider | null {
  const named = namedProfile(entry);
  if (named) return { profile: named, source: "named", detail: "" };
  return guessFromUrl(entry.base_url);
}

/** The profile when nothing decided: plain OpenAI-compatible behaviour. */
export const GENERIC_DEFAULT: ResolvedProvider = { profile: "generic", source: "default", detail: "" };
