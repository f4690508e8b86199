/**
 * Pieces the fake providers share to write their streams exactly: a chunk in the chat-completions
 * shape (`chat.completion.chunk`, one choice at index 0) and text cut into pieces so that tags
 * and JSON cross chunk boundaries, as tokens do.
 */
import type { FakeRequestBody, RawScript } from "../helpers/fake-openai";

/** A chunk maker for one answer: `extra` adds top-level fields (e.g. `system_fingerprint`). */
export function chunks(body: FakeRequestBody, extra: Record<string, unknown> = {}) {
  const id = `chatcmpl-${Math.random().toString(36).slice(2, 12)}`;
  const created = Math.floor(Date.now() / 1000);
  const model = typeof body.model === "string" ? body.model : "model";
  return (delta: Record<string, unknown> | null, finish: string | null = null, more: Record<string, unknown> = {}) => ({
    id,
    object: "chat.completion.chunk",
    created,
    model,
    ...extra,
    choices: delta === null ? [] : [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...more,
  });
}

/** `text` in pieces of `size` characters (the last one shorter). */
export function pieces(text: string, size = 5): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** Usage as OpenAI-compatible servers report it, estimated from lengths. */
export function usage(body: FakeRequestBody, completionChars: number): { prompt_tokens: number; completion_tokens: number; total_tokens: number } {
  const prompt = Math.ceil(JSON.stringify(body.messages ?? []).length / 4);
  const completion = Math.ceil(completionChars / 4);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** Exact SSE events ending with `data: [DONE]`. */
export function raw(events: Array<Record<string, unknown>>): RawScript {
  return { kind: "raw", events: [...events, "[DONE]"] };
}

/**
 * The stream of llama.cpp's engine (llama-server, and LM Studio's GGUF runtime) without a
 * reasoning format: thinking inline as `<think>` in `content`, two characters a chunk, and an
 * answer's tool calls in ONE final chunk with the finish reason, `callId` giving each call's id
 * fields (`{ id: "" }`, or `{}` for none at all).
 */
export function llamaEngineStream(body: FakeRequestBody, turn: { reasoning?: string; content?: string; calls?: Array<{ name: string; arguments: Record<string, unknown> }> }, callId: (index: number) => Record<string, unknown>): RawScript {
  const chunk = chunks(body, { system_fingerprint: String(body.model) });
  const events: Array<Record<string, unknown>> = [chunk({ role: "assistant", content: "" })];
  const text = (turn.reasoning ? `<think>\n${turn.reasoning}\n</think>\n\n` : "") + (turn.content ?? "");
  for (const p of pieces(text, 2)) events.push(chunk({ content: p }));
  const calls = (turn.calls ?? []).map((c, index) => ({ index, ...callId(index), type: "function", function: { name: c.name, arguments: JSON.stringify(c.arguments) } }));
  events.push(calls.length ? chunk({ tool_calls: calls }, "tool_calls") : chunk({}, "stop"));
  if (body.stream_options?.include_usage) events.push(chunk(null, null, { usage: usage(body, text.length) }));
  return raw(events);
}
