/**
 * What the connection doctor sends: a tiny probe tool, tiny prompts, and each probe's request
 * body, built by the model client's own request builder with the entry's provider profile (the
 * thinking switch, `tool_choice`, `parallel_tool_calls`, the system role, thinking sent back), plus
 * a small token limit. Pure.
 */
import { quirksOf, type ProviderQuirks } from "../providers";
import { buildRequestBody } from "../request";
import type { ModelEntry, ProviderProfile } from "../schema";
import type { ChatMessage, ThinkingLevel, ToolCall, ToolSpec } from "../types";
import { z } from "zod";

/** The probe tool: one string argument, nothing else. */
/** The probe tool's arguments; its JSON Schema is generated from them, as every tool's is. */
const ProbeArgsSchema = z.strictObject({ word: z.string().describe("the word to echo") });
const probeParameters: Record<string, unknown> = z.toJSONSchema(ProbeArgsSchema, { io: "input" });
delete probeParameters.$schema;

export const PROBE_TOOL: ToolSpec = {
  type: "function",
  function: {
    name: "astrion_probe",
    description: "Connection test of Astrion Team: echoes one word.",
    parameters: probeParameters,
  },
};

/** The system prompt of every probe. */
export const PROBE_SYSTEM = "You are being tested by Astrion Team's connection doctor. Do exactly what the user asks, as briefly as possible.";
/** A plain answer (the stream check, the thinking switch). */
const TEXT_PROMPT = "Connection test: what is 17 + 25? Answer with the number only.";
/** One tool call. */
export const TOOL_PROMPT = 'Connection test: call the tool astrion_probe once with {"word": "ping"}. Write no text.';
/** Two tool calls in one answer. */
export const PARALLEL_PROMPT = 'Connection test: call the tool astrion_probe twice in this one answer, in parallel: once with {"word": "alpha"} and once with {"word": "beta"}. Write no text.';
/** What the probe tool "returns" in the round trip. */
const PROBE_RESULT = '{"echo": "ping"}';

/** Tokens a probe may produce: enough for a short thinking and a call, never a long answer. */
const TEXT_TOKENS = 256;
const TOOL_TOKENS = 1024;

/** One probe's body, as the app would send it plus a token limit. */
export type ProbeBody = Record<string, unknown>;

function withLimit(profile: ProviderProfile, body: Record<string, unknown>, tokens: number): ProbeBody {
  // OpenAI's reasoning models refuse `max_tokens` ("Use 'max_completion_tokens' instead").
  return { ...body, [profile === "openai" ? "max_completion_tokens" : "max_tokens"]: tokens };
}

function messages(prompt: string): ChatMessage[] {
  return [
    { role: "system", content: PROBE_SYSTEM },
    { role: "user", content: prompt },
  ];
}

/** The bodies of every probe for `entry` served by `profile`. */
export function probeBodies(entry: ModelEntry, profile: ProviderProfile) {
  const quirks: ProviderQuirks = quirksOf(profile);
  const body = (msgs: ChatMessage[], thinking: ThinkingLevel, tools: boolean, tokens: number) =>
    withLimit(profile, buildRequestBody(entry, { messages: msgs, thinking, ...(tools ? { tools: [PROBE_TOOL] } : {}) }, quirks) as unknown as Record<string, unknown>, tokens);
  const toolParams = quirks.toolParams(entry);
  return {
    /** A plain answer, without `stream_options` (does usage come unasked?). */
    stream(): ProbeBody {
      const sent = body(messages(TEXT_PROMPT), "off", false, TEXT_TOKENS);
      delete sent.stream_options;
      return sent;
    },
    /** One call of the probe tool, as the app asks for calls. */
    tool(thinking: ThinkingLevel = "off"): ProbeBody {
      return body(messages(TOOL_PROMPT), thinking, true, TOOL_TOKENS);
    },
    /** One call with `tool_choice: "required"`: do tools work when auto tool choice is refused? */
    toolRequired(): ProbeBody {
      return { ...body(messages(TOOL_PROMPT), "off", true, TOOL_TOKENS), tool_choice: "required" };
    },
    /** Two calls in one answer, as the app asks; `asked: false` leaves out the profile's `parallel_tool_calls`. */
    parallel(asked = true): ProbeBody {
      const sent = body(messages(PARALLEL_PROMPT), "off", true, TOOL_TOKENS);
      if (!asked) delete sent.parallel_tool_calls;
      return sent;
    },
    /** True when the profile asks for parallel calls itself (so the unasked variant differs). */
    asksParallel: "parallel_tool_calls" in toolParams,
    /** A plain answer with thinking at `level`. */
    thinking(level: ThinkingLevel): ProbeBody {
      return body(messages(TEXT_PROMPT), level, false, TEXT_TOKENS);
    },
    /** The round trip with thinking on: the call, its result, the answer (DeepSeek wants the thinking back). */
    roundTrip(call: ToolCall, reasoning: string): ProbeBody {
      const msgs: ChatMessage[] = [
        ...messages(TOOL_PROMPT),
        { role: "assistant", content: null, tool_calls: [call], reasoning },
        { role: "tool", content: PROBE_RESULT, tool_call_id: call.id },
      ];
      return body(msgs, "on", true, TOOL_TOKENS);
    },
    /** The thinking switch the profile sends at each level (equal when the model has none). */
    switchOn: quirks.thinkingParams(entry, "on"),
    switchOff: quirks.thinkingParams(entry, "off"),
    reasoningBack: quirks.reasoningBack,
    recovers: quirks.recoversTextToolCalls,
  };
}

/** The probe bodies of one entry. */
export type ProbeBodies = ReturnType<typeof probeBodies>;
