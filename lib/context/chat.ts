/**
 * Saved messages in the chat-completions shape the scene sends, and copies of them. Pure.
 */
import type { ChatMessage, ToolCall as ChatToolCall } from "@/lib/models/types";
import type { Message } from "@/lib/contracts/on-disk";
import { AuthorSchema } from "@/lib/contracts/people";

/**
 * The name a person's message is shown to the model under (issue 32): its author's, when people
 * sign in (a message of the one person at an unconfigured machine reads as it always did).
 */
function signedAuthorName(m: Message): string | null {
  if (m.role !== "user" || m.metadata?.message_source !== "user") return null;
  const author = AuthorSchema.safeParse(m.metadata.author);
  return author.success && author.data.via !== undefined && author.data.via !== "local" ? author.data.name : null;
}

/**
 * A copy in the chat-completions shape (what the runtime's `toChatMessages` produced). A signed-in
 * person's message starts with their name in brackets, so the leader can tell two people apart
 * (the `name` field would do it for OpenAI alone, and only for names of Latin letters).
 */
export function toChat(m: Message): ChatMessage {
  const name = signedAuthorName(m);
  const out: ChatMessage = { role: m.role, content: name && typeof m.content === "string" ? `[${name}] ${m.content}` : m.content };
  if (m.tool_calls?.length) {
    out.tool_calls = m.tool_calls.map((c): ChatToolCall => ({ id: c.id, type: "function", function: { name: c.function.name, arguments: c.function.arguments } }));
  }
  if (m.tool_call_id) out.tool_call_id = m.tool_call_id;
  // The thinking saved with an assistant turn travels with it (outside every budget); the request
  // builder sends it back only to providers that require it (DeepSeek).
  const reasoning = (m as { reasoning_content?: unknown }).reasoning_content;
  if (m.role === "assistant" && typeof reasoning === "string" && reasoning) out.reasoning = reasoning;
  return out;
}

/** A copy that shares nothing mutable with `m` (keys in the same order). */
export function cloneChat(m: ChatMessage): ChatMessage {
  const out: ChatMessage = { ...m };
  if (m.tool_calls) out.tool_calls = m.tool_calls.map((c) => ({ ...c, function: { ...c.function } }));
  return out;
}

/** What a report shows for an assistant message without text: its calls. */
export function describeCalls(calls: readonly ChatToolCall[] | undefined): string {
  return (calls ?? []).map((c) => `→ ${c.function.name}(${c.function.arguments})`).join(" ");
}
