/**
 * Parsing a tool call's `arguments` text with its tool's schema, with bounded work whatever the
 * model sent. Invalid arguments become an error text the model can read and correct; they never
 * crash a run. Pure.
 */
import { z } from "zod";
import { parseJsonWithin } from "@/lib/input-limits";

/** Characters JSON may spend on one value of `schema`: a string of `max` characters could have every one escaped (`\u0000`, six). */
function valueBudget(schema: unknown): number {
  let s = schema;
  while (s instanceof z.ZodOptional || s instanceof z.ZodDefault || s instanceof z.ZodNullable || s instanceof z.ZodPipe) {
    s = s instanceof z.ZodPipe ? s.in : s.unwrap();
  }
  if (s instanceof z.ZodString) return 6 * (s.maxLength ?? 0) + 2;
  if (s instanceof z.ZodObject) return Object.entries(s.shape as Record<string, unknown>).reduce((n, [k, v]) => n + k.length + 4 + valueBudget(v), 2);
  return 64;
}

const budgets = new WeakMap<object, number>();

/**
 * The longest `arguments` text accepted for a tool with this argument schema, in characters:
 * what its longest allowed values can take in JSON, plus room for whitespace. Checked before any
 * parsing, so an oversize call costs nothing but its length check. Derived from the schema (its
 * string `max`s are the documented limits).
 */
export function maxArgumentChars(schema: z.ZodType): number {
  let n = budgets.get(schema);
  if (n === undefined) {
    n = valueBudget(schema) + 4096;
    budgets.set(schema, n);
  }
  return n;
}

/**
 * Parses a tool call's JSON arguments with its schema; an error text for the model otherwise.
 * Bounded work whatever the model sent: the length is checked against {@link maxArgumentChars}
 * and the nesting against `MAX_JSON_DEPTH` before `JSON.parse` runs.
 */
export function parseToolArguments<S extends z.ZodType>(schema: S, raw: string): { ok: true; args: z.infer<S> } | { ok: false; error: string } {
  const max = maxArgumentChars(schema);
  if (raw.length > max) return { ok: false, error: `arguments refused: they are ${raw.length} characters; this tool accepts at most ${max}` };
  const json = parseJsonWithin(raw.trim() === "" ? "{}" : raw, max);
  if (!json.ok) return { ok: false, error: json.reason === "invalid" ? `arguments are not valid JSON: ${json.message.replace(/^it is not valid JSON: /, "")}` : `arguments refused: ${json.message}` };
  const value = json.value;
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    return { ok: false, error: `invalid arguments: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}` };
  }
  return { ok: true, args: parsed.data };
}
