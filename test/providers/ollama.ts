/**
 * A fake Ollama (`/v1`, the OpenAI-compatible API) serving a small Qwen3. Each chunk carries
 * `system_fingerprint: "fp_ollama"` and a delta with `role` and `content`; the thinking streams as
 * `delta.reasoning` (newer Ollama) or, "older", inline `<think>` in `content`; all tool calls of
 * an answer come in one chunk; the usage chunk (`choices: []`) is sent only when the request sets
 * `stream_options.include_usage`. The thinking switch is `reasoning_effort` (`"none"` turns it
 * off; without it Qwen3 thinks). The small model writes its first tool call of a task as JSON
 * text in `content` instead of as a tool call.
 *
 * Sources: https://github.com/ollama/ollama/blob/main/docs/openai.md; ollama/ollama
 * openai/openai.go (`Reasoning string json:"reasoning,omitempty"`, `SystemFingerprint:
 * "fp_ollama"`, usage only with include_usage), quoted in openai/openai-dotnet#813;
 * ollama/ollama#12004 and #14820 (reasoning_effort "none"), as reported in aictrl-dev/cli#75.
 */
import { startFakeOpenAI, type FakeOpenAI, type FakeRequestBody, type Script } from "../helpers/fake-openai";
import { calledBefore, isLeader, turnFor, type Turn } from "./scenario";
import { chunks, pieces, raw, usage } from "./wire";

function stream(body: FakeRequestBody, turn: Turn, inlineThink: boolean): Script {
  const chunk = chunks(body, { system_fingerprint: "fp_ollama" });
  const events: Array<Record<string, unknown>> = [];
  let chars = 0;
  if (turn.reasoning && !inlineThink) {
    for (const p of pieces(turn.reasoning)) {
      chars += p.length;
      events.push(chunk({ role: "assistant", content: "", reasoning: p }));
    }
  }
  const inline = turn.reasoning && inlineThink ? `<think>\n${turn.reasoning}\n</think>\n\n` : "";
  for (const p of pieces(inline + (turn.content ?? ""), 4)) {
    chars += p.length;
    events.push(chunk({ role: "assistant", content: p }));
  }
  if (turn.calls?.length) {
    events.push(
      chunk({
        role: "assistant",
        content: "",
        tool_calls: turn.calls.map((c, index) => ({ id: `call_${Math.random().toString(36).slice(2, 10)}`, index, type: "function", function: { name: c.name, arguments: JSON.stringify(c.arguments) } })),
      }),
    );
  }
  events.push(chunk({ role: "assistant", content: "" }, turn.calls?.length ? "tool_calls" : "stop"));
  if (body.stream_options?.include_usage) events.push(chunk(null, null, { usage: usage(body, chars) }));
  return raw(events);
}

/** Starts the fake Ollama; `inlineThink` makes it an older build that writes `<think>` inline. */
export function startOllamaFake(options: { inlineThink?: boolean } = {}): Promise<FakeOpenAI> {
  return startFakeOpenAI({
    modelList: { object: "list", data: [{ id: "qwen3:1.7b", object: "model", created: 1750000000, owned_by: "library" }] },
    script: (body) => {
      const thinking = body.reasoning_effort !== "none";
      const turn = turnFor(body, "ollama", thinking);
      // The small model writes the agent's first call as JSON text.
      if (!isLeader(body) && calledBefore(body, "list_files") === 0 && turn.calls?.length === 1) {
        const [call] = turn.calls;
        return stream(body, { reasoning: turn.reasoning, content: JSON.stringify({ name: call!.name, arguments: call!.arguments }) }, options.inlineThink ?? false);
      }
      return stream(body, turn, options.inlineThink ?? false);
    },
  });
}
