/**
 * A fake llama.cpp `llama-server` (`/v1/models` answers `owned_by: "llamacpp"` with its `meta`).
 * "Started" without `--jinja` it answers any request with `tools` 500 `{"error":{"code":500,
 * "message":"tools param requires --jinja flag","type":"server_error"}}`; with it, an answer's
 * tool calls come in one final chunk with no `id` at all, and the thinking inline as `<think>`
 * (no `--reasoning-format`).
 *
 * Sources: ggml-org/llama.cpp tools/server/utils.hpp (`throw std::runtime_error("tools param
 * requires --jinja flag")`, thrown while the request is parsed, before any streaming), the 500
 * body as clients log it (e.g. `{"error":{"code":500,"message":"tools param requires --jinja
 * flag","type":"server_error"}}` in a llama-server Lua client), tools/server/server.cpp
 * (`{"owned_by", "llamacpp"}`), tools/server/README.md (`--jinja`, `--reasoning-format`).
 */
import { fakeError, startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai";
import { turnFor } from "./scenario";
import { llamaEngineStream } from "./wire";

/** Starts the fake llama-server, "started" with or without `--jinja`. */
export function startLlamaCppFake(options: { jinja: boolean }): Promise<FakeOpenAI> {
  return startFakeOpenAI({
    modelList: { object: "list", data: [{ id: "qwen3-4b-q4_k_m.gguf", object: "model", created: 1750000000, owned_by: "llamacpp", meta: { vocab_type: 2, n_ctx_train: 40960 } }] },
    script: (body) => {
      if (body.tools?.length && !options.jinja) return fakeError(500, { body: { error: { code: 500, message: "tools param requires --jinja flag", type: "server_error" } } });
      return llamaEngineStream(body, turnFor(body, "llamacpp", true), () => ({}));
    },
  });
}
