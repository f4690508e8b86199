/**
 * A fake DashScope (Alibaba Cloud Model Studio, OpenAI-compatible mode) serving qwen3-max. Its
 * chunks put `choices` first and carry `usage: null` until the usage chunk (`choices: []`, only
 * with include_usage); thinking (top-level `enable_thinking: true`; off when absent) streams as
 * `reasoning_content` with `content: null`; a tool call's later pieces repeat `"id": ""` and
 * `"type": "function"`. Without `parallel_tool_calls: true` an answer holds one tool call only
 * (the first), as DashScope does by default.
 *
 * Sources: https://help.aliyun.com/en/model-studio/deep-thinking;
 * https://www.alibabacloud.com/help/en/model-studio/qwen-function-calling and
 * https://docs.qwencloud.com/developer-guides/text-generation/function-calling ("By default, the
 * model returns one tool call per response").
 */
import { startFakeOpenAI, type FakeOpenAI, type FakeRequestBody, type Script } from "../helpers/fake-openai";
import { turnFor, type Turn } from "./scenario";
import { pieces, raw, usage } from "./wire";

function stream(body: FakeRequestBody, turn: Turn): Script {
  const id = `chatcmpl-${Math.random().toString(36).slice(2, 14)}`;
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
    choices: [{ delta, index: 0, logprobs: null, finish_reason: finish }],
    object: "chat.completion.chunk",
    usage: null,
    created,
    system_fingerprint: null,
    model: body.model,
    id,
  });
  const events: Array<Record<string, unknown>> = [chunk({ content: null, role: "assistant", reasoning_content: "" })];
  let chars = 0;
  for (const p of pieces(turn.reasoning ?? "")) {
    chars += p.length;
    events.push(chunk({ content: null, reasoning_content: p }));
  }
  for (const p of pieces(turn.content ?? "")) {
    chars += p.length;
    events.push(chunk({ content: p, reasoning_content: null }));
  }
  for (const [index, call] of (turn.calls ?? []).entries()) {
    events.push(chunk({ content: null, tool_calls: [{ index, id: `call_${Math.random().toString(16).slice(2, 26)}`, type: "function", function: { name: call.name, arguments: "" } }] }));
    for (const p of pieces(JSON.stringify(call.arguments), 9)) {
      chars += p.length;
      events.push(chunk({ content: null, tool_calls: [{ index, id: "", type: "function", function: { arguments: p } }] }));
    }
  }
  events.push(chunk({ content: "" }, turn.calls?.length ? "tool_calls" : "stop"));
  if (body.stream_options?.include_usage) events.push({ choices: [], object: "chat.completion.chunk", usage: usage(body, chars), created, system_fingerprint: null, model: body.model, id });
  return raw(events);
}

/** Starts the fake DashScope. */
export function startDashScopeFake(): Promise<FakeOpenAI> {
  return startFakeOpenAI({
    script: (body) => {
      const turn = turnFor(body, "dashscope", body.enable_thinking === true);
      if (body.parallel_tool_calls !== true && turn.calls && turn.calls.length > 1) turn.calls = turn.calls.slice(0, 1);
      return stream(body, turn);
    },
  });
}
