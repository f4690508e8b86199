/**
 * The `vllm` profile. vLLM reads Qwen3's (and DeepSeek-R1 distills') thinking switch only from
 * `chat_template_kwargs: {enable_thinking}` — a top-level `enable_thinking` is ignored; it answers
 * 400 to `tool_choice: "auto"` unless started with `--enable-auto-tool-choice --tool-call-parser …`
 * (that refusal becomes a notice naming the flags); without `--reasoning-parser` the thinking
 * arrives inline as `<think>…</think>` in `content` (split off by the stream reader for every
 * profile). `parallel_tool_calls` is not sent: vLLM's parsers return every call the model wrote.
 *
 * Sources: https://docs.vllm.ai/en/latest/features/reasoning_outputs.html ("chat_template_kwargs":
 * {"enable_thinking": false}); https://qwen.readthedocs.io/en/latest/deployment/vllm.html
 * (thinking/non-thinking modes); https://docs.vllm.ai/en/latest/features/tool_calling.html
 * (`--enable-auto-tool-choice`, `--tool-call-parser`); the 400 body as quoted in
 * gaoch6258/llm-srbench claude/VLLM_TOOL_CALLING_FIX.md; vllm-project/vllm#15188 (reasoning only
 * split out with a reasoning parser).
 */
import { effortFor } from "./generic";
import { vllmToolChoiceFlag } from "./server-flags";
import type { ProviderQuirks } from "./types";

export const vllm: ProviderQuirks = {
  name: "vllm",
  label: "vLLM",
  thinkingParams: (entry, level) => {
    if (entry.thinking_style === "enable_thinking") return { chat_template_kwargs: { enable_thinking: level !== "off" } };
    // gpt-oss on vLLM takes the OpenAI parameter.
    if (entry.thinking_style === "reasoning_effort") return { reasoning_effort: effortFor(level) };
    return {};
  },
  toolParams: () => ({ tool_choice: "auto" }),
  systemRole: () => "system",
  reasoningBack: false,
  recoversTextToolCalls: true,
  serverFlag: (_status, message) => vllmToolChoiceFlag(message),
};
