import "server-only";
/**
 * The sub-agents' loops: one per agent, woken through its bus topic. A pass delivers what waits
 * in the agent's inbox, calls its model with the context window (after saving, seed §8.1), saves
 * the answer, runs its tool calls through the one pipeline (./pipeline.ts), and says what comes
 * next (./next-step.ts): another pass, or a stop because the agent reported, waits for an answer,
 * reached its cap of model calls, or was interrupted.
 */
import { buildModelInput, collectPromotions, conversationGoal, deriveWorkNotes, NOTE_HINT, PROMOTION_HINT, summarizeReport } from "@/lib/context";
import type { ChatModel } from "@/lib/models";
import { agentParty, endsWithResultOf, formatAgentMessage, needsModelCall, SYSTEM_PARTY, unansweredToolCalls } from "@/lib/protocol";
import type { Message } from "@/lib/store";
import { failpoint } from "./failpoints";
import { transitionAgent } from "./state-machine";
import { awaitsApproval } from "./approvals";
import { replyAtTurnEnd } from "./abilities";
import { resolveDangling } from "./effects";
import { deliverReport, reportFailure } from "./mail";
import { recalledForRequest } from "./memory-recall";
import { CAPPED, DONE, interrupted, RUN_AGAIN, WAIT_FOR_ANSWER, type NextStep } from "./next-step";
import type { ToolPipeline } from "./pipeline";
import type { TeamState } from "./state";
import { assistantMessage, callModel, failureRefs, saveAnswer, saveInterrupted } from "./steps";
import { isErrorResult, LEADER_DISPLAY_NAME, messageId, type AgentMeta } from "./types";
import { endWithdrawnTask } from "./interventions";

/** Delivers pending messages into the agent's conversation; returns how many. */
async function drainInbox(s: TeamState, agentId: number): Promise<number> {
  const meta = await s.readAgent(agentId);
  const pending = meta.pending_messages ?? [];
  if (!pending.length) return 0;
  const messages: Message[] = pending.map((p) => ({
    role: "user",
    content: formatAgentMessage(p.message_type === "task" ? "task" : "message", p.source_display_name, p.id, p.content),
    message_id: messageId("msg_user"),
    metadata: { message_source: p.source_agent_id === null && p.source_display_name === LEADER_DISPLAY_NAME ? "leader" : p.source_agent_id === null ? "user" : "sub_agent", visibility: "chat", starts_work: true, trace_id: meta.trace_id },
  }));
  const ids = new Set(pending.map((p) => p.id));
  await s.store.updateAgentMessages(s.convId, agentId, (f) => ({ ...f, messages: [...f.messages, ...messages] }));
  const hasTask = pending.some((p) => p.message_type === "task");
  const updated = await s.updateAgent(agentId, (m) => ({
    ...m,
    status: m.status === "running" ? m.status : transitionAgent(m.status, "assign"),
    pending_messages: (m.pending_messages ?? []).filter((p) => !ids.has(p.id)),
    // Work delivered to a failed agent starts it afresh.
    failure: undefined,
    ...(hasTask || m.reported ? { calls_this_task: 0, reported: false } : {}),
  }));
  for (const m of messages) s.publish({ type: "message", agent_id: agentId, message: m });
  const now = new Date().toISOString();
  // A task, or any message that wakes it at rest, starts its current work: its elapsed time counts from here.
  if (hasTask || meta.status !== "running") s.activity.startWork(agentId, now);
  s.setActivity(agentId, { kind: "read_inbox", target: pending.map((p) => p.id).join(", ") });
  await s.publishAgent(updated);
  await s.refreshPhase();
  return pending.length;
}

async function capReached(s: TeamState, agentId: number, meta: AgentMeta): Promise<void> {
  const cap = s.limits.maxCallsPerTask;
  s.notice("warning", "cap_calls", "notice.msg.agentCallCap", { agent: meta.display_name, cap }, agentId);
  await s.emitNow({ type: "event", from: SYSTEM_PARTY, to: agentParty(agentId), payload: { cap }, action: "cap_calls", resource: `agent:${agentId}`, status: "capped" });
  await deliverReport(s, agentId, meta, `I reached the limit of ${cap} model calls for this task and had to stop before finishing.`, "failed");
  await s.agentEvent(agentId, "pause");
}

/** The sub-agents' loops of one conversation. */
export class AgentLoops {
  readonly #s: TeamState;
  readonly #tools: ToolPipeline;
  readonly #loops = new Map<number, Promise<void>>();
  readonly #again = new Set<number>();
  readonly #last = new Map<number, NextStep>();
  readonly #onCrash: (agentId: number, error: unknown) => Promise<void>;

  constructor(s: TeamState, tools: ToolPipeline, onCrash: (agentId: number, error: unknown) => Promise<void>) {
    this.#s = s;
    this.#tools = tools;
    this.#onCrash = onCrash;
  }

  /** The running loops. */
  get running(): Promise<void>[] {
    return [...this.#loops.values()];
  }

  /** Starts an agent's loop, or asks its running one to look again. */
  wake(agentId: number): void {
    if (this.#loops.has(agentId)) {
      this.#again.add(agentId);
      return;
    }
    const loop = this.#run(agentId)
      .catch((error) => this.#onCrash(agentId, error))
      .finally(() => {
        this.#loops.delete(agentId);
        if (this.#again.delete(agentId)) this.wake(agentId);
      });
    this.#loops.set(agentId, loop);
  }

  /** What the last pass of an agent's loop decided (until its loop runs again). */
  lastStep(agentId: number): NextStep | undefined {
    return this.#last.get(agentId);
  }

  async #run(agentId: number): Promise<void> {
    const controller = this.#s.agentSignal(agentId);
    // A loop resumed after a restart: its work is timed from here, the earliest this server knows.
    this.#s.activity.startWork(agentId, new Date().toISOString(), true);
    for (;;) {
      const next = await this.#step(agentId, controller);
      this.#last.set(agentId, next);
      // Each pass saved its work; another goes again.
      if (next.type !== "run_again") return;
    }
  }

  /** One pass of an agent's loop, and what comes next. */
  async #step(agentId: number, controller: AbortController): Promise<NextStep> {
    const s = this.#s;
    if (s.stopController.signal.aborted || controller.signal.aborted) return interrupted("stopped");
    this.#again.delete(agentId);
    let meta = await s.readAgent(agentId);
    if (meta.status === "terminated") return interrupted("stopped");
    if (meta.status === "waiting" || (meta.pending_tool_calls ?? []).length) return WAIT_FOR_ANSWER;
    const dangling = unansweredToolCalls((await s.store.readAgentMessages(s.convId, agentId)).messages);
    if (dangling.length) {
      await resolveDangling(s, agentId, dangling, this.#tools);
      return RUN_AGAIN;
    }
    await drainInbox(s, agentId);
    meta = await s.readAgent(agentId);
    // A person withdrew its task: it was told (just delivered), its work so far stays, and it stops.
    if (meta.task_withdrawn) {
      await endWithdrawnTask(s, agentId);
      return DONE;
    }
    const messages = (await s.store.readAgentMessages(s.convId, agentId)).messages;
    // A delivered report ends the task: a crash between the report and the status change must
    // not give the agent another model call.
    if (!needsModelCall(messages) || (meta.reported && endsWithResultOf(messages, "report_to_leader"))) {
      if (meta.status === "running") await s.agentEvent(agentId, meta.reported || (await replyAtTurnEnd(s, agentId, messages)) ? "complete" : "pause");
      return DONE;
    }
    if ((meta.calls_this_task ?? 0) >= s.limits.maxCallsPerTask) {
      await capReached(s, agentId, meta);
      return CAPPED;
    }
    const conv = await s.store.get(s.convId);
    let model: ChatModel;
    try {
      model = await s.deps.models.modelFor(s.deps.root, meta.model_key ?? conv.model_key);
    } catch (error) {
      s.notice("error", "model_error", "notice.msg.agentNoModel", { agent: agentId, model: meta.model_key ?? conv.model_key, reason: "no_model" }, agentId, { ...(await failureRefs(s, agentId)), detail: (error as Error).message });
      await s.agentEvent(agentId, "pause");
      return interrupted("no_model");
    }
    // seed §8.1: what the call is made from is saved already (every change is saved as it is
    // made). The call's count is saved while the model works, not before it starts, and shown to
    // viewers once it is durable; the answer is saved only after it (`counted` is awaited first).
    s.setActivity(agentId, { kind: "think" });
    const counted = s.updateAgent(agentId, (m) => ({ ...m, calls_this_task: (m.calls_this_task ?? 0) + 1 })).then(async (m) => {
      await s.publishAgent(m);
      return m;
    });
    // Awaited after the call; this only keeps a failure meanwhile from counting as unhandled.
    counted.catch(() => undefined);
    const thinking = meta.thinking_mode === "thinking" ? (conv.run_mode === "deep" ? "deep" : "on") : "off";
    const signal = AbortSignal.any([s.stopController.signal, controller.signal]);
    const leaderMessages = (await s.store.readLeaderMessages(s.convId)).messages;
    // Every provider's tools for this call (search_knowledge only for a task that asks for
    // precise facts, seed 003 §5.3, with a hint; MCP servers start here, on the first model call
    // that offers their tools).
    const offer = await this.#tools.offer(agentId);
    // Long-term memory this agent's role may read, recalled once per request (not per call).
    const memory = await recalledForRequest(s, agentId, meta.role_id, meta.trace_id);
    const input = buildModelInput({
      kind: "agent",
      system: `${PROMOTION_HINT}\n${NOTE_HINT}${offer.hint}`,
      messages,
      facts: { project_path: conv.project_path, goal: conversationGoal(leaderMessages) ?? conv.title },
      promoted: [...collectPromotions(leaderMessages), ...collectPromotions(messages)],
      privateNotes: deriveWorkNotes(messages),
      memory,
      budgets: s.limits.budgets,
    });
    const outcome = await callModel(s, model, agentId, input.messages, offer.tools.map((t) => t.spec), thinking, signal);
    meta = await counted;
    const traceId = meta.trace_id ?? (await s.traceOrNew()).trace_id;
    if (!outcome.ok) {
      await saveInterrupted(s, agentId, outcome.error, traceId, model.key, outcome.cancelled);
      // A person's interrupt or withdrawal cancelled this call alone: the next pass reads what they sent.
      if (outcome.cancelled && !signal.aborted) return RUN_AGAIN;
      const now = await s.readAgent(agentId);
      // A model that keeps failing (no fallback left) must not leave the leader waiting: the agent
      // reports the failure, so the leader can report partial results (seed 003 §6.1).
      if (outcome.error.reason !== "aborted" && now.status === "running") await reportFailure(s, agentId, now, `I could not finish: my model (${model.key}) failed — ${outcome.error.message}`);
      if (now.status === "running") await s.agentEvent(agentId, "pause");
      return interrupted(outcome.error.reason === "aborted" ? "stopped" : "model_failed");
    }
    const message = assistantMessage(outcome.result, traceId, { message_source: "sub_agent", agent_id: agentId, context: summarizeReport(input.report) });
    await saveAnswer(s, agentId, message, model.key, outcome.result, input.report);
    failpoint("agent.step", `${outcome.result.content ?? ""}${JSON.stringify(outcome.result.tool_calls)}`);
    let ended = false;
    for (const call of outcome.result.tool_calls) {
      if (signal.aborted) break;
      const ran = await this.#tools.run(agentId, call);
      if (ran.type === "pending") {
        // ask_master: the answer arrives later as the tool result. An approval: the later calls
        // wait for it (they run, in order, once it is decided).
        if (await awaitsApproval(s, agentId)) break;
        continue;
      }
      if (call.function.name === "report_to_leader" && !isErrorResult(ran.result)) ended = true;
    }
    if (!ended) return RUN_AGAIN;
    const now = await s.readAgent(agentId);
    if (now.status === "running" && !(now.pending_tool_calls ?? []).length) await s.agentEvent(agentId, "complete");
    // Reported: done, unless new work is waiting already (or an approval or answer holds a later call).
    if ((now.pending_messages ?? []).length) return RUN_AGAIN;
    return (now.pending_tool_calls ?? []).length ? WAIT_FOR_ANSWER : DONE;
  }
}
