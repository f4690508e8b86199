/**
 * The `provides:` field of a role file (seed 003 §3.2): the abilities an agent of the role offers
 * its teammates as tools, each with a name, a description, the JSON Schema of its input (an
 * object, like every function's parameters) and optionally the JSON Schema of its output. Pure,
 * shared by server and client (the editor shows the same messages the server enforces).
 *
 * The schemas are a person's data, not ours: they are checked here to be usable — each must be
 * compiled by zod's `z.fromJSONSchema` (the one validator used for calls and replies), stay
 * within the size bounds, and the input must be an object schema — and are never rewritten.
 */
import { z } from "zod";

/**
 * An ability's name: a function name of letters and digits, words joined by single `_`. No
 * leading, trailing or doubled `_`, so a qualified tool name `<role_id>__<name>` always splits
 * at its last `__` (see naming.ts).
 */
const ABILITY_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)*$/;
/** Longest ability name. */
const ABILITY_NAME_MAX = 48;
/** Abilities one role may declare. */
const MAX_ABILITIES_PER_ROLE = 32;
/** Characters of one declared schema as JSON. */
export const MAX_SCHEMA_CHARS = 16_384;
/** Nesting of objects and arrays in one declared schema. */
const MAX_SCHEMA_DEPTH = 24;

/** A JSON Schema as declared: a mapping (its keywords are checked when it is compiled). */
export type JsonSchema = Record<string, unknown>;

function depthOf(value: unknown, depth = 0): number {
  if (depth > MAX_SCHEMA_DEPTH) return depth;
  if (Array.isArray(value)) return value.reduce<number>((d, v) => Math.max(d, depthOf(v, depth + 1)), depth + 1);
  if (value && typeof value === "object") return Object.values(value).reduce<number>((d, v) => Math.max(d, depthOf(v, depth + 1)), depth + 1);
  return depth;
}

const compiled = new WeakMap<object, z.ZodType>();

/**
 * Compiles a declared JSON Schema with `z.fromJSONSchema` (cached per schema object). What zod
 * cannot express (`if`/`then`, `dependentRequired`, an external `$ref`, an unknown `type`) is
 * refused with zod's own message, so a declaration that loads is one every call can be checked
 * against.
 */
export function compileJsonSchema(schema: JsonSchema): { ok: true; schema: z.ZodType } | { ok: false; message: string } {
  const hit = compiled.get(schema);
  if (hit) return { ok: true, schema: hit };
  const text = JSON.stringify(schema);
  if (text.length > MAX_SCHEMA_CHARS) return { ok: false, message: `the schema is ${text.length} characters as JSON; at most ${MAX_SCHEMA_CHARS}` };
  if (depthOf(schema) > MAX_SCHEMA_DEPTH) return { ok: false, message: `the schema nests more than ${MAX_SCHEMA_DEPTH} levels deep` };
  try {
    const out = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
    compiled.set(schema, out);
    return { ok: true, schema: out };
  } catch (error) {
    return { ok: false, message: `not a usable JSON Schema: ${(error as Error).message}` };
  }
}

const JsonSchemaSchema = z.record(z.string(), z.unknown()).superRefine((schema, ctx) => {
  const result = compileJsonSchema(schema);
  if (!result.ok) ctx.addIssue({ code: "custom", message: result.message });
});

/** One declared ability. Unknown keys are refused (a misspelt `inputs:` must not go unnoticed). */
export const AbilitySchema = z.strictObject({
  name: z
    .string()
    .max(ABILITY_NAME_MAX, `at most ${ABILITY_NAME_MAX} characters`)
    .regex(ABILITY_NAME_PATTERN, "a function name: letters and digits, words joined by single '_' (e.g. generate_test_cases)"),
  description: z.string().trim().min(1, "a description is required").max(2000, "at most 2000 characters"),
  input: JsonSchemaSchema.refine((s) => s.type === "object", 'the input schema must be an object schema (type: object), like every tool\'s parameters'),
  output: JsonSchemaSchema.optional(),
});
/** One declared ability. */
export type Ability = z.infer<typeof AbilitySchema>;

/** A role's `provides:` list: at most {@link MAX_ABILITIES_PER_ROLE}, names unique. */
export const ProvidesSchema = z
  .array(AbilitySchema)
  .max(MAX_ABILITIES_PER_ROLE, `at most ${MAX_ABILITIES_PER_ROLE} abilities`)
  .superRefine((list, ctx) => {
    const seen = new Set<string>();
    list.forEach((a, i) => {
      if (seen.has(a.name)) ctx.addIssue({ code: "custom", path: [i, "name"], message: `the name ${a.name} is declared twice` });
      seen.add(a.name);
    });
  });
