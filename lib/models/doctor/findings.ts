/**
 * What the connection doctor found, probe by probe (gathered by ./run.ts, read by ./classify.ts),
 * and how a line is made: its message key and placeholders, and the English sentence the command
 * line prints. Pure.
 */
import type { DoctorLine } from "@/lib/contracts/http";
import { translate } from "@/lib/i18n/translate";
import type { MessageKey } from "@/lib/i18n";
import type { ResolvedApiKey } from "../api-key";
import type { ResolvedProvider } from "../providers";
import type { ServerFlag } from "../providers/types";
import type { ProbeSeen } from "./observe";
import type { ModelListSeen } from "./transport";

/** Everything the probes showed; a probe not run is absent. */
export interface Findings {
  key: string;
  /** The base URL as shown (no credentials, no query). */
  url: string;
  model: string;
  thinkingStyle: "none" | "enable_thinking" | "reasoning_effort";
  provider: ResolvedProvider;
  /** How people call the profile's server (`vLLM`). */
  label: string;
  apiKey: Exclude<ResolvedApiKey, { state: "set" | "stored" }> | { state: "set"; env: string } | { state: "stored" };
  timeoutMs: number;
  list: ModelListSeen;
  stream?: ProbeSeen;
  tool?: ProbeSeen;
  /** The server flag the tool probe's refusal names (the profile's `serverFlag`), when it names one. */
  toolFlag?: ServerFlag | null;
  /** The tool probe again with `tool_choice: "required"`, after a refusal naming a flag. */
  toolRequired?: ProbeSeen;
  parallel?: ProbeSeen;
  /** The parallel probe without the profile's `parallel_tool_calls` (only when the profile sends it). */
  parallelUnasked?: ProbeSeen;
  /** The thinking switch the profile sends on and off. */
  switchOn: Record<string, unknown>;
  switchOff: Record<string, unknown>;
  thinkingOn?: ProbeSeen;
  /** True when the profile sends every earlier turn's thinking back (DeepSeek). */
  reasoningBack: boolean;
  /** The tool round trip with thinking on (call, result, answer), when the profile sends thinking back. */
  roundTrip?: ProbeSeen;
  /** A plain answer with `stream_options.include_usage`, when no other probe that asks for usage answered. */
  usageAsked?: ProbeSeen;
}

/** Makes one line; `said` is what the server answered, when the line is about it. */
export function line(check: DoctorLine["check"], status: DoctorLine["status"], message: MessageKey, params: Record<string, string | number> = {}, said?: string): DoctorLine {
  return { check, status, message, params, text: translate("en", message, params), ...(said ? { said } : {}) };
}
