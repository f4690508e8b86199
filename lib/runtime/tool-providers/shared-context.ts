import "server-only";
/**
 * The shared-context tools (read, and an arbitrated write), offered to the Team Leader and to
 * every sub-agent alike. Their definitions and executor are lib/shared-context; a write is
 * journalled under its key (the pipeline), its arbitration and timeline events are the executor's.
 */
import { LEADER_PARTY, agentParty } from "@/lib/protocol";
import { executeSharedContextTool, SHARED_CONTEXT_TOOLS, type SharedContextChange } from "@/lib/shared-context";
import { toolSpec } from "@/lib/tools";
import { rawArguments, type TeamTool, type ToolContext, type ToolProvider } from "@/lib/runtime/team/tool-kit";
import { LEADER_DISPLAY_NAME } from "@/lib/runtime/team/types";

async function execute(ctx: ToolContext, raw: string): Promise<string> {
  const { s, caller, call } = ctx;
  const name = call.function.name;
  // Through the storage port: the conversation's file on the data folder, its row on PostgreSQL.
  const read = () => s.store.readSharedContext(s.convId);
  const change: SharedContextChange = (fn) => s.store.updateSharedContext(s.convId, fn);
  if (caller.agentId === null) {
    return executeSharedContextTool(name, raw, {
      read,
      change,
      actor: { display_name: LEADER_DISPLAY_NAME, role: "leader", party: LEADER_PARTY },
      emit: async (e) => void (await s.emitNow(e)),
      requestedAt: s.deps.clock.now(),
    });
  }
  const cause = await s.causeFor(caller.meta);
  return executeSharedContextTool(name, raw, {
    read,
    change,
    actor: { display_name: caller.meta.display_name, role: "agent", party: agentParty(caller.agentId) },
    emit: async (e) => void (await s.emit(cause, e)),
    requestedAt: s.deps.clock.now(),
  });
}

/** The tools for one party: a sub-agent's pass its token and the approval policy, the leader's do not. */
function toolsFor(approval: boolean): readonly TeamTool<string>[] {
  return SHARED_CONTEXT_TOOLS.map((d) => ({
    name: d.name,
    spec: toolSpec(d),
    effect: d.effect,
    approval,
    scope: d.readOnly ? "shared_context:read" : "shared_context:write",
    // The executor parses with the definition's schema, so a refused write reads as the arbitration's words.
    parse: rawArguments,
    execute,
  }));
}

const LEADER_TOOLS = toolsFor(false);
const AGENT_TOOLS = toolsFor(true);

/** The shared-context tools, for the leader and for every sub-agent. */
export const sharedContextTools: ToolProvider = {
  name: "shared context",
  offer: async ({ caller }) => ({ tools: [...(caller.agentId === null ? LEADER_TOOLS : AGENT_TOOLS)] }),
  resolve: async (name, { caller }) => (caller.agentId === null ? LEADER_TOOLS : AGENT_TOOLS).find((t) => t.name === name),
};
