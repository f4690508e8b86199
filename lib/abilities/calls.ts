/**
 * An ability call's pure parts: the tool a model is shown, the check of its arguments against the
 * declared input, the callee's task text, and the check of the callee's reply against the
 * declared output. Pure.
 */
import type { z } from "zod";
import { parseJsonWithin } from "@/lib/input-limits";
import type { ToolSpec } from "@/lib/models/types";
import type { OfferedAbility } from "./naming";
import { compileJsonSchema, type JsonSchema } from "./schema";

/**
 * What an ability call does to the world, for the approval gate: `internal`, like the team's own
 * messages (`send_message`, `report_to_leader`), so the policy allows it unless a role's
 * `tool_policy` says otherwise. It is not read-only — it hands a task to another agent (possibly
 * creating one), spends model calls, and is journalled so it is never sent twice — but it
 * executes nothing itself and touches nothing outside the conversation: whatever the callee then
 * does passes the gate as the callee's own tool calls.
 */
export const ABILITY_EFFECT = "internal" as const;

/** Longest `arguments` text of an ability call (checked before parsing). */
const ABILITY_ARGS_MAX_CHARS = 100_000;

/** The tool a model is shown for an ability: the declared input schema as its parameters, unchanged. */
export function abilityToolSpec(offered: OfferedAbility): ToolSpec {
  const { ability } = offered;
  const returns = ability.output ? " It returns JSON matching the declared output schema." : " It returns the agent's reply.";
  return {
    type: "function",
    function: {
      name: offered.tool_name,
      description: `${ability.description}\n(Ability of the role ${offered.role_name} (${offered.role_id}): an agent of that role does it and you wait for its reply.${returns})`,
      parameters: ability.input,
    },
  };
}

function issuesText(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
}

/** Parses a call's arguments text and checks it against the declared input; an error text for the model otherwise. */
export function checkAbilityInput(offered: OfferedAbility, raw: string): { ok: true; input: Record<string, unknown> } | { ok: false; error: string } {
  const json = parseJsonWithin(raw.trim() === "" ? "{}" : raw, ABILITY_ARGS_MAX_CHARS);
  if (!json.ok) return { ok: false, error: json.reason === "invalid" ? `arguments are not valid JSON: ${json.message.replace(/^it is not valid JSON: /, "")}` : `arguments refused: ${json.message}` };
  const schema = compileJsonSchema(offered.ability.input);
  if (!schema.ok) return { ok: false, error: `the ability ${offered.tool_name} declares an unusable input schema: ${schema.message}` };
  const parsed = schema.schema.safeParse(json.value);
  if (!parsed.success) return { ok: false, error: `invalid arguments for ${offered.tool_name} (its declared input schema): ${issuesText(parsed.error)}` };
  return { ok: true, input: parsed.data as Record<string, unknown> };
}

/**
 * The callee's task: which ability, its description, the input as JSON, and how to answer. The
 * runtime wraps it in the seed's task header (`来自 {caller} 的任务发布`).
 */
export function abilityTaskText(offered: OfferedAbility, input: Record<string, unknown>, callerName: string): string {
  const { ability } = offered;
  const lines = [
    `Ability request: ${ability.name}`,
    ability.description,
    "",
    "Input:",
    "```json",
    JSON.stringify(input, null, 2),
    "```",
    "",
    `Do this and answer with report_to_leader: your summary goes back to ${callerName} as the result of its call (not to the Team Leader).`,
  ];
  if (ability.output) lines.push("The summary must be JSON only, matching this schema:", "```json", JSON.stringify(ability.output), "```");
  return lines.join("\n");
}

/** A reply's JSON: the whole text, or the one fenced ```json block it holds. */
function replyJson(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  const trimmed = text.trim();
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/.exec(trimmed);
  const parsed = parseJsonWithin(fenced ? fenced[1]! : trimmed, 1_000_000);
  return parsed.ok ? { ok: true, value: parsed.value } : { ok: false, message: parsed.message };
}

/**
 * The caller's tool result for a reply. With a declared output the reply must be JSON matching
 * it; a reply that is not becomes a tool error saying why, with the reply text. A failed callee
 * is a tool error too.
 */
export function abilityResult(offered: Pick<OfferedAbility, "tool_name"> & { ability: { output?: JsonSchema } }, reply: { from: string; status: string; text: string }): { ok: boolean; result: string } {
  const base = { from: reply.from, status: reply.status };
  if (reply.status === "failed") return { ok: false, result: JSON.stringify({ error: `${reply.from} could not do ${offered.tool_name}: ${reply.text}`, ...base }) };
  const output = offered.ability.output;
  if (!output) return { ok: true, result: JSON.stringify({ ...base, result: reply.text }) };
  const schema = compileJsonSchema(output);
  const json = replyJson(reply.text);
  const bad = (why: string) => ({ ok: false, result: JSON.stringify({ error: `the reply of ${reply.from} does not match the declared output of ${offered.tool_name}: ${why}`, reply: reply.text, ...base }) });
  if (!schema.ok) return bad(`the output schema is unusable (${schema.message})`);
  if (!json.ok) return bad(`it is not JSON (${json.message})`);
  const parsed = schema.schema.safeParse(json.value);
  if (!parsed.success) return bad(issuesText(parsed.error));
  return { ok: true, result: JSON.stringify({ ...base, result: parsed.data }) };
}
