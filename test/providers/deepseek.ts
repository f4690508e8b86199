/**
 * A fake DeepSeek API (api.deepseek.com) in thinking mode. The switch is `thinking: {type:
 * "enabled" | "disabled"}` (enabled when absent, as for V4). Thinking streams as
 * `reasoning_content` with `content: null`, then `content` with `reasoning_content: null`; tool
 * calls stream as OpenAI's. With thinking on and tools offered, a request in which an earlier
 * assistant turn has no `reasoning_content` is answered 400 `{"error":{"message":"The
 * reasoning_content in the thinking mode must be passed back to the API.","type":
 * "invalid_request_error","param":null,"code":"invalid_request_error"}}`. Usage (with
 * include_usage) carries DeepSeek's cache fields.
 *
 * Sources: https://api-docs.deepseek.com/guides/thinking_mode; the 400 body as reported in
 * JohnnyZ93/oai-compatible-copilot#215, qwersyk/Newelle#404, borawong/AiMaMi#8;
 * https://api-docs.deepseek.com/api/create-chat-completion (usage: prompt_cache_hit_tokens,
 * prompt_cache_miss_tokens, completion_tokens_details.reasoning_tokens).
 */
import { fakeError, startFakeOpenAI, type FakeOpenAI, type FakeRequestBody, type Script } from "../helpers/fake-openai";
import { turnFor, type Turn } from "./scenario";
import { chunks, pieces, raw, usage } from "./wire";

function stream(body: FakeRequestBody, turn: Turn): Script {
  const chunk = chunks(body, { system_fingerprint: "fp_fake_deepseek" });
  const events: Array<Record<string, unknown>> = [chunk({ role: "assistant", content: null, reasoning_content: "" })];
  let chars = 0;
  let reasoningChars = 0;
  for (const p of pieces(turn.reasoning ?? "")) {
    reasoningChars += p.length;
    events.push(chunk({ content: null, reasoning_content: p }));
  }
  for (const p of pieces(turn.content ?? "")) {
    chars += p.length;
    events.push(chunk({ content: p, reasoning_content: null }));
  }
  for (const [index, call] of (turn.calls ?? []).entries()) {
    events.push(chunk({ tool_calls: [{ index, id: `call_00_${Math.random().toString(36).slice(2, 14)}`, type: "function", function: { name: call.name, arguments: "" } }] }));
    for (const p of pieces(JSON.stringify(call.arguments), 7)) {
      chars += p.length;
      events.push(chunk({ tool_calls: [{ index, function: { arguments: p } }] }));
    }
  }
  events.push(chunk({ content: "", reasoning_content: null }, turn.calls?.length ? "tool_calls" : "stop"));
  if (body.stream_options?.include_usage) {
    const u = usage(body, chars + reasoningChars);
    events.push(chunk(null, null, { usage: { ...u, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: Math.ceil(reasoningChars / 4) }, prompt_cache_hit_tokens: 0, prompt_cache_miss_tokens: u.prompt_tokens } }));
  }
  return raw(events);
}

/** Starts the fake DeepSeek API. */
export function startDeepSeekFake(): Promise<FakeOpenAI> {
  return startFakeOpenAI({
    script: (body) => {
      const thinking = (body.thinking as { type?: unknown } | undefined)?.type !== "disabled";
      const assistants = (body.messages ?? []).filter((m) => m.role === "assistant");
      if (thinking && body.tools?.length && assistants.some((m) => typeof m.reasoning_content !== "string")) {
        return fakeError(400, { body: { error: { message: "The reasoning_content in the thinking mode must be passed back to the API.", type: "invalid_request_error", param: null, code: "invalid_request_error" } } });
      }
      return stream(body, turnFor(body, "deepseek", thinking));
    },
  });
}
