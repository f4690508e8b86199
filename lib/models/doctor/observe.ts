/**
 * What one streamed probe showed, read from its raw chunks: the answer as the model client
 * assembles it (the stream reader itself: `<think>` split off, ids made, JSON-text calls
 * recovered when the profile does) and the wire facts behind it that the doctor reports — where
 * the thinking came (a field or inline), whether tool-call ids were missing, whether every call
 * came in the one final chunk, whether usage was sent. Pure.
 */
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { StreamAccumulator } from "../stream";
import type { ChatResult } from "../types";

/** A probe that answered with a stream. */
export interface StreamSeen {
  kind: "stream";
  chunks: number;
  /** The answer as the app reads it. */
  result: ChatResult;
  /** Where the thinking came: a `reasoning_content`/`reasoning` field, inline `<think>` in `content`, or none. */
  reasoningVia: "field" | "inline" | null;
  /** A tool call came with its id missing, empty or repeated (the app makes one). */
  idsMade: boolean;
  /** Every tool call came in the chunk that carried the finish reason. */
  callsInFinalChunk: boolean;
  /** A usage chunk arrived. */
  usage: boolean;
}

/** A probe the server did not answer with a stream. */
export interface ProbeFailure {
  kind: "failed";
  /** `down`: no connection; `timeout`: no answer in time; `http`: an error status; `no_stream`: an answer that was no stream. */
  reason: "down" | "timeout" | "http" | "no_stream";
  status?: number;
  /** What the server said (secrets removed, shortened). */
  said: string;
}

/** What one chat probe showed. */
export type ProbeSeen = StreamSeen | ProbeFailure;

type RawDelta = { content?: unknown; reasoning_content?: unknown; reasoning?: unknown; tool_calls?: Array<{ id?: unknown; index?: unknown }> | null };

/** Reads a probe's chunks as they arrive; {@link ProbeObserver.seen} gives the observation. */
export class ProbeObserver {
  readonly #acc: StreamAccumulator;
  #chunks = 0;
  #field = false;
  #rawContent = "";
  #usage = false;
  #callChunks = 0;
  #callsWithFinish = false;
  #finished = false;
  readonly #ids = new Map<number, string>();

  /** `recover`: the offered tools whose JSON-text calls are recovered (when the profile recovers them). */
  constructor(model: string, recover?: ReadonlySet<string>) {
    this.#acc = new StreamAccumulator(model, { recoverToolsNamed: recover });
  }

  /** Takes one chunk. */
  add(chunk: ChatCompletionChunk): void {
    this.#chunks += 1;
    this.#acc.add(chunk, () => undefined);
    if (chunk.usage) this.#usage = true;
    const choice = (Array.isArray(chunk.choices) ? chunk.choices : [])[0];
    if (!choice) return;
    if (choice.finish_reason) this.#finished = true;
    const delta = (choice.delta ?? {}) as RawDelta;
    if ((typeof delta.reasoning_content === "string" && delta.reasoning_content) || (typeof delta.reasoning === "string" && delta.reasoning)) this.#field = true;
    if (typeof delta.content === "string" && this.#rawContent.length < 10_000) this.#rawContent += delta.content;
    const calls = delta.tool_calls ?? [];
    if (calls.length) {
      this.#callChunks += 1;
      if (choice.finish_reason) this.#callsWithFinish = true;
    }
    for (const [position, call] of calls.entries()) {
      const index = typeof call.index === "number" ? call.index : position;
      if (typeof call.id === "string" && call.id && !this.#ids.has(index)) this.#ids.set(index, call.id);
    }
  }

  /** True once a finish reason has arrived. */
  get finished(): boolean {
    return this.#finished;
  }

  /** What the probe showed. */
  seen(): StreamSeen {
    const result = this.#acc.result();
    const sent = [...this.#ids.values()];
    const idsMade = result.tool_calls.length > 0 && !result.recovered_tool_calls && (sent.length < result.tool_calls.length || new Set(sent).size < sent.length);
    const inline = /<\/?think>/.test(this.#rawContent);
    return {
      kind: "stream",
      chunks: this.#chunks,
      result,
      reasoningVia: this.#field ? "field" : inline ? "inline" : null,
      idsMade,
      callsInFinalChunk: this.#callChunks === 1 && this.#callsWithFinish,
      usage: this.#usage,
    };
  }
}
