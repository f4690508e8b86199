/**
 * A fake LM Studio server (port 1234 by default; `/v1/models` answers `owned_by:
 * "organization_owner"`) serving a Qwen3 GGUF: thinking inline as `<think>` in `content`; an
 * answer's tool calls in ONE final chunk together with the finish reason, each with `"id": ""`;
 * a request whose messages carry an empty tool call id (sent back as it came) is refused 400
 * "Invalid 'messages' in payload. Please check the structure of your 'messages' and try again".
 *
 * Sources: https://lmstudio.ai/docs/app/api/endpoints/openai; lmstudio-ai/lmstudio-bug-tracker#830
 * (the empty id, and LM Studio's refusal when it is sent back, quoted from its server log: the
 * body's shape is not documented, so the message is put in OpenAI's error object), #1868
 * (arguments in one chunk), #723 (`"content":"<think>"` in the stream).
 */
import { fakeError, startFakeOpenAI, type FakeOpenAI, type FakeRequestBody } from "../helpers/fake-openai";
import { turnFor } from "./scenario";
import { llamaEngineStream } from "./wire";

function hasEmptyCallId(body: FakeRequestBody): boolean {
  return (body.messages ?? []).some(
    (m) => (m.role === "tool" && !m.tool_call_id) || (m.role === "assistant" && ((m.tool_calls ?? []) as Array<{ id?: unknown }>).some((c) => !c.id)),
  );
}

/** Starts the fake LM Studio. */
export function startLmStudioFake(): Promise<FakeOpenAI> {
  return startFakeOpenAI({
    modelList: { data: [{ id: "qwen/qwen3-4b", object: "model", owned_by: "organization_owner" }], object: "list" },
    script: (body) => {
      if (hasEmptyCallId(body)) return fakeError(400, { body: { error: { message: "Invalid 'messages' in payload. Please check the structure of your 'messages' and try again" } } });
      return llamaEngineStream(body, turnFor(body, "lmstudio", true), () => ({ id: "" }));
    },
  });
}
