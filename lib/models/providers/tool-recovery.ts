/**
 * Recovering a tool call that a small model wrote as JSON text in `content` instead of as a tool
 * call (common with Ollama, LM Studio and llama.cpp models whose template has no tool syntax):
 * the whole answer must be one well-formed object `{"name": <an offered tool>, "arguments":
 * {…}}` (or `"parameters"`, Llama 3.1's JSON tool format), optionally in a ```json fence, with no
 * other keys. Anything else stays text. Pure.
 *
 * Sources: Llama 3.1's JSON-based tool calling (`{"name": …, "parameters": …}`,
 * https://www.llama.com/docs/model-cards-and-prompt-formats/llama3_1/); Qwen's Hermes-style
 * `{"name": <function-name>, "arguments": <args-json-object>}` (QwenLM/Qwen3 discussion #1300's
 * template).
 */

/** Answers longer than this are not parsed as a call (a call's JSON is far shorter). */
const MAX_RECOVERABLE_CHARS = 200_000;

/** A call recovered from text: `arguments` is JSON text, as a streamed call's would be. */
export interface RecoveredCall {
  name: string;
  arguments: string;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The tool call `content` is, when it is exactly one well-formed call of an offered tool; else null. */
export function recoverToolCall(content: string, offered: ReadonlySet<string>): RecoveredCall | null {
  if (content.length > MAX_RECOVERABLE_CHARS || offered.size === 0) return null;
  let text = content.trim();
  const fenced = /^```(?:json)?\s*\n?([\s\S]*?)\n?```$/.exec(text);
  if (fenced) text = fenced[1]!.trim();
  if (!text.startsWith("{") || !text.endsWith("}")) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isPlainObject(parsed)) return null;
  const keys = Object.keys(parsed);
  const argsKey = keys.includes("arguments") ? "arguments" : keys.includes("parameters") ? "parameters" : null;
  if (!argsKey || keys.length !== 2 || !keys.includes("name")) return null;
  const name = parsed.name;
  if (typeof name !== "string" || !offered.has(name)) return null;
  const args = parsed[argsKey];
  if (isPlainObject(args)) return { name, arguments: JSON.stringify(args) };
  if (typeof args === "string") {
    try {
      if (isPlainObject(JSON.parse(args))) return { name, arguments: args };
    } catch {
      return null;
    }
  }
  return null;
}
