/**
 * The `deepseek` profile (api.deepseek.com). The thinking switch is `thinking: {type:
 * "enabled" | "disabled"}`. In thinking mode with tools, every earlier assistant turn must carry
 * its `reasoning_content`, or the API answers 400 "The reasoning_content in the thinking mode must
 * be passed back to the API." — so every assistant turn sent to DeepSeek carries the thinking the
 * app stored with it (`reasoning_content` on the saved message; empty when it had none, because
 * the API also refuses a missing field: "Missing `reasoning_content` field in the assistant
 * message at message index 2"). Tool calls are native.
 *
 * Sources: https://api-docs.deepseek.com/guides/thinking_mode (toggle, "在两个 user 消息之间，如果
 * 模型进行了工具调用，则中间 assistant 的 reasoning_content 需参与上下文拼接，在后续所有 user 交互轮次中
 * 必须回传给 API"); the 400 bodies as reported in JohnnyZ93/oai-compatible-copilot#215,
 * qwersyk/Newelle#404 and abhigyanpatwari/GitNexus#43.
 */
import type { ProviderQuirks } from "./types";

export const deepseek: ProviderQuirks = {
  name: "deepseek",
  label: "DeepSeek",
  thinkingParams: (entry, level) => (entry.thinking_style === "none" ? {} : { thinking: { type: level === "off" ? "disabled" : "enabled" } }),
  toolParams: () => ({ tool_choice: "auto" }),
  systemRole: () => "system",
  reasoningBack: true,
  recoversTextToolCalls: false,
  serverFlag: () => null,
};
