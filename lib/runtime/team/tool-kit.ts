import "server-only";
/**
 * What a tool is to the engine: one object with its name, what the model is shown of it (the
 * spec, generated from its zod schema by the tool kernel, or a server's own JSON Schema for MCP
 * and gateway tools), how its arguments are parsed, its effect, whether a person's approval
 * policy applies, the token scope it needs, and `execute(context, args)`. Tools come from
 * providers (./tool-providers/*), each returning such objects for the party that asks; the one
 * dispatch pipeline (./pipeline.ts) runs every call of every tool through the same steps. The
 * engine knows tools only through this file's types.
 */
import type { AgentActionInit } from "@/lib/contracts/events";
import type { ToolEffect } from "@/lib/contracts/on-disk";
import type { AgentScope } from "@/lib/governance";
import type { ToolCall, ToolSpec } from "@/lib/models";
import { parametersOf, parseToolArguments, toolAction, toolSpec, type ToolArgs, type ToolDefinition } from "@/lib/tools";
import { z } from "zod";
import type { OnceOptions } from "./effects";
import type { TeamState } from "./state";
import type { AgentMeta } from "./types";

/** A call's arguments as a tool parsed them, or the error the model reads. */
export type Parsed<A> = { ok: true; args: A } | { ok: false; error: string };

/** Who calls: the Team Leader (`agentId` null) or a sub-agent with its metadata as it is now. */
export type ToolCaller = { agentId: null; meta: null } | { agentId: number; meta: AgentMeta };

/** What a tool's `execute` is given. */
export interface ToolContext {
  readonly s: TeamState;
  readonly caller: ToolCaller;
  readonly call: ToolCall;
  /** The project folder the call works in: the agent's token's (empty for the leader, who holds none). */
  readonly root: string;
  /** The idempotency key the call is journalled under (empty for a tool that is not journalled). */
  readonly key: string;
  /** What the call does, as authorized (a tool's own check may know better than its static `effect`). */
  readonly effect: ToolEffect;
  /** Set when an allow-list, not a person, let a command run: git with its extra settings. */
  readonly hardened?: { gitOverrides: Array<[string, string]> };
}

/** A refusal of a tool's own policy check: the result the model reads (its timeline record is written already). */
interface Refused {
  refused: string;
}

/** What a tool's own policy check says: refused, or authorized (with the call's effect once it is known). */
type Authorized = Refused | { refused?: never; effect?: ToolEffect };

/** One tool, as every provider returns it. */
export interface TeamTool<A = unknown> {
  readonly name: string;
  /** What a model is offered. */
  readonly spec: ToolSpec;
  /** What it does to the world: `read` tools are not journalled and run again after a crash. */
  readonly effect: ToolEffect;
  /**
   * Whether a person's approval policy (allow / ask / deny, lib/governance/tool-policy.ts) decides
   * the call: true for every sub-agent tool; the leader's coordination tools are false.
   */
  readonly approval: boolean;
  /** The token scope a sub-agent needs for it (checked before anything else it does). */
  readonly scope: AgentScope;
  /** Whether its `path` argument names a place in the project folder (the token confines it). */
  readonly confined?: boolean;
  /**
   * How the journal treats a call that is not a read (lib/runtime/team/effects.ts `once`), given
   * the call; false: not journalled (a question: the agent's pending entry is its record).
   */
  readonly journal?: OnceOptions | false | ((ctx: ToolContext) => OnceOptions);
  /** Whether a (journalled) result only says the call was sent: its real result comes later. */
  later?(result: string): boolean;
  /** Its arguments, parsed from the model's JSON text. */
  parse(raw: string): Parsed<A>;
  /**
   * The tool's own part of the role and conversation policy, after the token check (a role's
   * grant, a task it is offered for): a refusal, or the call's effect once known (an MCP tool's
   * is the server's listing's).
   */
  authorize?(ctx: ToolContext, args: A): Promise<Authorized>;
  /** The command line an approval card shows and the allow-lists match (run_command). */
  command?(args: A): string | undefined;
  /** Runs the call: its result for the model, or null when the result comes later (a question, an ability call). */
  execute(ctx: ToolContext, args: A): Promise<string | null>;
  /** What a call of it is doing, for the team panel (from its definition's `action`); absent: the registry's or "using <tool>". */
  action?(args: A): AgentActionInit;
}

/** What a provider is asked about: one party of one conversation, on its next model call or one call. */
export interface ToolQuery {
  readonly s: TeamState;
  readonly caller: ToolCaller;
}

/** What a provider offers on one model call: its tools, and a line for the system prompt if it has one. */
export interface ToolOffer {
  tools: TeamTool[];
  hint?: string;
}

/**
 * A source of tools. `offer` is what a party is shown on its next model call (an MCP server
 * starts there on first use); `resolve` finds the tool a call names, or undefined when this
 * provider has none of that name for this party. A name offered to nobody is found by no provider.
 * The pipeline resolves a tool once per call: a tool whose `execute` uses what its `authorize`
 * found (the gateway's operation, an ability's checked input) is made anew by each `resolve`.
 */
export interface ToolProvider {
  readonly name: string;
  offer(q: ToolQuery): Promise<ToolOffer>;
  resolve(name: string, q: ToolQuery): Promise<TeamTool | undefined>;
}

/** The tool providers of the Team Leader and of sub-agents, in the order their tools are offered. */
export interface ToolProviders {
  readonly leader: readonly ToolProvider[];
  readonly agent: readonly ToolProvider[];
}

/** Everything a tool made from a registry definition needs besides the definition. */
export interface ToolBehaviour<A> {
  scope: AgentScope;
  approval: boolean;
  confined?: boolean;
  journal?: TeamTool<A>["journal"];
  later?: TeamTool<A>["later"];
  authorize?: TeamTool<A>["authorize"];
  command?: TeamTool<A>["command"];
  execute: TeamTool<A>["execute"];
}

/**
 * A tool object from a registry definition (lib/team-tools, lib/tools `defineTool`): its spec is
 * generated from the zod schema, its arguments parsed by it, its effect the definition's.
 */
export function toolFrom<S extends ToolArgs>(definition: ToolDefinition<string, S>, behaviour: ToolBehaviour<z.infer<S>>): TeamTool<z.infer<S>> {
  return Object.freeze({
    name: definition.name,
    spec: toolSpec(definition),
    effect: definition.effect,
    parse: (raw: string) => parseToolArguments(definition.args, raw),
    action: (args: z.infer<S>) => toolAction(definition, definition.name, args),
    ...behaviour,
  });
}

/** Arguments a tool parses itself, in `execute` (a shared-context write, an ability's input): the raw text. */
export function rawArguments(raw: string): Parsed<string> {
  return { ok: true, args: raw };
}

/** The definition called `name` in a registry's list, with its type (for {@link toolFrom}). */
export function named<const T extends readonly ToolDefinition[], N extends T[number]["name"]>(tools: T, name: N): Extract<T[number], { name: N }> {
  const found = tools.find((t) => t.name === name);
  if (!found) throw new Error(`no tool ${name} in the list`);
  return found as Extract<T[number], { name: N }>;
}

const ANY_OBJECT = z.object({}).loose();

/**
 * The spec of a tool found by the name a call gave (an MCP or gateway tool, before its server or
 * source is asked), never offered as such: what the model was shown came from the provider's offer.
 */
export function unofferedSpec(name: string): ToolSpec {
  return { type: "function", function: { name, description: name, parameters: parametersOf(ANY_OBJECT) as Record<string, unknown> } };
}
