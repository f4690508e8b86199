/**
 * The `dashscope` profile (Alibaba Cloud Model Studio, Qwen in OpenAI-compatible mode). Thinking
 * is the top-level `enable_thinking`; `parallel_tool_calls` defaults to false there (one call per
 * turn), so it is asked for whenever tools are offered — a leader creating three agents then does
 * it in one turn. Thinking streams as `reasoning_content`. Tool calls are native.
 *
 * Sources: https://help.aliyun.com/en/model-studio/deep-thinking (`extra_body={"enable_thinking":
 * True}`, streaming with `stream_options.include_usage`);
 * https://www.alibabacloud.com/help/en/model-studio/qwen-function-calling and
 * https://docs.qwencloud.com/developer-guides/text-generation/function-calling ("By default, the
 * model returns one tool call per response": `parallel_tool_calls: true` for several).
 */
import type { ProviderQuirks } from "./types";

export const dashscope: ProviderQuirks = {
  name: "dashscope",
  label: "DashScope (Qwen)",
  thinkingParams: (entry, level) => (entry.thinking_style === "none" ? {} : { enable_thinking: level !== "off" }),
  toolParams: () => ({ tool_choice: "auto", parallel_tool_calls: true }),
  systemRole: () => "system",
  reasoningBack: false,
  recoversTextToolCalls: false,
  serverFlag: () => null,
};
