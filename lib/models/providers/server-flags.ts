/**
 * Refusals that name a server flag, read from the error text the server sends back. Pure.
 *
 * Sources:
 * - vLLM, 400 `{"error": {"message": "\"auto\" tool choice requires --enable-auto-tool-choice and
 *   --tool-call-parser to be set", "type": "BadRequestError", "param": null, "code": 400}}`
 *   (vllm/entrypoints/openai/serving_chat.py; docs.vllm.ai/en/latest/features/tool_calling.html).
 * - llama.cpp server without `--jinja`, 500 `{"error": {"code": 500, "message": "tools param
 *   requires --jinja flag", "type": "server_error"}}` (tools/server/utils.hpp
 *   `oaicompat_chat_params_parse`); LM Studio runs the same engine for GGUF models.
 */
import type { ServerFlag } from "./types";

const VLLM_AUTO_TOOL_CHOICE = /"auto" tool choice requires --enable-auto-tool-choice/i;
const LLAMA_CPP_JINJA = /requires --jinja/i;

/** vLLM's refusal of `tool_choice: "auto"` when started without auto tool choice. */
export function vllmToolChoiceFlag(message: string): ServerFlag | null {
  return VLLM_AUTO_TOOL_CHOICE.test(message) ? { server: "vLLM", flag: "--enable-auto-tool-choice --tool-call-parser <parser>" } : null;
}

/** llama.cpp's refusal of `tools` when started without Jinja templates (`server` names who runs it). */
export function jinjaFlag(message: string, server = "llama.cpp server"): ServerFlag | null {
  return LLAMA_CPP_JINJA.test(message) ? { server, flag: "--jinja" } : null;
}

/** Either refusal, for servers whose engine is not known (`generic`). */
export function anyServerFlag(message: string): ServerFlag | null {
  return vllmToolChoiceFlag(message) ?? jinjaFlag(message);
}
