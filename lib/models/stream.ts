/**
 * Reading a streamed chat-completions answer: chunks in, deltas out, the whole answer assembled,
 * and its size bounded. Thinking arrives as `reasoning_content` (DeepSeek, DashScope, vLLM with a
 * reasoning parser), as `reasoning` (newer Ollama) or inline as `<think>…</think>` in `content`
 * (split off here, for every provider); tool calls may come in one final chunk with ids missing,
 * empty or repeated (ids are made); a call written as JSON text is recovered when the provider
 * profile says so. Pure.
 */
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { recoverToolCall, ThinkSplitter } from "./providers";
import type { ChatDelta, ChatResult, ToolCall, Usage } from "./types";
import { cachedInputTokens } from "./cost";

type ToolCallDelta = { index: number; id?: string | null; type?: string | null; function?: { name?: string | null; arguments?: string | null } | null };

/**
 * Characters of one answer (text, thinking and tool-call arguments together) taken from a model;
 * a stream that goes past it is cut. The largest tool arguments accepted (`write_file`, see
 * `maxArgumentChars`) fit well within it; anything longer could only be refused later, after
 * being saved, sent to every browser and re-read for every following call.
 */
export const MAX_ANSWER_CHARS = 8_000_000;

/** Options of {@link StreamAccumulator}. */
export interface StreamAccumulatorOptions {
  /** Tools offered to the model whose calls may be recovered from JSON text (absent: none are). */
  recoverToolsNamed?: ReadonlySet<string>;
}

/**
 * Assembles streamed chunks into a {@link ChatResult} and turns them into {@link ChatDelta}s.
 * Tool calls are keyed by their stream `index`: the id and name arrive once, the arguments in
 * pieces, and several calls may be interleaved.
 */
export class StreamAccumulator {
  private content = "";
  private size = 0;
  private reasoning = "";
  private readonly calls = new Map<number, { id: string; name: string; arguments: string }>();
  private usage: Usage | null = null;
  private finishReason: string | null = null;
  private model: string;
  private readonly recoverable: ReadonlySet<string> | undefined;
  /** Where the content deltas of the chunk being read go (set by `add`). */
  private emit: (d: ChatDelta) => void = () => undefined;
  private readonly splitter = new ThinkSplitter({
    content: (text) => {
      this.content += text;
      this.send(this.emit, { type: "content", text });
    },
    reasoning: (text) => {
      this.reasoning += text;
      this.send(this.emit, { type: "reasoning", text });
    },
    closedWithoutOpening: () => {
      this.reasoning = this.content + this.reasoning;
      this.content = "";
    },
  });
  /** True once any delta has been produced: from then on a failed call is not retried. */
  emitted = false;

  constructor(model: string, options: StreamAccumulatorOptions = {}) {
    this.model = model;
    this.recoverable = options.recoverToolsNamed;
  }

  /** Takes one chunk; `emit` receives its deltas in order. */
  add(chunk: ChatCompletionChunk, emit: (d: ChatDelta) => void): void {
    this.size += chunkChars(chunk);
    if (this.size > MAX_ANSWER_CHARS) throw new OversizeAnswer();
    if (typeof chunk.model === "string" && chunk.model) this.model = chunk.model;
    if (chunk.usage) this.usage = toUsage(chunk.usage);
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    const choice = choices.find((c) => (c.index ?? 0) === 0) ?? choices[0];
    if (!choice) return;
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    const delta = (choice.delta ?? {}) as { content?: string | null; reasoning_content?: unknown; reasoning?: unknown; tool_calls?: ToolCallDelta[] | null };
    const reasoning = typeof delta.reasoning_content === "string" ? delta.reasoning_content : typeof delta.reasoning === "string" ? delta.reasoning : "";
    if (reasoning) {
      this.reasoning += reasoning;
      this.send(emit, { type: "reasoning", text: reasoning });
    }
    if (typeof delta.content === "string" && delta.content) {
      this.emit = emit;
      this.splitter.push(delta.content);
    }
    for (const [position, tc] of (delta.tool_calls ?? []).entries()) {
      const index = typeof tc.index === "number" ? tc.index : position;
      let call = this.calls.get(index);
      if (!call) {
        call = { id: "", name: "", arguments: "" };
        this.calls.set(index, call);
      }
      const out: Extract<ChatDelta, { type: "tool_call" }> = { type: "tool_call", index };
      if (tc.id && !call.id) call.id = out.id = tc.id;
      const name = tc.function?.name;
      if (name && !call.name) call.name = out.name = name;
      const args = tc.function?.arguments;
      if (args) {
        call.arguments += args;
        out.arguments_delta = args;
      }
      if (out.id !== undefined || out.name !== undefined || out.arguments_delta !== undefined) this.send(emit, out);
    }
  }

  private send(emit: (d: ChatDelta) => void, d: ChatDelta): void {
    this.emitted = true;
    emit(d);
  }

  /** True once a finish_reason has arrived. */
  get finished(): boolean {
    return this.finishReason !== null;
  }

  /** True when any content, reasoning or tool call has arrived. */
  get hasOutput(): boolean {
    return this.content !== "" || this.reasoning !== "" || this.calls.size > 0;
  }

  /** The stream ended: text held back for a possible `<think>` tag split across chunks is sent. */
  end(emit: (d: ChatDelta) => void): void {
    this.emit = emit;
    this.splitter.end();
  }

  /** What has been assembled so far. */
  result(): ChatResult {
    this.end(() => undefined);
    const seen = new Set<string>();
    const tool_calls: ToolCall[] = [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, c]) => {
        // An id that is missing, empty or already used (LM Studio, llama.cpp) is made, so each result finds its call.
        const id = c.id && !seen.has(c.id) ? c.id : madeCallId(index);
        seen.add(id);
        return { id, type: "function", function: { name: c.name, arguments: c.arguments } };
      });
    const result: ChatResult = { content: this.content, reasoning: this.reasoning, tool_calls, usage: this.usage, finish_reason: this.finishReason, model: this.model };
    if (!tool_calls.length && this.recoverable) {
      const recovered = recoverToolCall(this.content, this.recoverable);
      if (recovered) {
        result.content = "";
        result.tool_calls = [{ id: madeCallId(0), type: "function", function: recovered }];
        result.recovered_tool_calls = true;
      }
    }
    return result;
  }
}

/** A tool call id for a call the endpoint gave none. */
function madeCallId(index: number): string {
  return `call_${index}_${Math.random().toString(36).slice(2, 10)}`;
}

function toUsage(u: NonNullable<ChatCompletionChunk["usage"]>): Usage {
  const prompt = Number(u.prompt_tokens) || 0;
  const completion = Number(u.completion_tokens) || 0;
  const usage: Usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: Number(u.total_tokens) || prompt + completion };
  const reasoning = u.completion_tokens_details?.reasoning_tokens;
  if (typeof reasoning === "number") usage.reasoning_tokens = reasoning;
  const cached = cachedInputTokens(u as Parameters<typeof cachedInputTokens>[0]);
  if (cached !== undefined) usage.cached_tokens = cached;
  return usage;
}

/** The answer grew past {@link MAX_ANSWER_CHARS}. */
export class OversizeAnswer {}

/** Characters of text a chunk adds (content, thinking, tool-call arguments). */
function chunkChars(chunk: ChatCompletionChunk): number {
  let n = 0;
  for (const c of Array.isArray(chunk.choices) ? chunk.choices : []) {
    const d = (c.delta ?? {}) as { content?: unknown; reasoning_content?: unknown; reasoning?: unknown; tool_calls?: Array<{ function?: { arguments?: unknown } }> | null };
    for (const v of [d.content, d.reasoning_content, d.reasoning]) if (typeof v === "string") n += v.length;
    for (const tc of d.tool_calls ?? []) if (typeof tc.function?.arguments === "string") n += tc.function.arguments.length;
  }
  return n;
}
