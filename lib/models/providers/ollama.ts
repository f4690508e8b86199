/**
 * The `ollama` profile (Ollama's OpenAI-compatible `/v1`). Newer Ollama streams the thinking as
 * `delta.reasoning`; older builds and many GGUF templates write it inline as `<think>…</think>` in
 * `content` (both read by the stream reader). Usage comes in a stream only when the request sets
 * `stream_options.include_usage` (always set). The thinking switch is `reasoning_effort`, and only
 * `"none"` turns thinking off. Small models often answer a tool call as JSON text in `content`,
 * which is recovered as a tool call.
 *
 * Sources: https://github.com/ollama/ollama/blob/main/docs/openai.md (stream_options
 * include_usage, reasoning_effort); ollama/ollama openai/openai.go (`Reasoning string
 * json:"reasoning,omitempty"` on the streamed message, as quoted in openai/openai-dotnet#813);
 * ollama/ollama#12004 and #14820 (`reasoning_effort: "none"` is what disables thinking, as
 * reported in aictrl-dev/cli#75); open-webui/open-webui#23923 (inline `<think>` tags).
 */
import type { ThinkingLevel } from "../types";
import { generic } from "./generic";
import type { ProviderQuirks } from "./types";

function ollamaEffort(level: ThinkingLevel): "none" | "medium" | "high" {
  return level === "off" ? "none" : level === "on" ? "medium" : "high";
}

export const ollama: ProviderQuirks = {
  ...generic,
  name: "ollama",
  label: "Ollama",
  thinkingParams: (entry, level) => (entry.thinking_style === "none" ? {} : { reasoning_effort: ollamaEffort(level) }),
  serverFlag: () => null,
};
