/**
 * The `llamacpp` profile (llama.cpp's `llama-server`, default port 8080). Tools need the server
 * started with `--jinja`: without it a request with `tools` is answered 500 "tools param requires
 * --jinja flag", which becomes a notice naming the flag instead of being retried. Some builds send
 * `tool_calls` in one final chunk with ids missing or empty (ids are made). Qwen3's thinking
 * switch goes in `chat_template_kwargs`, as for vLLM; without `--reasoning-format deepseek` the
 * thinking is inline `<think>` in `content`.
 *
 * Sources: ggml-org/llama.cpp tools/server/utils.hpp (`throw std::runtime_error("tools param
 * requires --jinja flag")`), tools/server/README.md (`--jinja`, `--reasoning-format`,
 * `chat_template_kwargs`), tools/server/server.cpp (`{"owned_by", "llamacpp"}` in `/v1/models`).
 */
import { styleThinkingParams } from "./generic";
import { jinjaFlag } from "./server-flags";
import type { ProviderQuirks } from "./types";

export const llamacpp: ProviderQuirks = {
  name: "llamacpp",
  label: "llama.cpp server",
  thinkingParams: (entry, level) =>
    entry.thinking_style === "enable_thinking" ? { chat_template_kwargs: { enable_thinking: level !== "off" } } : styleThinkingParams(entry, level),
  toolParams: () => ({ tool_choice: "auto" }),
  systemRole: () => "system",
  reasoningBack: false,
  recoversTextToolCalls: true,
  serverFlag: (_status, message) => jinjaFlag(message),
};
