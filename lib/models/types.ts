/**
 * The interface every model implements — the OpenAI-compatible client and the built-in offline
 * model alike — so the runtime never knows which one it is talking to. Pure: no I/O, no secrets,
 * importable from client code.
 */
import { AstrionError } from "@/lib/contracts/errors";
import type { ModelPrices } from "./schema";

/** One message of a chat, in the OpenAI chat-completions shape. */
export interface ChatMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string | null;
  /** Calls the assistant asked for (assistant messages only). */
  tool_calls?: ToolCall[];
  /** The call this message answers (tool messages only). */
  tool_call_id?: string;
  name?: string;
  /**
   * The thinking the assistant gave with this turn (the saved message's `reasoning_content`).
   * Never counted in context budgets; sent back only to providers that require it (DeepSeek).
   */
  reasoning?: string;
}

/** A complete tool call: `arguments` is the JSON text exactly as the model wrote it. */
export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** A tool offered to the model; `parameters` is a JSON Schema object. */
export interface ToolSpec {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** How hard the model should think; mapped to the entry's `thinking_style`. */
export type ThinkingLevel = "off" | "on" | "deep";

/** One model call. */
export interface ChatRequest {
  messages: ChatMessage[];
  tools?: ToolSpec[];
  thinking: ThinkingLevel;
  /** Aborting it ends the call promptly with a `ModelCallError` of reason `aborted`. */
  signal?: AbortSignal;
  /** For logs and tracing only; never sent to the model. */
  meta?: { conversation_id?: string; agent_id?: number | null; trace_id?: string };
}

/**
 * A piece of a streamed answer. Tool-call deltas carry the call's `index`; `id` and `name` come
 * once (usually first), `arguments_delta` pieces are concatenated in order.
 */
export type ChatDelta =
  | { type: "content"; text: string }
  | { type: "reasoning"; text: string }
  | { type: "tool_call"; index: number; id?: string; name?: string; arguments_delta?: string };

/** Token counts of one call, as the endpoint reported them. */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  reasoning_tokens?: number;
  /** The part of `prompt_tokens` the provider served from its cache (lib/models/cost.ts reads it). */
  cached_tokens?: number;
}

/** The registry entry that answered a call and its prices at that moment (null: none, or the offline model). */
export interface AnsweredBy {
  key: string;
  prices: ModelPrices | null;
}

/** The assembled answer of one call. */
export interface ChatResult {
  content: string;
  /** Thinking text (`reasoning_content`), shown collapsed; empty when the model gave none. */
  reasoning: string;
  /** Complete calls ordered by their stream index. */
  tool_calls: ToolCall[];
  /** Null when the endpoint sent no usage chunk. */
  usage: Usage | null;
  finish_reason: string | null;
  /** The provider's model name that answered. */
  model: string;
  /** True when the tool call was recovered from JSON text the model wrote in `content`. */
  recovered_tool_calls?: boolean;
  /**
   * Working notes the model keeps for itself, apart from its text (the built-in offline model's
   * memory of what its tool results showed): saved on the message's metadata as `private_notes`,
   * never shown as message text, and given back in the agent's private slice.
   */
  notes?: string[];
  /**
   * The registry entry that answered (the primary, or its fallback) with its prices, set by the
   * resilience layer (lib/models/resilience.ts); absent from a bare model's result.
   */
  answered_by?: AnsweredBy;
}

/** Anything the runtime can call: the OpenAI-compatible client or the offline model. */
export interface ChatModel {
  /** The registry key, e.g. `qwen3-max` or `offline`. */
  readonly key: string;
  /** What the UI shows as the model's name. */
  readonly label: string;
  /** True for the built-in model that needs no network. */
  readonly offline: boolean;
  /**
   * Runs one call, streaming pieces to `onDelta` as they arrive, and resolves with the whole
   * answer. Rejects with a {@link ModelCallError} only.
   */
  stream(req: ChatRequest, onDelta?: (d: ChatDelta) => void): Promise<ChatResult>;
}

/** Why a model call failed. */
export type ModelCallFailure =
  | "rate_limited"
  | "server"
  | "client"
  | "timeout"
  | "stalled"
  | "aborted"
  | "network"
  | "bad_response";

/** Failures that may succeed when the same call is made again later. */
const RETRYABLE: ReadonlySet<ModelCallFailure> = new Set(["rate_limited", "server", "timeout", "stalled", "network"]);

/** True when a call failing for `reason` may succeed if made again. */
export function isRetryableFailure(reason: ModelCallFailure): boolean {
  return RETRYABLE.has(reason);
}

/** Options of {@link ModelCallError}. */
export interface ModelCallErrorOptions {
  /** HTTP status the endpoint answered with, when it answered. */
  httpStatus?: number;
  /** Defaults to whether the reason is transient ({@link isRetryableFailure}). */
  retryable?: boolean;
  /** What had streamed before the failure; present only when something had. */
  partial?: ChatResult;
  /** Registry key of the model that failed. */
  modelKey?: string;
  /** The server flag the endpoint's refusal says is missing (vLLM's auto tool choice, llama.cpp's `--jinja`). */
  serverFlag?: { server: string; flag: string };
  cause?: unknown;
}

/**
 * A model call that failed. The message is meant for a person (it says how to fix the
 * configuration where that is the cause) and never contains an API key.
 *
 * The endpoint's HTTP status is `httpStatus`, not `status`: `status` is the inherited HTTP status
 * this error would be answered with by a route handler.
 */
export class ModelCallError extends AstrionError {
  static override readonly kind: string = "ModelCallError";
  readonly reason: ModelCallFailure;
  readonly httpStatus?: number;
  readonly retryable: boolean;
  readonly partial?: ChatResult;
  readonly modelKey?: string;
  readonly serverFlag?: { server: string; flag: string };

  constructor(reason: ModelCallFailure, message: string, options: ModelCallErrorOptions = {}) {
    super(
      reason === "rate_limited" ? "rate_limited" : "internal",
      message,
      { reason, http_status: options.httpStatus, model_key: options.modelKey },
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.reason = reason;
    this.httpStatus = options.httpStatus;
    this.retryable = options.retryable ?? isRetryableFailure(reason);
    this.partial = options.partial;
    this.modelKey = options.modelKey;
    this.serverFlag = options.serverFlag;
  }
}
