/**
 * The `generic` profile: plain OpenAI-compatible behaviour, what the app did before profiles. The
 * entry's `thinking_style` picks the thinking switch (`enable_thinking` at the top level, or
 * `reasoning_effort`), tools go with `tool_choice: "auto"`, the system prompt has the `system` role
 * and no thinking is sent back. A tool call written as JSON text is recovered, and a refusal that
 * names a vLLM or llama.cpp flag is recognised, because a generic server is often one of them.
 *
 * Source: the chat-completions reference, https://platform.openai.com/docs/api-reference/chat/create.
 */
import type { ModelEntry } from "../schema";
import type { ThinkingLevel } from "../types";
import { anyServerFlag } from "./server-flags";
import type { ProviderQuirks } from "./types";

/** `reasoning_effort` for a thinking level: off → low, on → medium, deep → high. */
export function effortFor(level: ThinkingLevel): "low" | "medium" | "high" {
  return level === "off" ? "low" : level === "on" ? "medium" : "high";
}

/** The thinking switch an entry's `thinking_style` names, as the app always sent it. */
export function styleThinkingParams(entry: ModelEntry, level: ThinkingLevel): Record<string, unknown> {
  switch (entry.thinking_style) {
    case "enable_thinking":
      return { enable_thinking: level !== "off" };
    case "reasoning_effort":
      return { reasoning_effort: effortFor(level) };
    default:
      return {};
  }
}

export const generic: ProviderQuirks = {
  name: "generic",
  label: "OpenAI-compatible server",
  thinkingParams: styleThinkingParams,
  toolParams: () => ({ tool_choice: "auto" }),
  systemRole: () => "system",
  reasoningBack: false,
  recoversTextToolCalls: true,
  serverFlag: (_status, message) => anyServerFlag(message),
};
