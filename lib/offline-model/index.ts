/**
 * The built-in offline model (SPEC §4): a deterministic stand-in for an OpenAI-compatible model,
 * behind the same {@link ChatModel} interface, so demos and browser tests run a convincing team
 * without any network. It decides who it is from the tools it is offered (`create_sub_agent` →
 * Team Leader, `report_to_leader` → sub-agent), reads the conversation to see how far the work has
 * got, and streams its answer in small pieces with a short pause between them, like a real model.
 *
 * It never touches files: it only asks for tool calls, and the runtime feeds the results back.
 */
import { formatAgentMessage, parseAgentMessage } from "@/lib/contracts/messages";
import { ModelCallError, type ChatDelta, type ChatMessage, type ChatModel, type ChatRequest, type ChatResult, type ToolCall } from "@/lib/models/types";
import { textOf, toolNames, type OfflineDecision } from "./history";
import { decideLeader } from "./leader";
import { GLOBAL_HEADING, PRIVATE_NOTES_HEADING } from "@/lib/context/lines";
import { decideSubAgent } from "./sub-agent";
import { chunkArguments, chunkText, clip, hashText } from "./text";

export { ASK_ME_SENTENCE } from "./text";
export type { OfflineDecision } from "./history";

/** The provider model name the offline model answers as. */
export const OFFLINE_MODEL_NAME = "astrion-offline";
/** What the UI shows as the offline model's name. */
export const OFFLINE_MODEL_LABEL = "Offline (built-in)";
/** Pause between streamed pieces when neither the options nor `ASTRION_OFFLINE_DELAY_MS` say otherwise. */
export const DEFAULT_OFFLINE_DELAY_MS = 25;

/** Options of {@link createOfflineModel}. */
export interface OfflineModelOptions {
  /**
   * Milliseconds between streamed pieces. Default: `ASTRION_OFFLINE_DELAY_MS` from the environment,
   * else {@link DEFAULT_OFFLINE_DELAY_MS}. 0 streams without waiting (unit tests).
   */
  delayMs?: number;
}

function envDelay(): number {
  // `process` is absent when this module is bundled for the browser; the default applies there.
  const raw = typeof process !== "undefined" ? process.env.ASTRION_OFFLINE_DELAY_MS : undefined;
  const n = raw === undefined || raw.trim() === "" ? NaN : Number(raw);
  return Number.isFinite(n) && n >= 0 ? n : DEFAULT_OFFLINE_DELAY_MS;
}

/** A plain chat without team tools: say what this model is, and answer briefly. */
function decideChat(req: ChatRequest): OfflineDecision {
  const last = [...req.messages].reverse().find((m) => m.role === "user");
  const said = clip(textOf(last), 160);
  return {
    reasoning: "No team tools are offered, so this is a plain chat; I answer plainly.",
    content: said
      ? `I am the built-in offline model. I plan and run team work through tools, and none are offered here, so I can only acknowledge your message: "${said}".`
      : "I am the built-in offline model. Give me a goal and the team tools, and I'll plan the work.",
    toolCalls: [],
  };
}

/**
 * Characters of one message text the offline model reads. Its heuristics (word matching, line
 * patterns) are meant for goals and reports, not for a 100,000-character message, and bounded
 * input keeps every decision fast whatever a person or another model wrote.
 */
const OFFLINE_READ_CHARS = 4000;

/** `text` cut to {@link OFFLINE_READ_CHARS}; an inter-agent message keeps its seed header and trailer, so it still parses. */
function readable(text: string): string {
  if (text.length <= OFFLINE_READ_CHARS) return text;
  const msg = parseAgentMessage(text);
  if (msg) return formatAgentMessage(msg.kind, msg.sender, msg.id, msg.body.slice(0, OFFLINE_READ_CHARS));
  return text.slice(0, OFFLINE_READ_CHARS);
}

/** Characters of the slices (the global slice and the private notes, at the end of the system message) the offline model reads. */
const OFFLINE_NOTES_CHARS = 16_000;

/**
 * The request as the offline model reads it: texts of person, system and assistant messages
 * bounded (tool results are JSON the model parses; the runtime caps them). The system message
 * keeps its start and its slices, which come last (after a role's long prompt): the sub-agent's
 * progress lives in its private notes, the leader's team in a promoted conclusion.
 */
function boundedRequest(req: ChatRequest): ChatRequest {
  const messages = req.messages.map((m): ChatMessage => {
    if (m.role === "tool" || typeof m.content !== "string" || m.content.length <= OFFLINE_READ_CHARS) return m;
    // the slices come last, after the prompt: from the first slice heading on
    const slicesAt = m.role === "system" ? [m.content.lastIndexOf(GLOBAL_HEADING), m.content.lastIndexOf(PRIVATE_NOTES_HEADING)].filter((i) => i >= 0).sort((a, b) => a - b)[0] ?? -1 : -1;
    const slices = slicesAt >= OFFLINE_READ_CHARS ? `\n\n${m.content.slice(slicesAt, slicesAt + OFFLINE_NOTES_CHARS)}` : "";
    return { ...m, content: readable(m.content) + slices };
  });
  return { ...req, messages };
}

/**
 * Decides the whole answer to a request, without streaming: the Team Leader's, a sub-agent's, or a
 * plain chat reply. Pure and deterministic — the same request always gives the same decision.
 */
export function decideOffline(req: ChatRequest): OfflineDecision {
  const names = toolNames(req.tools);
  const bounded = boundedRequest(req);
  if (names.has("create_sub_agent")) return decideLeader(bounded);
  if (names.has("report_to_leader")) return decideSubAgent(bounded);
  return decideChat(bounded);
}

/** A stable fingerprint of the conversation so far; tool-call ids derive from it. */
function requestKey(req: ChatRequest): string {
  return JSON.stringify(
    req.messages.map((m) => [m.role, m.content, m.tool_call_id ?? null, m.tool_calls?.map((t) => [t.id, t.function.name, t.function.arguments]) ?? null]),
  );
}

/**
 * The id of the `index`-th tool call of an answer. Deterministic; unique within a conversation
 * because the message count grows with every call (the hash alone could collide). `key` is the
 * conversation's fingerprint, when the caller has already computed it.
 */
function offlineToolCallId(req: ChatRequest, index: number, key = hashText(requestKey(req))): string {
  return `call_off_${hashText(`${key}#${index}`)}_${req.messages.length}_${index}`;
}

function messageChars(req: ChatRequest): number {
  let n = 0;
  for (const m of req.messages) {
    n += textOf(m).length;
    for (const t of m.tool_calls ?? []) n += t.function.name.length + t.function.arguments.length;
  }
  return n;
}

class AbortedSignal {}

/**
 * Answering with no delay, the model still gives the event loop back now and then, as an answer
 * read from a socket does: at the start of every answer and after every {@link YIELD_EVERY_MS} of
 * streaming. Without it a run on the offline model, whose tools may answer at once as well, can
 * be one chain of promise callbacks from answer to answer, holding every other request until it
 * ends (a leader handed a 100,000-character message held the loop for over a second).
 */
const YIELD_EVERY_MS = 5;

/** Resolves on a later turn of the event loop (`setImmediate`; a timer where there is none, in the browser). */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => (typeof setImmediate === "function" ? setImmediate(resolve) : setTimeout(resolve, 0)));
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new AbortedSignal());
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AbortedSignal());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Creates the built-in offline model. `stream` streams an optional short `reasoning` (unless
 * `thinking` is "off"), then content a few words at a time, then tool calls (id and name first,
 * then `arguments_delta` pieces), pausing `delayMs` between pieces; aborting `req.signal` rejects
 * promptly with a {@link ModelCallError} of reason `aborted` carrying what had streamed.
 */
export function createOfflineModel(key = "offline", opts: OfflineModelOptions = {}): ChatModel {
  return {
    key,
    label: OFFLINE_MODEL_LABEL,
    offline: true,
    async stream(req: ChatRequest, onDelta?: (d: ChatDelta) => void): Promise<ChatResult> {
      const delayMs = opts.delayMs ?? envDelay();
      const result: ChatResult = { content: "", reasoning: "", tool_calls: [], usage: null, finish_reason: null, model: OFFLINE_MODEL_NAME };
      let emitted = false;
      await nextTurn();
      let sliceStarted = performance.now();
      const aborted = () =>
        new ModelCallError("aborted", "The offline model call was stopped.", {
          modelKey: key,
          partial: emitted ? { ...result, tool_calls: result.tool_calls.map((t) => ({ ...t, function: { ...t.function } })) } : undefined,
        });
      const emit = async (d: ChatDelta) => {
        if (req.signal?.aborted) throw aborted();
        onDelta?.(d);
        emitted = true;
        if (delayMs > 0) {
          try {
            await sleep(delayMs, req.signal);
          } catch (error) {
            if (error instanceof AbortedSignal) throw aborted();
            throw error;
          }
        } else if (performance.now() - sliceStarted > YIELD_EVERY_MS) {
          await nextTurn();
          sliceStarted = performance.now();
          if (req.signal?.aborted) throw aborted();
        }
      };

      if (req.signal?.aborted) throw aborted();
      const decision = decideOffline(req);
      if (req.thinking !== "off" && decision.reasoning) {
        for (const text of chunkText(decision.reasoning)) {
          result.reasoning += text;
          await emit({ type: "reasoning", text });
        }
      }
      for (const text of chunkText(decision.content)) {
        result.content += text;
        await emit({ type: "content", text });
      }
      // The conversation's fingerprint is computed once per answer, not once per tool call.
      const fingerprint = decision.toolCalls.length ? hashText(requestKey(req)) : "";
      for (const [index, tc] of decision.toolCalls.entries()) {
        const call: ToolCall = { id: offlineToolCallId(req, index, fingerprint), type: "function", function: { name: tc.name, arguments: "" } };
        result.tool_calls.push(call);
        await emit({ type: "tool_call", index, id: call.id, name: call.function.name });
        for (const piece of chunkArguments(JSON.stringify(tc.args))) {
          call.function.arguments += piece;
          await emit({ type: "tool_call", index, arguments_delta: piece });
        }
      }
      if (req.signal?.aborted) throw aborted();
      if (decision.notes?.length) result.notes = [...decision.notes];

      const outputChars =
        result.content.length + result.reasoning.length + result.tool_calls.reduce((n, t) => n + t.function.name.length + t.function.arguments.length, 0);
      const prompt = Math.ceil(messageChars(req) / 4);
      const completion = Math.ceil(outputChars / 4);
      result.usage = {
        prompt_tokens: prompt,
        completion_tokens: completion,
        total_tokens: prompt + completion,
        ...(result.reasoning ? { reasoning_tokens: Math.ceil(result.reasoning.length / 4) } : {}),
      };
      result.finish_reason = result.tool_calls.length > 0 ? "tool_calls" : "stop";
      return result;
    },
  };
}
