/**
 * The model side of the connection doctor's probes, the same for every fake provider (as
 * ./scenario.ts is for the team run): a plain answer to the text prompt, one call of the probe
 * tool, two calls to the parallel prompt, and an answer after the tool's result. How the answer
 * goes on the wire (thinking inline or in a field, ids, chunks, refusals) stays each fake's own.
 * Null for a request that is not a probe. ./scenario.ts's `turnFor` asks it first, so every fake
 * answers the probes as a model would.
 */
import type { FakeRequestBody } from "../helpers/fake-openai";
import { PARALLEL_PROMPT, PROBE_SYSTEM, PROBE_TOOL, TOOL_PROMPT } from "@/lib/models/doctor/probes";
import type { Turn } from "./scenario";

/** The answer to a doctor's probe; `thinking` says whether the provider would think for it. */
export function doctorTurn(body: FakeRequestBody, thinking: boolean): Turn | null {
  const messages = (body.messages ?? []) as Array<{ role: string; content?: unknown }>;
  if (messages[0]?.content !== PROBE_SYSTEM) return null;
  const think = thinking ? { reasoning: "A quick check of the connection." } : {};
  const user = messages.find((m) => m.role === "user")?.content;
  const name = PROBE_TOOL.function.name;
  if (messages.some((m) => m.role === "tool")) return { ...think, content: "The probe answered." };
  if (user === TOOL_PROMPT) return { ...think, calls: [{ name, arguments: { word: "ping" } }] };
  if (user === PARALLEL_PROMPT) return { ...think, calls: [{ name, arguments: { word: "alpha" } }, { name, arguments: { word: "beta" } }] };
  return { ...think, content: "42" };
}
