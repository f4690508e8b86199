/**
 * The request body of one chat-completions call: our messages in the SDK's shape, tools, and the
 * parameters the entry's provider profile asks for (thinking switch, tool choice, parallel tool
 * calls, the system prompt's role, thinking sent back). Pure.
 */
import type { ChatCompletionCreateParamsStreaming, ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { quirksOf, type ProviderQuirks } from "./providers";
import type { ModelEntry } from "./schema";
import type { ChatMessage, ChatRequest } from "./types";

/** How messages are shaped for a provider: the system prompt's role and whether thinking goes back. */
type MessageShape = { systemRole: "system" | "developer"; reasoningBack: boolean };

/** Converts our messages to the SDK's request shape (plain OpenAI shape unless `shape` says otherwise). */
export function toOpenAIMessages(messages: ChatMessage[], shape: MessageShape = { systemRole: "system", reasoningBack: false }): ChatCompletionMessageParam[] {
  return messages.map((m): ChatCompletionMessageParam => {
    const name = m.name ? { name: m.name } : {};
    switch (m.role) {
      case "system":
        return { role: shape.systemRole, content: m.content ?? "", ...name };
      case "user":
        return { role: "user", content: m.content ?? "", ...name };
      case "assistant": {
        // DeepSeek refuses an assistant turn without the field, so an empty one is sent when there was no thinking.
        const back = shape.reasoningBack ? { reasoning_content: m.reasoning ?? "" } : {};
        return m.tool_calls?.length
          ? { role: "assistant", content: m.content, tool_calls: m.tool_calls, ...name, ...back }
          : { role: "assistant", content: m.content ?? "", ...name, ...back };
      }
      case "tool":
        return { role: "tool", content: m.content ?? "", tool_call_id: m.tool_call_id ?? "" };
    }
  });
}

/** The request body of one call (without transport options), as `quirks` (default: the generic profile) asks. */
export function buildRequestBody(entry: ModelEntry, req: ChatRequest, quirks: ProviderQuirks = quirksOf("generic")): ChatCompletionCreateParamsStreaming {
  const body: ChatCompletionCreateParamsStreaming & Record<string, unknown> = {
    model: entry.model,
    messages: toOpenAIMessages(req.messages, { systemRole: quirks.systemRole(entry), reasoningBack: quirks.reasoningBack }),
    stream: true,
    stream_options: { include_usage: true },
    ...quirks.thinkingParams(entry, req.thinking),
  };
  if (req.tools?.length) Object.assign(body, { tools: req.tools }, quirks.toolParams(entry));
  return body;
}
