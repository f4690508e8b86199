/**
 * What a provider profile is: the documented quirks of one OpenAI-compatible server that the
 * request builder (lib/models/request.ts) and the stream reader (lib/models/stream.ts) follow, and
 * what a guess of an entry's profile says. Pure: no I/O, importable from client code.
 */
import type { ModelEntry, ProviderProfile } from "../schema";
import type { ThinkingLevel } from "../types";

/** A server flag a refusal names, e.g. vLLM's `--enable-auto-tool-choice`. */
export interface ServerFlag {
  /** The server that needs restarting, as people know it (`vLLM`, `llama.cpp server`). */
  server: string;
  /** The flags to start it with, e.g. `--enable-auto-tool-choice --tool-call-parser <parser>`. */
  flag: string;
}

/**
 * One provider's behaviour. Every function is pure and cheap: it runs once per model call.
 * `generic` is plain OpenAI-compatible behaviour (what the app did before profiles).
 */
export interface ProviderQuirks {
  readonly name: ProviderProfile;
  /** How people call the server (`vLLM`, `LM Studio`). */
  readonly label: string;
  /** Body fields that switch thinking for the entry's `thinking_style` at `level` ({} for none). */
  thinkingParams(entry: ModelEntry, level: ThinkingLevel): Record<string, unknown>;
  /** Body fields added when tools are offered (`tool_choice`, `parallel_tool_calls`). */
  toolParams(entry: ModelEntry): Record<string, unknown>;
  /** The role the system prompt is sent with (OpenAI's reasoning models take `developer`). */
  systemRole(entry: ModelEntry): "system" | "developer";
  /** True when every earlier assistant turn must carry its thinking back as `reasoning_content`. */
  readonly reasoningBack: boolean;
  /** True when a tool call written as JSON text in `content` is recovered as a tool call. */
  readonly recoversTextToolCalls: boolean;
  /** The server flag an error answer (HTTP status and message) says is missing, or null. */
  serverFlag(status: number | undefined, message: string): ServerFlag | null;
}

/** Where an entry's profile came from. */
type ProviderSource = "named" | "base_url" | "server" | "default";

/** An entry's profile and why: `detail` is the host, port or the server's answer that decided it. */
export interface ResolvedProvider {
  profile: ProviderProfile;
  source: ProviderSource;
  detail: string;
}
