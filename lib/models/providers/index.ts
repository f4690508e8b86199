/**
 * Provider profiles: the documented quirks of each OpenAI-compatible server (one module per
 * provider, sources listed at the top of each), how an entry's profile is resolved (named in
 * models.json, or guessed from its base URL or its server's `/v1/models` answer), and the pure
 * pieces the stream reader uses for every profile (inline `<think>` splitting, JSON-text tool-call
 * recovery, refusals naming a server flag). The connection doctor and the model client both go
 * through {@link quirksOf} and {@link resolveWithoutServer} / `ProviderGuesser` (./guesser).
 */
import type { ProviderProfile } from "../schema";
import { dashscope } from "./dashscope";
import { deepseek } from "./deepseek";
import { generic } from "./generic";
import { llamacpp } from "./llamacpp";
import { lmstudio } from "./lmstudio";
import { ollama } from "./ollama";
import { openai } from "./openai";
import type { ProviderQuirks } from "./types";
import { vllm } from "./vllm";

const PROFILES: Readonly<Record<ProviderProfile, ProviderQuirks>> = { openai, vllm, ollama, deepseek, dashscope, lmstudio, llamacpp, generic };

/** The quirks of a profile. */
export function quirksOf(profile: ProviderProfile): ProviderQuirks {
  return PROFILES[profile];
}

export type { ProviderQuirks, ResolvedProvider } from "./types";
export { GENERIC_DEFAULT, resolveWithoutServer } from "./guess";
export { ThinkSplitter } from "./think-splitter";
export { recoverToolCall } from "./tool-recovery";
