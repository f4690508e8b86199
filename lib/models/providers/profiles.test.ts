import { describe, expect, it } from "vitest";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { buildRequestBody } from "../request";
import type { ModelEntry, ProviderProfile } from "../schema";
import { StreamAccumulator } from "../stream";
import type { ChatMessage, ChatRequest, ThinkingLevel } from "../types";
import { quirksOf } from "./index";

const tools: ChatRequest["tools"] = [{ type: "function", function: { name: "list_files", description: "d", parameters: { type: "object" } } }];
const history: ChatMessage[] = [
  { role: "system", content: "You lead." },
  { role: "user", content: "go" },
  { role: "assistant", content: null, reasoning: "first think", tool_calls: [{ id: "c1", type: "function", function: { name: "list_files", arguments: "{}" } }] },
  { role: "tool", content: "[]", tool_call_id: "c1" },
  { role: "assistant", content: "no thinking saved" },
];

function body(profile: ProviderProfile, entry: Partial<ModelEntry>, thinking: ThinkingLevel = "on"): Record<string, unknown> {
  const full: ModelEntry = { provider: profile, model: "m", thinking_style: "none", max_concurrency: 1, ...entry };
  return buildRequestBody(full, { messages: history, tools, thinking }, quirksOf(profile)) as unknown as Record<string, unknown>;
}
const messages = (b: Record<string, unknown>) => b.messages as Array<Record<string, unknown>>;

describe("request body per provider profile", () => {
  it("generic is the app's old behaviour", () => {
    const b = body("generic", { thinking_style: "enable_thinking" });
    expect(b).toMatchObject({ stream: true, stream_options: { include_usage: true }, tool_choice: "auto", enable_thinking: true });
    expect(b).not.toHaveProperty("parallel_tool_calls");
    expect(messages(b)[0]!.role).toBe("system");
    expect(JSON.stringify(b)).not.toContain("reasoning_content");
  });

  it("vLLM takes the thinking switch in chat_template_kwargs only", () => {
    const on = body("vllm", { thinking_style: "enable_thinking" });
    expect(on.chat_template_kwargs).toEqual({ enable_thinking: true });
    expect(on).not.toHaveProperty("enable_thinking");
    expect(body("vllm", { thinking_style: "enable_thinking" }, "off").chat_template_kwargs).toEqual({ enable_thinking: false });
    expect(body("vllm", {})).not.toHaveProperty("chat_template_kwargs");
  });

  it("Ollama switches thinking with reasoning_effort, none turning it off", () => {
    expect(body("ollama", { thinking_style: "enable_thinking" }, "off").reasoning_effort).toBe("none");
    expect(body("ollama", { thinking_style: "enable_thinking" }, "deep").reasoning_effort).toBe("high");
    expect(body("ollama", {})).not.toHaveProperty("reasoning_effort");
    expect(body("ollama", {}).stream_options).toEqual({ include_usage: true });
  });

  it("DeepSeek gets thinking: {type} and every assistant turn's reasoning_content back", () => {
    const b = body("deepseek", { thinking_style: "enable_thinking" });
    expect(b.thinking).toEqual({ type: "enabled" });
    expect(body("deepseek", { thinking_style: "enable_thinking" }, "off").thinking).toEqual({ type: "disabled" });
    const assistants = messages(b).filter((m) => m.role === "assistant");
    expect(assistants.map((m) => m.reasoning_content)).toEqual(["first think", ""]);
    expect(messages(b).filter((m) => m.role !== "assistant").some((m) => "reasoning_content" in m)).toBe(false);
  });

  it("DashScope asks for parallel tool calls when tools are offered, with top-level enable_thinking", () => {
    const b = body("dashscope", { thinking_style: "enable_thinking" });
    expect(b).toMatchObject({ enable_thinking: true, parallel_tool_calls: true, tool_choice: "auto" });
    const bare = buildRequestBody({ provider: "dashscope", model: "qwen3-max", thinking_style: "none", max_concurrency: 1 }, { messages: [], thinking: "off" }, quirksOf("dashscope"));
    expect(bare).not.toHaveProperty("parallel_tool_calls");
  });

  it("OpenAI reasoning models get reasoning_effort and a developer message; others neither; no token limit is sent", () => {
    const o = body("openai", { model: "o4-mini" }, "deep");
    expect(o.reasoning_effort).toBe("high");
    expect(messages(o)[0]!.role).toBe("developer");
    expect(body("openai", { model: "gpt-5-mini" }).reasoning_effort).toBe("medium");
    const chat = body("openai", { model: "gpt-4o", thinking_style: "reasoning_effort" });
    expect(chat).not.toHaveProperty("reasoning_effort");
    expect(messages(chat)[0]!.role).toBe("system");
    for (const b of [o, chat]) {
      expect(b).not.toHaveProperty("max_tokens");
      expect(b).not.toHaveProperty("max_completion_tokens");
    }
  });

  it("llama.cpp and LM Studio: tool_choice auto, thinking by the entry's style", () => {
    expect(body("llamacpp", { thinking_style: "enable_thinking" }).chat_template_kwargs).toEqual({ enable_thinking: true });
    expect(body("lmstudio", { thinking_style: "reasoning_effort" }).reasoning_effort).toBe("medium");
    expect(body("lmstudio", {}).tool_choice).toBe("auto");
  });

  it("names the server flag a refusal asks for, per profile", () => {
    const vllmSaid = '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set';
    expect(quirksOf("vllm").serverFlag(400, vllmSaid)).toEqual({ server: "vLLM", flag: "--enable-auto-tool-choice --tool-call-parser <parser>" });
    expect(quirksOf("llamacpp").serverFlag(500, "tools param requires --jinja flag")).toEqual({ server: "llama.cpp server", flag: "--jinja" });
    expect(quirksOf("generic").serverFlag(500, "tools param requires --jinja flag")?.flag).toBe("--jinja");
    expect(quirksOf("openai").serverFlag(400, vllmSaid)).toBeNull();
    expect(quirksOf("vllm").serverFlag(400, "maximum context length is 4096 tokens")).toBeNull();
  });
});

function chunk(delta: Record<string, unknown>, finish: string | null = null): ChatCompletionChunk {
  return { id: "c", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] } as ChatCompletionChunk;
}

describe("stream reader quirks", () => {
  it("accepts tool_calls in one final chunk with ids missing, empty or repeated, and makes unique ids", () => {
    const acc = new StreamAccumulator("m");
    acc.add(
      chunk(
        {
          tool_calls: [
            { index: 0, id: "", type: "function", function: { name: "list_files", arguments: '{"path":"."}' } },
            { index: 1, function: { name: "list_files", arguments: '{"path":"src"}' } },
            { index: 2, id: "same", function: { name: "read_file", arguments: "{}" } },
            { index: 3, id: "same", function: { name: "read_file", arguments: "{}" } },
          ],
        },
        "tool_calls",
      ),
      () => undefined,
    );
    const calls = acc.result().tool_calls;
    expect(calls.map((c) => c.function.arguments)).toEqual(['{"path":"."}', '{"path":"src"}', "{}", "{}"]);
    expect(calls.every((c) => c.id.length > 0)).toBe(true);
    expect(new Set(calls.map((c) => c.id)).size).toBe(4);
    expect(calls[2]!.id).toBe("same");
  });

  it("splits inline thinking out of content, live and in the result", () => {
    const acc = new StreamAccumulator("m");
    const live: string[] = [];
    for (const piece of ["<thi", "nk>plan</th", "ink>\n\nAnswer"]) acc.add(chunk({ content: piece }), (d) => live.push(`${d.type}:${"text" in d ? d.text : ""}`));
    acc.end((d) => live.push(`${d.type}:${"text" in d ? d.text : ""}`));
    expect(acc.result()).toMatchObject({ content: "Answer", reasoning: "plan" });
    expect(live.join("|")).toBe("reasoning:plan|content:Answer");
  });

  it("reads Ollama's delta.reasoning as thinking", () => {
    const acc = new StreamAccumulator("m");
    acc.add(chunk({ reasoning: "hmm" }), () => undefined);
    acc.add(chunk({ content: "ok" }, "stop"), () => undefined);
    expect(acc.result()).toMatchObject({ content: "ok", reasoning: "hmm" });
  });

  it("recovers a JSON-text tool call only when asked to and only for an offered tool", () => {
    const text = '{"name": "list_files", "arguments": {"path": "."}}';
    const on = new StreamAccumulator("m", { recoverToolsNamed: new Set(["list_files"]) });
    on.add(chunk({ content: text }, "stop"), () => undefined);
    const result = on.result();
    expect(result).toMatchObject({ content: "", recovered_tool_calls: true, tool_calls: [{ type: "function", function: { name: "list_files", arguments: '{"path":"."}' } }] });
    const off = new StreamAccumulator("m");
    off.add(chunk({ content: text }, "stop"), () => undefined);
    expect(off.result()).toMatchObject({ content: text, tool_calls: [] });
    const other = new StreamAccumulator("m", { recoverToolsNamed: new Set(["read_file"]) });
    other.add(chunk({ content: text }, "stop"), () => undefined);
    expect(other.result().tool_calls).toEqual([]);
  });
});
