import "server-only";
/**
 * Side effects run at most once, and recovery of tool calls a crash left without a result.
 *
 * The key of a side effect is who asked for it and the model's id for the call
 * (`agent:<n>:<tool_call_id>`, `leader:<tool_call_id>`), written durably to the action journal
 * before the effect runs. After a crash, a completed effect gives back its recorded result; one
 * that was cut short is reported as interrupted and not run again, except the effects that are one
 * change of the conversation's own state (they carry their key, so the change itself says whether
 * it happened). What a tool's calls need here is the tool object's own `journal` options: this
 * module knows no tool by name.
 */
import { agentParty, LEADER_PARTY, SYSTEM_PARTY } from "@/lib/protocol";
import type { ToolCall } from "@/lib/models";
import { toolFailureMessage } from "./tool-failure";
import type { TeamState } from "./state";
import { awaitsApproval } from "./approvals";
import { appendToolResult } from "./steps";
import { errorResult } from "./types";

/** Runs one tool call of the leader (null) or an agent through the pipeline, which records its result unless it comes later. */
type ToolRunner = (agentId: number | null, call: ToolCall) => Promise<{ type: "recorded" } | { type: "pending" }>;

/** The idempotency key of a side effect: who asked for it and the model's id for the call. */
function actionKey(agentId: number | null, call: ToolCall): string {
  return `${agentId === null ? "leader" : `agent:${agentId}`}:${call.id}`;
}

/**
 * How {@link once} and {@link resolveDangling} treat a tool's call that a crash cut short (the
 * tool object's `journal`, lib/runtime/team/tool-kit.ts): `outcome` looks up whether it took
 * effect (its result when it did); an `internal` effect (one change of the conversation's own
 * state, which carries its key) that it did not find did not happen and runs again; any other is
 * reported as interrupted and not run again, after `interrupted` has cleaned up what it may have
 * left (a command's processes).
 */
export interface OnceOptions {
  internal?: boolean;
  outcome?: (key: string) => Promise<string | null>;
  interrupted?: (key: string) => Promise<void>;
  /**
   * The effect is wholly changes of this conversation's own state, made through its step log
   * after the `started` line (no other conversation, no file or process outside): the line need
   * not be durable before the effect runs, only ordered before its changes.
   */
  ordered?: boolean;
}

/** Runs a side-effecting action at most once under its idempotency key, written durably before it runs. */
export async function once(s: TeamState, agentId: number | null, call: ToolCall, action: (key: string) => Promise<string>, options: OnceOptions = {}): Promise<string> {
  const key = actionKey(agentId, call);
  const state = await s.journal.state(key);
  if (state.status === "done") return state.result;
  if (state.status === "started") {
    const found = options.outcome ? await options.outcome(key) : null;
    if (found !== null) {
      await s.journal.done(key, found);
      return found;
    }
    if (!options.internal) return errorResult(`interrupted earlier; ${call.function.name} was not run again`);
    // An internal effect is one change of the conversation's own state: not found, it did not happen.
  } else {
    await s.journal.started(key, { ordered: options.ordered });
  }
  let result: string;
  try {
    result = await action(key);
  } catch (error) {
    // It ran and failed: a replay answers with the same failure instead of "interrupted".
    await s.journal.done(key, errorResult(toolFailureMessage(call.function.name, error)));
    throw error;
  }
  await s.journal.done(key, result);
  return result;
}

/** How the journal treats the tool a dangling call names: its options and `later` (null: no such tool now, or one not journalled). */
export type DanglingTool = { options: OnceOptions; later?: (result: string) => boolean } | null;

/** What {@link resolveDangling} needs of the pipeline: to run a call, and to find how its tool is journalled. */
export interface DanglingRunner {
  run: ToolRunner;
  journalOf(agentId: number | null, call: ToolCall): Promise<DanglingTool>;
}

/**
 * Tool calls that were asked for but have no result (the server died in between): read-only
 * ones run again; a side-effecting one that finished gives back its recorded result; one that
 * started but did not finish is looked up by its tool (`outcome`), run again when it is an
 * internal effect that did not happen, and otherwise recorded as interrupted and not run again.
 */
export async function resolveDangling(s: TeamState, agentId: number | null, calls: ToolCall[], tools: DanglingRunner): Promise<void> {
  for (const call of calls) {
    if (agentId !== null) {
      const meta = await s.readAgent(agentId);
      // A question, an approval or an ability call still waiting: fine, its answer comes later.
      if ((meta.pending_tool_calls ?? []).some((p) => p.tool_call_id === call.id)) continue;
    }
    const key = actionKey(agentId, call);
    // A read is never journalled: it has no state, and runs again.
    const state = await s.journal.state(key);
    const tool = state.status === "none" ? null : await tools.journalOf(agentId, call);
    if (state.status === "done") {
      // A call whose result only said it was sent (an ability call) and whose caller no longer waits got no reply.
      await appendToolResult(s, agentId, call, tool?.later?.(state.result) ? errorResult(`${call.function.name} got no reply`) : state.result);
      continue;
    }
    if (state.status === "started") {
      const found = tool?.options.outcome ? await tool.options.outcome(key) : null;
      if (found !== null) {
        await s.journal.done(key, found);
        // A result that only says the call was sent: the real one comes later.
        if (!tool?.later?.(found)) await appendToolResult(s, agentId, call, found);
        continue;
      }
      if (!tool?.options.internal) {
        await tool?.options.interrupted?.(key);
        await appendToolResult(s, agentId, call, errorResult(`interrupted: the server stopped while ${call.function.name} was running; it was not run again. Check whether it took effect before trying again.`), { interrupted: true });
        if (agentId === null) s.notice("warning", "interrupted", "notice.msg.leaderInterrupted", { tool: call.function.name });
        else s.notice("warning", "interrupted", "notice.msg.agentInterrupted", { agent: agentId, tool: call.function.name }, agentId);
        await s.emitNow({ type: "event", from: SYSTEM_PARTY, to: agentId === null ? LEADER_PARTY : agentParty(agentId), payload: { tool: call.function.name }, action: call.function.name, resource: `tool_call:${call.id}`, status: "interrupted" });
        continue;
      }
    }
    // Read-only, never started, or an internal effect that did not happen: run it (now).
    const outcome = await tools.run(agentId, call);
    // Waiting for a person's approval: the calls after it wait too, and run in order once it is decided.
    if (outcome.type === "pending" && agentId !== null && (await awaitsApproval(s, agentId))) return;
  }
}
