/**
 * A chat model for unit tests of the engine: an object implementing `ChatModel` (no HTTP), whose
 * every answer comes from a script called per model call with what the engine sent. It records
 * each call (who made it: the leader or agent n, the messages, the tools offered, the signal),
 * streams the answer's text and tool calls as deltas as a real client does, counts usage, and can
 * hang a call until the engine aborts it (the partial text is then handed back, as the OpenAI
 * client does). Tests wait for a call with {@link ScriptedModel.waitFor}, never with a sleep.
 */
import { ModelCallError, type AnsweredBy, type ChatDelta, type ChatMessage, type ChatModel, type ChatRequest, type ChatResult, type ToolCall, type Usage } from "@/lib/models/types";

/** One call the engine made. */
export interface ModelCall {
  /** 1, 2, 3… in the order the calls were made. */
  readonly n: number;
  /** null for the Team Leader, else the sub-agent's id (from the request's meta). */
  readonly agentId: number | null;
  readonly messages: ChatMessage[];
  /** The names of the tools offered. */
  readonly tools: string[];
  readonly signal: AbortSignal | undefined;
}

/** A tool call of a scripted answer; the id defaults to `call_<n>_<index>`, unique in the run. */
interface ScriptedToolCall {
  id?: string;
  name: string;
  /** JSON-encoded unless a string (sent as it is). */
  arguments: unknown;
}

/** What the script answers a call with. */
export type Reply =
  | {
      content?: string;
      reasoning?: string;
      tool_calls?: ScriptedToolCall[];
      /** The call's token counts (default 10 in, 5 out). */
      usage?: Usage;
      /** Who answered, as the resilience layer stamps it (absent from a bare model's answer). */
      answered_by?: AnsweredBy;
    }
  /** Streams `partial`, then waits until the call is aborted (forever if it never is). */
  | { hang: true; partial?: string };

export type Script = (call: ModelCall) => Reply | Promise<Reply>;

const USAGE = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };

function result(content: string, reasoning: string, toolCalls: ToolCall[]): ChatResult {
  return { content, reasoning, tool_calls: toolCalls, usage: { ...USAGE }, finish_reason: toolCalls.length ? "tool_calls" : "stop", model: "scripted-model" };
}

function aborted(key: string, partial?: ChatResult): ModelCallError {
  return new ModelCallError("aborted", `The call to model "${key}" was stopped.`, { modelKey: key, ...(partial ? { partial } : {}) });
}

/** Resolves with `value`, or rejects once `signal` aborts, whichever comes first. */
function unlessAborted<T>(value: T | Promise<T>, signal: AbortSignal | undefined, error: () => Error): Promise<T> {
  if (!signal) return Promise.resolve(value);
  if (signal.aborted) return Promise.reject(error());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(error());
    signal.addEventListener("abort", onAbort, { once: true });
    Promise.resolve(value).then(
      (v) => (signal.removeEventListener("abort", onAbort), resolve(v)),
      (e: unknown) => (signal.removeEventListener("abort", onAbort), reject(e as Error)),
    );
  });
}

export class ScriptedModel implements ChatModel {
  readonly key = "scripted";
  readonly label = "Scripted (tests)";
  readonly offline = false;
  readonly calls: ModelCall[] = [];
  /** Calls whose answer was handed back (not aborted, not hanging). */
  readonly answered: ModelCall[] = [];
  script: Script;
  readonly #waiters: Array<{ test: (c: ModelCall) => boolean; resolve: (c: ModelCall) => void }> = [];

  constructor(script: Script) {
    this.script = script;
  }

  /** The first call (made already or to come) for which `test` holds. */
  waitFor(test: (c: ModelCall) => boolean): Promise<ModelCall> {
    const made = this.calls.find(test);
    if (made) return Promise.resolve(made);
    return new Promise((resolve) => this.#waiters.push({ test, resolve }));
  }

  /** The calls of the leader (null) or of one agent. */
  callsOf(agentId: number | null): ModelCall[] {
    return this.calls.filter((c) => c.agentId === agentId);
  }

  async stream(req: ChatRequest, onDelta?: (d: ChatDelta) => void): Promise<ChatResult> {
    const call: ModelCall = {
      n: this.calls.length + 1,
      agentId: req.meta?.agent_id ?? null,
      messages: structuredClone(req.messages),
      tools: (req.tools ?? []).map((t) => t.function.name),
      signal: req.signal,
    };
    this.calls.push(call);
    for (const w of this.#waiters.filter((x) => x.test(call))) {
      this.#waiters.splice(this.#waiters.indexOf(w), 1);
      w.resolve(call);
    }
    const reply = await unlessAborted(this.script(call), req.signal, () => aborted(this.key));
    if ("hang" in reply) {
      const partial = reply.partial ? result(reply.partial, "", []) : undefined;
      if (reply.partial) onDelta?.({ type: "content", text: reply.partial });
      return unlessAborted(new Promise<ChatResult>(() => undefined), req.signal, () => aborted(this.key, partial));
    }
    const toolCalls: ToolCall[] = (reply.tool_calls ?? []).map((t, i) => ({
      id: t.id ?? `call_${call.n}_${i}`,
      type: "function",
      function: { name: t.name, arguments: typeof t.arguments === "string" ? t.arguments : JSON.stringify(t.arguments) },
    }));
    if (reply.reasoning) onDelta?.({ type: "reasoning", text: reply.reasoning });
    if (reply.content) onDelta?.({ type: "content", text: reply.content });
    toolCalls.forEach((t, index) => {
      onDelta?.({ type: "tool_call", index, id: t.id, name: t.function.name });
      onDelta?.({ type: "tool_call", index, arguments_delta: t.function.arguments });
    });
    this.answered.push(call);
    const answer = result(reply.content ?? "", reply.reasoning ?? "", toolCalls);
    if (reply.usage) answer.usage = { ...reply.usage };
    if (reply.answered_by) answer.answered_by = reply.answered_by;
    return answer;
  }
}

// ---------------------------------------------------------------- reading a call

/** The last message the model was sent. */
export function lastMessage(call: ModelCall): ChatMessage {
  return call.messages[call.messages.length - 1]!;
}

/** Whether the model had already asked for `name` in this conversation. */
export function hasCalled(call: ModelCall, name: string): boolean {
  return call.messages.some((m) => m.role === "assistant" && (m.tool_calls ?? []).some((c) => c.function.name === name));
}

/** How many reports (`…的任务完成汇报`) the leader was sent. */
export function reportsSeen(call: ModelCall): number {
  return call.messages.filter((m) => m.role === "user" && String(m.content ?? "").includes("的任务完成汇报\nid: ")).length;
}

/** The result the model was sent for its last tool call named `name`, parsed, if any. */
export function lastResultOf(call: ModelCall, name: string): Record<string, unknown> | undefined {
  const ids = call.messages.flatMap((m) => (m.role === "assistant" ? (m.tool_calls ?? []) : [])).filter((c) => c.function.name === name).map((c) => c.id);
  const result = [...call.messages].reverse().find((m) => m.role === "tool" && ids.includes(m.tool_call_id ?? ""));
  return result ? (JSON.parse(String(result.content)) as Record<string, unknown>) : undefined;
}

/** A reply asking for one tool call. */
export function callTool(name: string, args: unknown, id?: string): Reply {
  return { tool_calls: [{ name, arguments: args, ...(id ? { id } : {}) }] };
}
