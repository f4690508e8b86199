/**
 * Tool calls matched to their results, in one place. An assistant message asks for tool calls
 * (`tool_calls[].id`); each is answered by a later `tool` message with that `tool_call_id`. The
 * runtime (what is still unanswered after a crash, whether the last result delivered a report)
 * and the context window (which pairs may be shown) read a transcript through these functions.
 * Pure: no I/O. Every function scans back only as far as the last assistant message it needs.
 */
import type { Message, ToolCall } from "@/lib/contracts/on-disk";

/** The index of the last assistant message at or before `from`, or -1. */
function lastAssistant(messages: readonly Message[], from: number): number {
  for (let i = from; i >= 0; i--) if (messages[i]!.role === "assistant") return i;
  return -1;
}

/** Tool calls of the last assistant message that have no result yet (none when it asked for none). */
export function unansweredToolCalls(messages: readonly Message[]): ToolCall[] {
  const at = lastAssistant(messages, messages.length - 1);
  const calls = at < 0 ? undefined : messages[at]!.tool_calls;
  if (!calls?.length) return [];
  const answered = new Set<string>();
  for (let i = at + 1; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === "tool" && m.tool_call_id) answered.add(m.tool_call_id);
  }
  return calls.filter((c) => !answered.has(c.id));
}

/**
 * The call that the tool message at `index` answers: the matching call of the assistant message
 * its run of tool results follows. Undefined for anything else (a result with no such call).
 */
export function callAnsweredAt(messages: readonly Message[], index: number): ToolCall | undefined {
  const result = messages[index];
  if (result?.role !== "tool" || !result.tool_call_id) return undefined;
  for (let i = index - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === "tool") continue;
    return m.role === "assistant" ? m.tool_calls?.find((c) => c.id === result.tool_call_id) : undefined;
  }
  return undefined;
}

/** True when the transcript's last message is a tool result that is not an error. */
function lastIsSuccessfulResult(messages: readonly Message[]): boolean {
  const last = messages[messages.length - 1];
  return last?.role === "tool" && !String(last.content ?? "").startsWith('{"error"');
}

/** True when the transcript ends with the successful result of a call to `tool`. */
export function endsWithResultOf(messages: readonly Message[], tool: string): boolean {
  return lastIsSuccessfulResult(messages) && callAnsweredAt(messages, messages.length - 1)?.function.name === tool;
}

/** True when the transcript's last message calls for another model call (new input, every call answered). */
export function needsModelCall(messages: readonly Message[]): boolean {
  const last = messages[messages.length - 1];
  if (!last || (last.role !== "user" && last.role !== "tool")) return false;
  return unansweredToolCalls(messages).length === 0;
}
