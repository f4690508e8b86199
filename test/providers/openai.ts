/**
 * A fake of OpenAI's chat completions (api.openai.com): the standard stream (a role chunk with
 * `refusal: null`, content pieces, each tool call's id and name first then its arguments in
 * pieces, the finish chunk, a usage chunk with `choices: []` only when `stream_options.
 * include_usage` is set, `[DONE]`); no reasoning is streamed. It refuses what OpenAI refuses:
 * `reasoning_effort` for a model that is not a reasoning model, and `max_tokens` for one that is.
 *
 * Sources: https://platform.openai.com/docs/api-reference/chat-streaming (chunk object);
 * https://platform.openai.com/docs/guides/reasoning; the 400 bodies as OpenAI sends them:
 * `{"error":{"message":"Unsupported parameter: 'reasoning_effort' is not supported with this
 * model.","type":"invalid_request_error","param":"reasoning_effort","code":"unsupported_parameter"}}`
 * and "Unsupported parameter: 'max_tokens' is not supported with this model. Use
 * 'max_completion_tokens' instead." (both quoted in many clients' tests, e.g. the public code
 * index's OpenAI adapters).
 */
import { fakeError, startFakeOpenAI, type FakeOpenAI, type FakeRequestBody, type Script } from "../helpers/fake-openai";
import { turnFor, type Turn } from "./scenario";
import { chunks, pieces, raw, usage } from "./wire";

const REASONING_MODEL = /^(o\d+|gpt-5)(\b|[-.])/i;

function unsupported(param: string, message: string): Script {
  return fakeError(400, { body: { error: { message, type: "invalid_request_error", param, code: "unsupported_parameter" } } });
}

/** OpenAI's stream of one turn. */
function openaiStream(body: FakeRequestBody, turn: Turn): Script {
  const chunk = chunks(body, { service_tier: "default", system_fingerprint: "fp_fake" });
  const events: Array<Record<string, unknown>> = [chunk({ role: "assistant", content: "", refusal: null })];
  let chars = 0;
  for (const p of pieces(turn.content ?? "")) {
    chars += p.length;
    events.push(chunk({ content: p }));
  }
  for (const [index, call] of (turn.calls ?? []).entries()) {
    events.push(chunk({ tool_calls: [{ index, id: `call_${Math.random().toString(36).slice(2, 14)}`, type: "function", function: { name: call.name, arguments: "" } }] }));
    for (const p of pieces(JSON.stringify(call.arguments), 8)) {
      chars += p.length;
      events.push(chunk({ tool_calls: [{ index, function: { arguments: p } }] }));
    }
  }
  events.push(chunk({}, turn.calls?.length ? "tool_calls" : "stop"));
  if (body.stream_options?.include_usage) events.push(chunk(null, null, { usage: usage(body, chars) }));
  return raw(events);
}

/** Starts the fake OpenAI. */
export function startOpenAIFake(): Promise<FakeOpenAI> {
  return startFakeOpenAI({
    script: (body) => {
      const reasoningModel = REASONING_MODEL.test(String(body.model));
      if (!reasoningModel && "reasoning_effort" in body) return unsupported("reasoning_effort", "Unsupported parameter: 'reasoning_effort' is not supported with this model.");
      if (reasoningModel && "max_tokens" in body) return unsupported("max_tokens", "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.");
      return openaiStream(body, turnFor(body, "openai", false));
    },
  });
}
