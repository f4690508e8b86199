import "server-only";
/**
 * The Team Leader's loop: take what waits in its inbox, call its model with the context window,
 * save the answer, run its tool calls through the one pipeline (./pipeline.ts), and say what comes
 * next (./next-step.ts): another pass, or a stop to wait for reports, done, capped or interrupted.
 * One loop per conversation; waking a running loop makes it look again instead of starting a
 * second one. It waits to batch reports only when a report woke it.
 */
import { buildModelInput, collectPromotions, conversationGoal, PROMOTION_HINT, summarizeReport } from "@/lib/context";
import { buildRegistry, candidateNote, classifierModelKey, classifyIntent, classifyIntentWithModel, restrictRegistry, type IntentResult } from "@/lib/governance";
import { LEADER_READER } from "@/lib/memory/distill";
import { loadRegistry, type ChatModel } from "@/lib/models";
import { LEADER_PARTY, needsModelCall, newTurnId, SYSTEM_PARTY, unansweredToolCalls, USER_PARTY } from "@/lib/protocol";
import type { Message } from "@/lib/store";
import { failpoint } from "./failpoints";
import { leaderCallsSinceRequest } from "./leader-calls";
import { leaderSystemPrompt } from "./prompts";
import type { RoleChoice } from "@/lib/team-tools";
import { resolveDangling } from "./effects";
import { drainLeaderInbox } from "./mail";
import { recalledForRequest } from "./memory-recall";
import { CAPPED, DONE, interrupted, RUN_AGAIN, WAIT_FOR_REPORTS, type NextStep } from "./next-step";
import type { ToolPipeline } from "./pipeline";
import type { TeamState } from "./state";
import { assistantMessage, callModel, failureRefs, saveAnswer, saveInterrupted, thinkingLevel } from "./steps";
import { atWork, workingTrace, type AgentMeta } from "./types";
import { releaseQueued } from "./interventions";

/** The leader's loop of one conversation. */
export class LeaderLoop {
  readonly #s: TeamState;
  readonly #tools: ToolPipeline;
  #loop: Promise<void> | null = null;
  #again = false;
  #intent: { trace_id: string; result: IntentResult } | null = null;
  #last: NextStep | undefined;
  readonly #onCrash: (error: unknown) => Promise<void>;

  constructor(s: TeamState, tools: ToolPipeline, onCrash: (error: unknown) => Promise<void>) {
    this.#s = s;
    this.#tools = tools;
    this.#onCrash = onCrash;
  }

  /** What the loop's last pass decided (until it runs again). */
  get lastStep(): NextStep | undefined {
    return this.#last;
  }

  /** Whether the loop runs. */
  get running(): Promise<void> | null {
    return this.#loop;
  }

  /** Starts the loop, or asks the running one to look again. */
  wake(): void {
    if (this.#loop) {
      this.#again = true;
      return;
    }
    this.#loop = this.#run()
      .catch((error) => this.#onCrash(error))
      .finally(() => {
        this.#loop = null;
        if (this.#again) {
          this.#again = false;
          this.wake();
        }
      });
  }

  async #run(): Promise<void> {
    const s = this.#s;
    s.setLeaderBusy(true);
    await s.refreshPhase();
    try {
      for (;;) {
        this.#last = await this.#step();
        if (this.#last.type !== "run_again") break;
      }
    } finally {
      s.setLeaderBusy(false);
      await s.refreshPhase().catch(() => undefined);
    }
  }

  /** One pass of the loop, and what comes next. */
  async #step(): Promise<NextStep> {
    const s = this.#s;
    if (s.stopController.signal.aborted) return interrupted("stopped");
    // Woken by a report: wait a moment, so reports arriving together are read in one turn.
    // Any other pass (a person's message, a tool result) goes straight on.
    if (s.reportWaiting && s.limits.leaderBatchMs > 0) await new Promise((r) => setTimeout(r, s.limits.leaderBatchMs));
    s.reportWaiting = false;
    this.#again = false;
    let file = await s.store.readLeaderMessages(s.convId);
    const dangling = unansweredToolCalls(file.messages);
    if (dangling.length) {
      await resolveDangling(s, null, dangling, this.#tools);
      return RUN_AGAIN;
    }
    // Mid-request (its messages ask for a call), only that request's inbox joins this turn.
    const drained = await drainLeaderInbox(s, needsModelCall(file.messages) ? workingTrace(file.messages)?.trace_id : undefined);
    if (drained.count) file = await s.store.readLeaderMessages(s.convId);
    // What this turn does belongs to the request it answers (its agents, their reports).
    const working = workingTrace(file.messages, drained.trace);
    if (working && working.trace_id !== s.lastTrace?.trace_id) s.lastTrace = { trace_id: working.trace_id, turn_id: working.turn_id ?? newTurnId() };
    if (!needsModelCall(file.messages)) {
      if (this.#again) return RUN_AGAIN;
      if ((await s.store.listAgents(s.convId)).agents.some(atWork)) return WAIT_FOR_REPORTS;
      // The work is over: a queued message is taken up now, as a request of its own.
      return (await releaseQueued(s)) ? RUN_AGAIN : DONE;
    }
    // Counted from the saved messages, so the cap holds across a restart.
    if (leaderCallsSinceRequest(file.messages) >= s.limits.maxCallsPerTask) {
      s.notice("warning", "cap_calls", "notice.msg.leaderCallCap", { cap: s.limits.maxCallsPerTask });
      await s.emitNow({ type: "event", from: SYSTEM_PARTY, to: LEADER_PARTY, payload: { cap: s.limits.maxCallsPerTask }, action: "cap_calls", resource: "leader", status: "capped" });
      return CAPPED;
    }
    const conv = await s.store.get(s.convId);
    let model: ChatModel;
    try {
      model = await s.deps.models.modelFor(s.deps.root, conv.model_key);
    } catch (error) {
      s.notice("error", "model_error", "notice.msg.leaderNoModel", { model: conv.model_key, reason: "no_model" }, null, { ...(await failureRefs(s, null)), detail: (error as Error).message });
      return interrupted("no_model");
    }
    const { allowed } = await s.authorizedChoices();
    const offer = await this.#tools.offer(null);
    const intent = await this.#routeIntent(file.messages, allowed);
    const note = intent ? candidateNote(intent) : "";
    // Long-term memory relevant to the person's request, recalled once per request (not per call).
    const memory = await recalledForRequest(s, null, LEADER_READER, (await s.traceOrNew()).trace_id);
    // What the model sees: the three context slices within their token budgets (seed 003 §4.2);
    // the full history stays in messages.json.
    const input = buildModelInput({
      kind: "leader",
      system: `${leaderSystemPrompt({ projectPath: conv.project_path, conversationTitle: conv.title })}\n${PROMOTION_HINT}${note ? `\n\n${note}` : ""}`,
      messages: file.messages,
      facts: { project_path: conv.project_path, goal: conversationGoal(file.messages) ?? conv.title },
      promoted: collectPromotions(file.messages),
      memory,
      budgets: s.limits.budgets,
    });
    const t = await s.traceOrNew();
    const outcome = await callModel(s, model, null, input.messages, offer.tools.map((tool) => tool.spec), thinkingLevel(conv), s.stopController.signal);
    if (!outcome.ok) {
      await saveInterrupted(s, null, outcome.error, t.trace_id, model.key, outcome.cancelled);
      // A person's interrupt: the partial answer is kept, and what they said is read at once.
      if (outcome.cancelled && !s.stopController.signal.aborted) return RUN_AGAIN;
      return interrupted(outcome.error.reason === "aborted" ? "stopped" : "model_failed");
    }
    const message = assistantMessage(outcome.result, t.trace_id, { context: summarizeReport(input.report) });
    await saveAnswer(s, null, message, model.key, outcome.result, input.report);
    failpoint("leader.step", `${outcome.result.content ?? ""}${JSON.stringify(outcome.result.tool_calls)}`);
    if (!outcome.result.tool_calls.length) {
      await s.emitNow({ type: "reply", from: LEADER_PARTY, to: USER_PARTY, payload: { content: outcome.result.content ?? "" }, action: "leader_reply", resource: `conversation:${s.convId}`, reply: true });
      return RUN_AGAIN;
    }
    for (const call of outcome.result.tool_calls) {
      if (s.stopController.signal.aborted) break;
      await this.#tools.run(null, call);
    }
    return RUN_AGAIN;
  }

  /**
   * Intent routing (seed 003 §2.1, issue 9): the person's latest message is matched against the
   * role capability tags (declared or derived) and ranked by BM25 over the authorized roles' text,
   * and the leader is told which registered, authorized roles fit. Once per trace; the BM25 index
   * is reused while the authorized roles' texts stay the same.
   */
  async #routeIntent(messages: Message[], allowed: RoleChoice[]): Promise<IntentResult | null> {
    const s = this.#s;
    const trace = await s.traceOrNew();
    if (this.#intent?.trace_id === trace.trace_id) return this.#intent.result;
    let lastUser: Message | undefined;
    for (let i = messages.length - 1; i >= 0 && !lastUser; i--) {
      const m = messages[i]!;
      if (m.role === "user" && m.metadata?.message_source === "user") lastUser = m;
    }
    if (!lastUser) return null;
    const { agents } = await s.store.listAgents(s.convId);
    const registry = restrictRegistry(
      buildRegistry(await s.deps.roles.list(), {
        agents: agents.map((a) => ({ role_id: a.role_id, status: a.status, model_key: a.model_key, degraded: (a as AgentMeta).health === "DEGRADED" })),
      }),
      allowed.map((c) => c.id),
    );
    // A small classifier model when models.json names one (`"classifier": "<key>"`), else matching on tags.
    const classifier = classifierModelKey(await loadRegistry(s.deps.root));
    const text = String(lastUser.content ?? "");
    const result = classifier
      ? await classifyIntentWithModel(text, registry, await s.deps.models.modelFor(s.deps.root, classifier), { meta: { conversation_id: s.convId, trace_id: trace.trace_id } })
      : classifyIntent(text, registry);
    this.#intent = { trace_id: trace.trace_id, result };
    await s.emitNow({
      type: "event",
      from: SYSTEM_PARTY,
      to: LEADER_PARTY,
      payload: {
        labels: result.labels,
        candidates: result.candidates.map((c) => ({ role_id: c.role_id, score: c.score, matched: c.matched, derived: c.derived, bm25: c.bm25 })),
      },
      action: "intent_routing",
      resource: `conversation:${s.convId}`,
    });
    return result;
  }
}
