/**
 * Reading a conversation the way the offline model needs it: which tool calls were made since a
 * point, and what came back for each. The offline model keeps no state between calls (the
 * runtime may restart between them), so everything it "remembers" is re-read from the messages.
 */
import type { ChatMessage } from "@/lib/models/types";
import { isRecord, parseJson } from "./text";

/** What the offline model decided to say and do in one call, before it is streamed. */
export interface OfflineDecision {
  /** Short plan shown as thinking when the request asks for it. */
  reasoning: string;
  content: string;
  toolCalls: Array<{ name: string; args: Record<string, unknown> }>;
  /** What it keeps for itself apart from its text (`ChatResult.notes`): never shown as content. */
  notes?: string[];
}

/** A tool call found in the history, paired with its result when one came back. */
export interface PastCall {
  name: string;
  args: Record<string, unknown>;
  id: string;
  /** Index of the assistant message that made the call. */
  at: number;
  /** The tool message's text; undefined while no result has come back. */
  resultText?: string;
  /** The result parsed as JSON; undefined when absent or not JSON. */
  result?: unknown;
  /** The `error` field of the result, when the tool refused or failed. */
  error?: string;
}

/** Text content of a message ("" for null). */
export function textOf(m: ChatMessage | undefined): string {
  return typeof m?.content === "string" ? m.content : "";
}

/** Every tool call made by assistant messages at index > `after`, with its result. */
export function pastCalls(messages: readonly ChatMessage[], after: number): PastCall[] {
  const results = new Map<string, string>();
  for (let i = after + 1; i < messages.length; i++) {
    const m = messages[i];
    if (m?.role === "tool" && m.tool_call_id) results.set(m.tool_call_id, textOf(m));
  }
  const calls: PastCall[] = [];
  for (let i = after + 1; i < messages.length; i++) {
    const m = messages[i];
    if (m?.role !== "assistant" || !m.tool_calls) continue;
    for (const tc of m.tool_calls) {
      const parsedArgs = parseJson(tc.function.arguments);
      const call: PastCall = {
        name: tc.function.name,
        args: isRecord(parsedArgs) ? parsedArgs : {},
        id: tc.id,
        at: i,
      };
      const text = results.get(tc.id);
      if (text !== undefined) {
        call.resultText = text;
        call.result = parseJson(text);
        if (isRecord(call.result) && typeof call.result.error === "string") call.error = call.result.error;
        else if (call.result === undefined && /^\s*(error|错误)\b/i.test(text)) call.error = text.trim();
      }
      calls.push(call);
    }
  }
  return calls;
}

/** The names of the tools a request offers. */
export function toolNames(tools: readonly { function: { name: string } }[] | undefined): Set<string> {
  return new Set((tools ?? []).map((t) => t.function.name));
}
