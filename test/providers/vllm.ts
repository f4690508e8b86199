/**
 * A fake vLLM OpenAI-compatible server serving Qwen3. "Started" with or without
 * `--enable-auto-tool-choice --tool-call-parser hermes` and `--reasoning-parser qwen3`:
 * - without auto tool choice, a request with tools and `tool_choice` "auto" (or none, which vLLM
 *   makes "auto" when tools are given) is answered 400 `{"error": {"message": "\"auto\" tool choice
 *   requires --enable-auto-tool-choice and --tool-call-parser to be set", "type":
 *   "BadRequestError", "param": null, "code": 400}}`;
 * - the thinking switch is read only from `chat_template_kwargs.enable_thinking` (Qwen3 thinks
 *   when it is not given; a top-level `enable_thinking` is an unknown field vLLM ignores);
 * - without a reasoning parser the thinking is inline `<think>\n…\n</think>\n\n` in `content`; with
 *   one it streams as `reasoning_content`.
 * Tool calls stream as the hermes parser sends them: id (`chatcmpl-tool-…`), type and name first,
 * then the arguments in pieces. Usage with `stream_options.include_usage` only.
 *
 * Sources: https://docs.vllm.ai/en/latest/features/tool_calling.html;
 * https://docs.vllm.ai/en/latest/features/reasoning_outputs.html;
 * https://qwen.readthedocs.io/en/latest/deployment/vllm.html; the 400 body as quoted in
 * gaoch6258/llm-srbench claude/VLLM_TOOL_CALLING_FIX.md; vllm-project/vllm#15188.
 */
import { fakeError, startFakeOpenAI, type FakeOpenAI, type FakeRequestBody, type Script } from "../helpers/fake-openai";
import { turnFor, type Turn } from "./scenario";
import { chunks, pieces, raw, usage } from "./wire";

/** How the fake server was "started". */
export interface VllmFlags {
  autoToolChoice: boolean;
  reasoningParser: boolean;
}

function stream(body: FakeRequestBody, turn: Turn, flags: VllmFlags): Script {
  const chunk = chunks(body);
  const events: Array<Record<string, unknown>> = [chunk({ role: "assistant", content: "" })];
  let chars = 0;
  const text = (delta: Record<string, unknown>, value: string) => {
    chars += value.length;
    events.push(chunk(delta));
  };
  if (turn.reasoning && flags.reasoningParser) for (const p of pieces(turn.reasoning)) text({ reasoning_content: p }, p);
  const inline = turn.reasoning && !flags.reasoningParser ? `<think>\n${turn.reasoning}\n</think>\n\n` : "";
  for (const p of pieces(inline + (turn.content ?? ""), 3)) text({ content: p }, p);
  for (const [index, call] of (turn.calls ?? []).entries()) {
    events.push(chunk({ tool_calls: [{ id: `chatcmpl-tool-${Math.random().toString(16).slice(2, 18)}`, type: "function", index, function: { name: call.name } }] }));
    for (const p of pieces(JSON.stringify(call.arguments), 6)) text({ tool_calls: [{ index, function: { arguments: p } }] }, p);
  }
  events.push(chunk({ content: "" }, turn.calls?.length ? "tool_calls" : "stop"));
  if (body.stream_options?.include_usage) events.push(chunk(null, null, { usage: usage(body, chars) }));
  return raw(events);
}

/** Starts the fake vLLM server with `flags`. */
export function startVllmFake(flags: VllmFlags): Promise<FakeOpenAI> {
  return startFakeOpenAI({
    modelList: { object: "list", data: [{ id: "Qwen/Qwen3-8B", object: "model", created: 0, owned_by: "vllm", root: "Qwen/Qwen3-8B", parent: null, max_model_len: 40960 }] },
    script: (body) => {
      const auto = body.tool_choice === "auto" || body.tool_choice === undefined;
      if (body.tools?.length && auto && !flags.autoToolChoice) {
        return fakeError(400, { body: { error: { message: '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set', type: "BadRequestError", param: null, code: 400 } } });
      }
      const kwargs = body.chat_template_kwargs as { enable_thinking?: unknown } | undefined;
      const thinking = kwargs?.enable_thinking !== false;
      return stream(body, turnFor(body, "vllm", thinking), flags);
    },
  });
}
