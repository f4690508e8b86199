/**
 * The `openai` profile (api.openai.com). Reasoning models — the o-series and the GPT-5 family —
 * take `reasoning_effort` and a `developer` message in place of `system`; the others refuse
 * `reasoning_effort`, so it is never sent to them whatever the entry's `thinking_style` says.
 * Tool calls are native (no JSON-text recovery). The app sends no token limit, so neither
 * `max_tokens` nor its reasoning-model replacement `max_completion_tokens` is ever in a body.
 *
 * Sources: https://platform.openai.com/docs/guides/reasoning (reasoning_effort, developer
 * messages: "Starting with o1-2024-12-17, reasoning models support developer messages rather than
 * system messages"); https://platform.openai.com/docs/api-reference/chat/create (`reasoning_effort`
 * "o-series and gpt-5 models only", `max_tokens` "not compatible with o-series models").
 */
import type { ModelEntry } from "../schema";
import type { ThinkingLevel } from "../types";
import { effortFor } from "./generic";
import type { ProviderQuirks } from "./types";

/** True for OpenAI's reasoning models: `o1`, `o3-mini`, `o4-mini`, `gpt-5`, `gpt-5-mini`… */
function isOpenAIReasoningModel(model: string): boolean {
  return /^(o\d+|gpt-5)(\b|[-.])/i.test(model);
}

export const openai: ProviderQuirks = {
  name: "openai",
  label: "OpenAI",
  thinkingParams: (entry: ModelEntry, level: ThinkingLevel) => (isOpenAIReasoningModel(entry.model) ? { reasoning_effort: effortFor(level) } : {}),
  toolParams: () => ({ tool_choice: "auto" }),
  systemRole: (entry) => (isOpenAIReasoningModel(entry.model) ? "developer" : "system"),
  reasoningBack: false,
  recoversTextToolCalls: false,
  serverFlag: () => null,
};
