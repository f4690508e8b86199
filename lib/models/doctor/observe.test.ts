import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { describe, expect, it } from "vitest";
import { ProbeObserver } from "./observe";

const chunk = (delta: Record<string, unknown> | null, finish: string | null = null, more: Record<string, unknown> = {}) =>
  ({ id: "x", object: "chat.completion.chunk", created: 0, model: "m", choices: delta === null ? [] : [{ index: 0, delta, finish_reason: finish }], ...more }) as unknown as ChatCompletionChunk;

function observe(chunks: ChatCompletionChunk[], recover?: Set<string>) {
  const o = new ProbeObserver("m", recover);
  for (const c of chunks) o.add(c);
  return o.seen();
}

describe("ProbeObserver", () => {
  it("tells thinking in a field from thinking inline, and sees usage", () => {
    expect(observe([chunk({ reasoning_content: "hm" }), chunk({ content: "42" }, "stop")]).reasoningVia).toBe("field");
    expect(observe([chunk({ reasoning: "hm" }), chunk({ content: "42" }, "stop")]).reasoningVia).toBe("field");
    const inline = observe([chunk({ content: "<thi" }), chunk({ content: "nk>hm</think>42" }, "stop"), chunk(null, null, { usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } })]);
    expect(inline).toMatchObject({ reasoningVia: "inline", usage: true, result: { content: "42", reasoning: "hm" } });
    expect(observe([chunk({ content: "42" }, "stop")])).toMatchObject({ reasoningVia: null, usage: false });
  });

  it("sees calls without ids in the final chunk (ids made), and streamed calls with ids", () => {
    const final = observe([chunk({ tool_calls: [{ index: 0, id: "", type: "function", function: { name: "astrion_probe", arguments: '{"word":"ping"}' } }] }, "tool_calls")]);
    expect(final).toMatchObject({ idsMade: true, callsInFinalChunk: true });
    expect(final.result.tool_calls[0]!.id).not.toBe("");
    const streamed = observe([
      chunk({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "astrion_probe", arguments: "" } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"word":"ping"}' } }] }),
      chunk({}, "tool_calls"),
    ]);
    expect(streamed).toMatchObject({ idsMade: false, callsInFinalChunk: false });
  });

  it("recovers a call written as JSON text only when asked to", () => {
    const text = [chunk({ content: '{"name": "astrion_probe", "arguments": {"word": "ping"}}' }, "stop")];
    expect(observe(text, new Set(["astrion_probe"])).result).toMatchObject({ recovered_tool_calls: true, tool_calls: [{ function: { name: "astrion_probe" } }] });
    expect(observe(text).result.tool_calls).toEqual([]);
  });
});
