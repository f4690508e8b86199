/**
 * The request body of one chat-completions call: our messages in the SDK's shape, tools, and the
 * thinking parameters an endpoint's `thinking_style` asks for. Pure.
 */
import type { ChatCompletionCreateParamsStreaming, ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { ModelEntry } from "./schema";
import type { ChatMessage, ChatRequest, ThinkingLevel } from "./types";

/** Thinking parameters added to the request body for an entry's `thinking_style`. */
export function thinkingParams(style: ModelEntry["thinking_style"], thinking: ThinkingLevel): Record<string, unknown> {
  switch (style) {
    case "enable_thinking":
      return { enable_thinking: thinking !== "off" };
    case "reasoning_effort":
      return { reasoning_effort: thinking === "off" ? "low" : thinking === "on" ? "medium" : "high" };
    default:
      return {};
  }
}

/** Converts our messages to the SDK's request shape. */
export function toOpenAIMessages(messages: ChatMessage[]): ChatCompletionMessageParam[] {
  return messages.map((m): ChatCompletionMessageParam => {
    const name = m.name ? { name: m.name } : {};
    switch (m.role) {
      case "system":
        return { role: "system", content: m.content ?? "", ...name };
      case "user":
        return { role: "user", content: m.content ?? "", ...name };
      case "assistant":
        return m.tool_calls?.length
          ? { role: "assistant", content: m.content, tool_calls: m.tool_calls, ...name }
          : { role: "assistant", content: m.content ?? "", ...name };
      case "tool":
        return { role: "tool", content: m.content ?? "", tool_call_id: m.tool_call_id ?? "" };
    }
  });
}

/** The request body of one call (without transport options). */
export function buildRequestBody(entry: ModelEntry, req: ChatRequest): ChatCompletionCreateParamsStreaming {
  const body: ChatCompletionCreateParamsStreaming & Record<string, unknown> = {
    model: entry.model,
    messages: toOpenAIMessages(req.messages),
    stream: true,
    stream_options: { include_usage: true },
    ...thinkingParams(entry.thinking_style, req.thinking),
  };
  if (req.tools?.length) {
    body.tools = req.tools;
    body.tool_choice = "auto";
  }
  return body;
}
