import "server-only";
/**
 * Teammates' abilities as tools (seed 003 §3.2): every authorized role's `provides:` is offered
 * to the sub-agents of other roles, named as lib/abilities names them. A call is checked under
 * the `message:teammates` scope (it hands a teammate a task, as a message does), its input
 * against the ability's declared input, and its request journalled with the caller's pending
 * entry as its record (the routing and the reply are lib/runtime/team/abilities.ts); the caller
 * waits, and the callee's report comes back as the call's result.
 */
import { ABILITY_EFFECT, abilitiesOfferedTo, abilityToolSpec, type OfferedAbility } from "@/lib/abilities";
import { abilityInput, sendAbilityRequest, sentAbilityOutcome } from "@/lib/runtime/team/abilities";
import { conversationAbilities, isAbilitySent } from "@/lib/runtime/team/ability-ledger";
import { rawArguments, type TeamTool, type ToolContext, type ToolProvider, unofferedSpec } from "@/lib/runtime/team/tool-kit";
import { errorResult } from "@/lib/runtime/team/types";

function callerOf(ctx: ToolContext): number {
  if (ctx.caller.agentId === null) throw new Error("an ability was called by the leader");
  return ctx.caller.agentId;
}

function abilityTool(offered: OfferedAbility): TeamTool<string> {
  // The input authorize checked, for the execute that follows it (one object per call).
  let input: Record<string, unknown> | null = null;
  return {
    name: offered.tool_name,
    spec: abilityToolSpec(offered),
    effect: ABILITY_EFFECT,
    approval: true,
    scope: "message:teammates",
    parse: rawArguments,
    authorize: async (ctx, raw) => {
      const checked = await abilityInput(ctx.s, callerOf(ctx), offered, raw);
      if (!checked.ok) return { refused: checked.result };
      input = checked.input;
      return {};
    },
    // One change of the conversation's own state, looked up after a crash: the caller's pending entry says whether the request left.
    journal: (ctx) => ({ internal: true, outcome: () => sentAbilityOutcome(ctx.s, callerOf(ctx), ctx.call.id) }),
    later: isAbilitySent,
    execute: async (ctx) => {
      const agentId = callerOf(ctx);
      if (!input) throw new Error(`${offered.tool_name} ran without being authorized`);
      return sendAbilityRequest(ctx.s, agentId, ctx.call.id, offered, input, ctx.key);
    },
  };
}

/** The caller's own role's ability: named anyway, it is refused (the agent does it itself). */
function ownAbility(name: string): TeamTool<string> {
  return {
    name,
    spec: unofferedSpec(name),
    effect: ABILITY_EFFECT,
    approval: false,
    scope: "message:teammates",
    journal: false,
    parse: rawArguments,
    authorize: async () => ({ refused: errorResult(`${name} is an ability of your own role: do it yourself`) }),
    execute: () => Promise.reject(new Error("an own ability is refused before it runs")),
  };
}

/** The abilities of every authorized role but the caller's own. */
export const abilityTools: ToolProvider = {
  name: "abilities",
  offer: async ({ s, caller }) => ({ tools: caller.agentId === null ? [] : abilitiesOfferedTo(await conversationAbilities(s), caller.meta.role_id).map(abilityTool) }),
  resolve: async (name, { s, caller }) => {
    if (caller.agentId === null) return undefined;
    const offered = (await conversationAbilities(s)).get(name);
    if (!offered) return undefined;
    return offered.role_id === caller.meta.role_id ? ownAbility(name) : abilityTool(offered);
  },
};
