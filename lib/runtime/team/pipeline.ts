import "server-only";
/**
 * The one dispatch pipeline: every tool call of the Team Leader or a sub-agent, whichever
 * provider its tool comes from, passes the same steps in the same order:
 *
 *  1. offered? — the tool is found among the providers of this party (lib/runtime/team/tool-kit.ts
 *     `ToolProviders`, given by the composition root), else "unknown tool";
 *  2. its arguments parsed by the tool (a bad call is answered, nothing runs);
 *  3. token valid? — a sub-agent's scoped token (least privilege, seed 003 §6.3) checked for the
 *     tool's scope and, for a confined tool, its path; the token is also the one source of the
 *     folder the call works in; the project folder must be usable at all;
 *  4. role and conversation policy — the tool's own check (a role's grant, a task it is offered
 *     for, the role catalog), which may also tell the call's real effect;
 *  5. approval when needed — the person's policy (allow / ask / deny) for a sub-agent's call; a
 *     call that waits for a person is answered later;
 *  6. journalled once — a call that is not a read runs under its idempotency key, written before
 *     it runs, so a crash never runs it twice (./effects.ts);
 *  7. execute;
 *  8. result shaped to the size limit and recorded — the tool message saved and published
 *     (./steps.ts `appendToolResult`).
 *
 * Whatever a tool throws becomes a tool result the model can read, so the loop goes on: a
 * refusal (a forbidden path) with its message, on the timeline; any other fault is logged, put
 * on the timeline, and told to the model in plain words. Adding a tool touches its provider only.
 */
import { AstrionError } from "@/lib/contracts/errors";
import { scopesFor } from "@/lib/governance";
import type { ToolCall } from "@/lib/models";
import { agentParty, LEADER_PARTY, SYSTEM_PARTY } from "@/lib/protocol";
import { roleToolAccess } from "@/lib/roles/tool-mapping";
import { toolNamed } from "@/lib/team-tools";
import { toolAction } from "@/lib/tools";
import { approvalGate } from "./approvals";
import { once, type DanglingRunner, type DanglingTool, type OnceOptions } from "./effects";
import { failpoint } from "./failpoints";
import type { TeamState } from "./state";
import { appendToolResult } from "./steps";
import type { TeamTool, ToolCaller, ToolContext, ToolOffer, ToolProvider, ToolProviders, ToolQuery } from "./tool-kit";
import { faultSummary, isRefusal, toolFailureMessage } from "./tool-failure";
import { errorResult, type AgentMeta } from "./types";

/** How a call ended: its result recorded, or waiting (a question, an approval, an ability call) for a result that comes later. */
export type ToolOutcome = { type: "recorded"; result: string } | { type: "pending" };

async function callerOf(s: TeamState, agentId: number | null): Promise<ToolCaller> {
  return agentId === null ? { agentId: null, meta: null } : { agentId, meta: await s.readAgent(agentId) };
}


/**
 * A role file edited to allow less (through the API or on disk) takes effect at its agents' very
 * next tool call: their live tokens are narrowed to what the role allows now. The role folder is
 * held in memory while it does not change, so this costs a lookup.
 */
async function narrowToRole(s: TeamState, meta: AgentMeta): Promise<void> {
  const role = await s.deps.roles.get(meta.role_id).catch(() => null);
  const permissions = role?.kind === "role" ? roleToolAccess(role.fields).permissions : [];
  // The usual case costs one lookup: this agent's token allows nothing the role does not.
  const allowed = new Set(scopesFor(permissions));
  if (s.tokenOf(meta.agent_id)?.scopes.every((scope) => allowed.has(scope)) !== false) return;
  for (const n of s.deps.tokens.narrowRole(meta.role_id, permissions)) {
    if (n.conversation_id !== s.convId) continue;
    s.notice("warning", "token_narrowed", "notice.msg.tokenNarrowed", { role: meta.role_id, agent: n.agent_id, scopes: n.scopes.join(", ") }, n.agent_id);
    await s.emitNow({ type: "event", from: SYSTEM_PARTY, to: agentParty(n.agent_id), payload: { role_id: meta.role_id, scopes: n.scopes }, action: "token_narrowed", resource: `agent:${n.agent_id}` });
  }
}

/** Step 3 for a sub-agent: the project folder usable and the token valid for this tool; the folder it works in, or the refusal. */
async function tokenStep(s: TeamState, agentId: number, meta: AgentMeta, tool: TeamTool, args: unknown): Promise<{ root: string } | { refused: string }> {
  const name = tool.name;
  // No tool runs while the project folder is refused or metadata.json names another folder.
  const project = await s.projectGate();
  if (!project.ok) return { refused: await s.projectRefused(project, agentParty(agentId), name) };
  const conv = await s.store.get(s.convId);
  await narrowToRole(s, meta);
  const token = meta.status === "terminated" || conv.status === "archived" ? undefined : s.tokenOf(agentId);
  const checkedArgs = args && typeof args === "object" ? (args as Record<string, unknown>) : {};
  const check = s.deps.tokens.check(token, { conversation_id: s.convId, agent_id: agentId, tool: name, scope: tool.scope, confined: tool.confined, args: checkedArgs });
  if (check.ok && token) return { root: token.project_path };
  const refusal = check.ok ? { code: "no_token", reason: "permission denied: this agent holds no access token" } : check;
  await s.emitNow({ type: "event", from: SYSTEM_PARTY, to: agentParty(agentId), payload: { tool: name, code: refusal.code, reason: refusal.reason, scope: check.ok ? null : (check.scope ?? null) }, action: name, resource: `agent:${agentId}`, status: "refused" });
  return { refused: errorResult(refusal.reason) };
}

/** Steps 2–7 of a call whose tool was found: its result, or null when it comes later. Faults are thrown to {@link ToolPipeline.run}. */
async function dispatch(s: TeamState, caller: ToolCaller, call: ToolCall, tool: TeamTool | undefined): Promise<string | null> {
  const name = call.function.name;
  if (!tool) return errorResult(`unknown tool ${name}`);
  const parsed = tool.parse(call.function.arguments);
  if (!parsed.ok) return errorResult(parsed.error);
  const args = parsed.args;
  let root = "";
  if (caller.agentId !== null) {
    // What the agent is doing, for the person watching: from the tool object, else the registry's definition.
    // Shown at once: a long call (a command, a large read) is what the person wants to see.
    s.setActivity(caller.agentId, tool.action?.(args) ?? toolAction(toolNamed(name), name, args));
    await s.publishAgent(caller.meta);
    const token = await tokenStep(s, caller.agentId, caller.meta, tool, args);
    if ("refused" in token) return token.refused;
    root = token.root;
  }
  let ctx: ToolContext = { s, caller, call, root, key: "", effect: tool.effect };
  if (tool.authorize) {
    const verdict = await tool.authorize(ctx, args);
    if (verdict.refused !== undefined) return verdict.refused;
    if (verdict.effect) ctx = { ...ctx, effect: verdict.effect };
  }
  if (tool.approval && caller.agentId !== null) {
    const verdict = await approvalGate(s, caller.agentId, caller.meta, call, { name, effect: ctx.effect, command: tool.command?.(args), cwd: root });
    if (verdict.kind === "refused") return verdict.result;
    if (verdict.kind === "wait") return null;
    if (verdict.hardened) ctx = { ...ctx, hardened: verdict.hardened };
  }
  try {
    if (ctx.effect === "read" || tool.journal === false) return await tool.execute(ctx, args);
    const options = journalOptions(tool, ctx);
    const result = await once(s, caller.agentId, call, async (key) => (await tool.execute({ ...ctx, key }, args)) ?? "", options);
    return tool.later?.(result) ? null : result;
  } catch (error) {
    if (!(error instanceof AstrionError) || error.status >= 500) throw error;
    if (error.code === "forbidden" && caller.agentId !== null) {
      const code = (error.details as { reason?: unknown } | undefined)?.reason;
      const where = (args as { path?: unknown } | null)?.path;
      await s.emitNow({ type: "event", from: SYSTEM_PARTY, to: agentParty(caller.agentId), payload: { tool: name, code: typeof code === "string" ? code : "forbidden", reason: error.message }, action: name, resource: `path:${typeof where === "string" ? where : ""}`, status: "refused" });
    }
    return errorResult(error.message);
  }
}

/** How the journal treats a tool's call (its `journal`, given the call's context). */
function journalOptions(tool: TeamTool, ctx: ToolContext): OnceOptions {
  return (typeof tool.journal === "function" ? tool.journal(ctx) : tool.journal || undefined) ?? {};
}

async function toolFailed(s: TeamState, agentId: number | null, call: ToolCall, error: unknown): Promise<string> {
  const message = toolFailureMessage(call.function.name, error);
  if (isRefusal(error)) return errorResult(message);
  console.error(`[astrion] ${s.convId} trace=${s.lastTrace?.trace_id ?? "-"} ${agentId === null ? "leader" : `agent ${agentId}`} tool ${call.function.name} failed`, error);
  const party = agentId === null ? LEADER_PARTY : agentParty(agentId);
  await s.emitNow({ type: "event", from: SYSTEM_PARTY, to: party, payload: { tool: call.function.name, fault: faultSummary(error) }, action: call.function.name, resource: `tool_call:${call.id}`, status: "failed" });
  return errorResult(message);
}

/** The pipeline of one conversation's run, over the tool providers the run was given. */
export class ToolPipeline implements DanglingRunner {
  readonly #s: TeamState;
  readonly #providers: ToolProviders;

  constructor(s: TeamState, providers: ToolProviders) {
    this.#s = s;
    this.#providers = providers;
  }

  #of(caller: ToolCaller): readonly ToolProvider[] {
    return caller.agentId === null ? this.#providers.leader : this.#providers.agent;
  }

  /** What the leader (null) or a sub-agent is offered on its next model call: every provider's tools, in order, and their prompt lines. */
  async offer(agentId: number | null): Promise<Required<ToolOffer>> {
    const q: ToolQuery = { s: this.#s, caller: await callerOf(this.#s, agentId) };
    const tools: TeamTool[] = [];
    let hint = "";
    for (const provider of this.#of(q.caller)) {
      const offer = await provider.offer(q);
      tools.push(...offer.tools);
      hint += offer.hint ?? "";
    }
    return { tools, hint };
  }

  /** Step 1: the tool a call names, from the first of this party's providers that has it. */
  async #resolve(q: ToolQuery, name: string): Promise<TeamTool | undefined> {
    for (const provider of this.#of(q.caller)) {
      const tool = await provider.resolve(name, q);
      if (tool) return tool;
    }
    return undefined;
  }

  /**
   * How the journal treats the tool a call names, for a call a crash left without a result
   * (./effects.ts `resolveDangling`): null when no provider has the tool now or it is not journalled.
   */
  async journalOf(agentId: number | null, call: ToolCall): Promise<DanglingTool> {
    const s = this.#s;
    const caller = await callerOf(s, agentId);
    const tool = await this.#resolve({ s, caller }, call.function.name);
    if (!tool || tool.journal === false) return null;
    return { options: journalOptions(tool, { s, caller, call, root: "", key: "", effect: tool.effect }), later: tool.later };
  }

  /**
   * Runs one tool call of the leader (null) or a sub-agent through every step, and records its
   * result (step 8); a call whose result comes later is left for it.
   */
  async run(agentId: number | null, call: ToolCall): Promise<ToolOutcome> {
    const s = this.#s;
    let result: string | null;
    try {
      failpoint(`tool.${call.function.name}`, call.function.arguments);
      const caller = await callerOf(s, agentId);
      result = await dispatch(s, caller, call, await this.#resolve({ s, caller }, call.function.name));
    } catch (error) {
      result = await toolFailed(s, agentId, call, error);
    }
    if (result === null) return { type: "pending" };
    await appendToolResult(s, agentId, call, result);
    return { type: "recorded", result };
  }
}
