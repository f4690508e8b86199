/**
 * The `lmstudio` profile (LM Studio's server, default port 1234). Tool calls work only with a
 * model whose Jinja template has tools; some builds send a call's `tool_calls` in one final chunk,
 * with an `id` that is missing or empty and `name: ""` on argument pieces — the stream reader
 * accepts all of it and makes an id when there is none (LM Studio refuses an empty id sent back:
 * "Invalid 'messages' in payload"). Thinking often arrives inline as `<think>`; small models write
 * tool calls as JSON text, which is recovered. A refusal that names `--jinja` (LM Studio's
 * llama.cpp engine) becomes a notice.
 *
 * Sources: https://lmstudio.ai/docs/app/api/endpoints/openai; lmstudio-ai/lmstudio-bug-tracker#830
 * (empty tool call id), #1868 (arguments in one chunk), #723 (`"content":"<think>"` in the
 * stream); 0xPlaygrounds/rig#423 (`name: ""` on argument chunks).
 */
import { generic } from "./generic";
import type { ProviderQuirks } from "./types";

export const lmstudio: ProviderQuirks = { ...generic, name: "lmstudio", label: "LM Studio" };
