/**
 * Fakes of the two llama.cpp-based local servers, which stream alike:
 * - LM Studio (port 1234 by default, `/v1/models` `owned_by: "organization_owner"`): Qwen3 GGUF
 *   thinking inline as `<think>` in `content`; an answer's tool calls in ONE final chunk together
 *   with the finish reason, with `"id": ""`; a request whose messages carry an empty tool call id
 *   (sent back as it came) is refused 400 "Invalid 'messages' in payload. Please check the
 *   structure of your 'messages' and try again".
 * - llama.cpp's llama-server (`/v1/models` `owned_by: "llamacpp"`): "started" without `--jinja`
 *   it answers any request with `tools` 500 `{"error":{"code":500,"message":"tools param requires
 *   --jinja flag","type":"server_error"}}`; with it, tool calls come in one final chunk with no
 *   `id` at all, and the thinking inline (no `--reasoning-format`).
 *
 * Sources: lmstudio-ai/lmstudio-bug-tracker#830 (empty id, and LM Studio's refusal when it is sent
 * back, quoted from its server log: the body's shape is not documented, so the message is put in
 * OpenAI's error object), #1868 (arguments in one chunk), #723 (`"content":"<think>"`);
 * ggml-org/llama.cpp tools/server/utils.hpp (`tools param requires --jinja flag`), the 500 body as
 * logged by clients (e.g. the llama.cpp Lua client quoted in the public code index),
 * tools/server/server.cpp (`{"owned_by", "llamacpp"}`).
 */
import { fakeError, startFakeOpenAI, type FakeOpenAI, type FakeRequestBody, type Script } from "../helpers/fake-openai";
import { turnFor, type Turn } from "./scenario";
import { chunks, pieces, raw, usage } from "./wire";

function stream(body: FakeRequestBody, turn: Turn, callId: (index: number) => Record<string, unknown>): Script {
  const chunk = chunks(body, { system_fingerprint: String(body.model) });
  const events: Array<Record<string, unknown>> = [chunk({ role: "assistant", content: "" })];
  const text = (turn.reasoning ? `<think>\n${turn.reasoning}\n</think>\n\n` : "") + (turn.content ?? "");
  for (const p of pieces(text, 2)) events.push(chunk({ content: p }));
  const calls = (turn.calls ?? []).map((c, index) => ({ index, ...callId(index), type: "function", function: { name: c.name, arguments: JSON.stringify(c.arguments) } }));
  events.push(calls.length ? chunk({ tool_calls: calls }, "tool_calls") : chunk({}, "stop"));
  if (body.stream_options?.include_usage) events.push(chunk(null, null, { usage: usage(body, text.length) }));
  return raw(events);
}

function hasEmptyCallId(body: FakeRequestBody): boolean {
  return (body.messages ?? []).some(
    (m) => (m.role === "tool" && !m.tool_call_id) || (m.role === "assistant" && ((m.tool_calls ?? []) as Array<{ id?: unknown }>).some((c) => !c.id)),
  );
}

/** Starts the fake LM Studio. */
export function startLmStudioFake(): Promise<FakeOpenAI> {
  return startFakeOpenAI({
    modelList: { data: [{ id: "qwen/qwen3-4b", object: "model", owned_by: "organization_owner" }], object: "list" },
    script: (body) => {
      if (hasEmptyCallId(body)) return fakeError(400, { body: { error: { message: "Invalid 'messages' in payload. Please check the structure of your 'messages' and try again" } } });
      return stream(body, turnFor(body, "lmstudio", true), () => ({ id: "" }));
    },
  });
}

/** Starts the fake llama-server, "started" with or without `--jinja`. */
export function startLlamaCppFake(options: { jinja: boolean }): Promise<FakeOpenAI> {
  return startFakeOpenAI({
    modelList: { object: "list", data: [{ id: "qwen3-4b-q4_k_m.gguf", object: "model", created: 1750000000, owned_by: "llamacpp", meta: { vocab_type: 2, n_ctx_train: 40960 } }] },
    script: (body) => {
      if (body.tools?.length && !options.jinja) return fakeError(500, { body: { error: { code: 500, message: "tools param requires --jinja flag", type: "server_error" } } });
      return stream(body, turnFor(body, "llamacpp", true), () => ({}));
    },
  });
}
