/**
 * A tool is data: a name, a description, a zod schema of its arguments, whether it only reads,
 * and who may use it. The JSON Schema a model is shown is generated from that zod schema
 * (`z.toJSONSchema`, input side), never written beside it, so what the model is told and what
 * the runtime accepts cannot drift apart. Pure.
 */
import { z } from "zod";
import type { ToolSpec } from "@/lib/models/types";
import type { AgentActionInit, AgentActionKind } from "@/lib/contracts/events";
import type { ToolEffect } from "@/lib/contracts/on-disk";

/**
 * The permissions a tool may need, which a role holds (a role file's `permissions:`,
 * lib/roles/schema.ts's PermissionSchema): `write` allows the workspace `write_file` tool,
 * `execute` the `run_command` tool.
 */
export const PERMISSIONS = ["read", "write", "execute"] as const;
type Permission = (typeof PERMISSIONS)[number];

/** Who is offered a tool: the Team Leader, sub-agents, or both. */
export type ToolAudience = "leader" | "agent" | "both";

/** Argument schemas are objects: OpenAI function parameters must be a JSON Schema object. */
export type ToolArgs = z.ZodObject;

/**
 * What a call of the tool is doing, as the team panel says it ("reading `src/x.ts`"): a `kind`
 * the UI puts in words (one of lib/contracts/events.ts `AGENT_ACTION_KINDS`) and the argument that
 * names its `target` (a path, a query, a command).
 */
interface ToolActionSpec {
  readonly kind: AgentActionKind;
  readonly target?: string;
}

/** One tool of the registry. */
export interface ToolDefinition<N extends string = string, S extends ToolArgs = ToolArgs> {
  readonly name: N;
  /** What the model reads about the tool. */
  readonly description: string;
  /** The one schema of its arguments: it validates calls and generates the model's JSON Schema. */
  readonly args: S;
  /** Only reads: safe to run again after a crash, so it is not journalled under an idempotency key. */
  readonly readOnly: boolean;
  /**
   * What it does to the world, for the approval policy (lib/governance/tool-policy.ts): `read`
   * exactly when `readOnly`; otherwise `write`, `execute`, or `internal` (it only changes the
   * team's own state: messages, reports, the shared context).
   */
  readonly effect: ToolEffect;
  readonly audience: ToolAudience;
  /** A role permission the agent needs to be offered the tool (`write` for `write_file`); null: none. */
  readonly permission: Permission | null;
  /** What a call of it is doing, for the person watching; a generic "using <tool>" when absent. */
  readonly action?: ToolActionSpec;
}

/** What {@link defineTool} takes; `permission` defaults to none, `effect` to `read` or `write` by `readOnly`. */
export interface ToolInput<N extends string, S extends ToolArgs> {
  name: N;
  description: string;
  args: S;
  readOnly: boolean;
  effect?: ToolEffect;
  audience: ToolAudience;
  permission?: Permission;
  action?: ToolActionSpec;
}

/** A frozen tool definition; its JSON Schema is generated on first use (see {@link toolSpec}). */
export function defineTool<const N extends string, S extends ToolArgs>(input: ToolInput<N, S>): ToolDefinition<N, S> {
  if (!/^[a-zA-Z0-9_-]{1,64}$/.test(input.name)) throw new Error(`tool name ${JSON.stringify(input.name)} is not a valid function name`);
  const effect = input.effect ?? (input.readOnly ? "read" : "write");
  // One fact, two fields: they must agree, or a journalled tool would be approved as a read.
  if ((effect === "read") !== input.readOnly) throw new Error(`tool ${input.name}: effect ${effect} disagrees with readOnly ${input.readOnly}`);
  return Object.freeze({ ...input, effect, permission: input.permission ?? null });
}

/** The argument schemas of some tools, by tool name. */
export type ArgsByName<T extends readonly ToolDefinition[]> = { readonly [D in T[number] as D["name"]]: D["args"] };

/** `{ [name]: args }` of `tools`, for callers that parse a call by the tool's name. */
export function argsByName<const T extends readonly ToolDefinition[]>(tools: T): ArgsByName<T> {
  return Object.freeze(Object.fromEntries(tools.map((t) => [t.name, t.args]))) as ArgsByName<T>;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/**
 * zod bounds every `.int()` by the safe-integer range; those bounds tell a model nothing and
 * cost every integer argument two keys, so they are left out. Everything else stays as generated.
 */
function withoutSafeIntegerBounds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutSafeIntegerBounds);
  if (!node || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === "maximum" && v === Number.MAX_SAFE_INTEGER) continue;
    if (k === "minimum" && v === Number.MIN_SAFE_INTEGER) continue;
    out[k] = withoutSafeIntegerBounds(v);
  }
  return out;
}

const parameterCache = new WeakMap<ToolArgs, Readonly<Record<string, unknown>>>();

/**
 * The JSON Schema of a tool's arguments as a model is shown it: `z.toJSONSchema` of the input
 * side (a `.default()` makes an argument optional, `z.coerce.number().int()` is an integer), no
 * `$schema` key (every call would carry it). Throws for a schema JSON Schema cannot express
 * (a transform, say): a definition error, found by the registry's tests. Cached per schema and
 * frozen, since the same object is handed to every call.
 */
export function parametersOf(args: ToolArgs): Readonly<Record<string, unknown>> {
  let parameters = parameterCache.get(args);
  if (!parameters) {
    const generated = withoutSafeIntegerBounds(z.toJSONSchema(args, { io: "input", unrepresentable: "throw" })) as Record<string, unknown>;
    delete generated.$schema;
    parameters = deepFreeze(generated);
    parameterCache.set(args, parameters);
  }
  return parameters;
}

const specCache = new WeakMap<ToolDefinition, ToolSpec>();

/** A tool as it is offered to a model (OpenAI function calling); static, so cached per tool. */
export function toolSpec(tool: ToolDefinition): ToolSpec {
  let spec = specCache.get(tool);
  if (!spec) {
    spec = customToolSpec(tool, tool.description, tool.args);
    specCache.set(tool, spec);
  }
  return spec;
}

/**
 * A tool offered with a description and arguments made for one call (the leader's
 * `create_sub_agent`, whose roles differ per conversation). `args` must be `tool.args` narrowed,
 * so that what the model is shown is still accepted by the tool's own schema.
 */
export function customToolSpec(tool: ToolDefinition, description: string, args: ToolArgs): ToolSpec {
  return deepFreeze({ type: "function", function: { name: tool.name, description, parameters: parametersOf(args) as Record<string, unknown> } });
}

/** The longest target an action descriptor carries (a long command or query is cut with "…"). */
const ACTION_TARGET_MAX = 120;

/** `text` on one line, at most {@link ACTION_TARGET_MAX} characters. */
function actionTarget(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > ACTION_TARGET_MAX ? `${line.slice(0, ACTION_TARGET_MAX - 1)}…` : line;
}

/**
 * What a call of `tool` with `args` (parsed, or anything) is doing: the tool's own action (its
 * kind, and its target argument when that is a non-empty string or number), else `tool` with the
 * tool's name as target; a tool nobody knows is `tool` too. Pure.
 */
export function toolAction(tool: Pick<ToolDefinition, "name" | "action"> | undefined, name: string, args: unknown): AgentActionInit {
  if (!tool?.action) return { kind: "tool", target: actionTarget(tool?.name ?? name) };
  const arg = tool.action.target;
  const value = arg !== undefined && args && typeof args === "object" ? (args as Record<string, unknown>)[arg] : undefined;
  const target = typeof value === "string" ? actionTarget(value) : typeof value === "number" ? String(value) : "";
  return target ? { kind: tool.action.kind, target } : { kind: tool.action.kind };
}
