import "server-only";
/**
 * One conversation's team at work: the public face of its run. The parts live in
 * lib/runtime/team/:
 * - state.ts: what every part shares (files through the store, events, the timeline, ids, the
 *   project-folder gate, agents' status changes);
 * - leader-loop.ts and agent-loop.ts: the loops (a pass returns its next step, next-step.ts);
 * - pipeline.ts: the one dispatch pipeline of every tool call, over the tool providers the run
 *   is given (tool-kit.ts says what a tool object is; lib/runtime/tool-providers has them);
 * - steps.ts: a step's persistence (model call, answer, usage, tool results);
 * - effects.ts: side effects run once, and recovery of calls a crash left unanswered;
 * - mail.ts: messages between the parties.
 *
 * Rules (issue 3, seed §8.1): a sub-agent's metadata and messages are saved before every model
 * call, after every tool call, on every status change and after every incoming message is
 * handled; the leader's messages after every model call and tool call. Every save goes through
 * the store's one durable write path (the conversation's step log). Hard caps (agents per
 * conversation, calls per task) are enforced in code.
 */
import { agentTopic } from "@/lib/bus";
import { ConflictError, ValidationError } from "@/lib/contracts/errors";
import { auditPayload } from "@/lib/governance";
import { loadRegistry, normalizeTokenStatistics, publicModels } from "@/lib/models";
import type { ModelHealth } from "@/lib/models/resilience";
import { agentParty, LEADER_PARTY, needsModelCall, startTrace, SYSTEM_PARTY, timelineRecord, unansweredToolCalls } from "@/lib/protocol";
import type { EngineDeps } from "./team/deps";
import { authorParty, OWNER_ID, speakerName, type Author } from "@/lib/contracts/people";
import { queuedOf, type InterventionOutcome, type InterventionStrategy, type QueuedMessage } from "@/lib/contracts/interventions";
import { postIntervention, queuedMessages, reorderQueued, withdrawQueued, withdrawTask } from "./team/interventions";
import type { ConversationMetadata, Message } from "@/lib/store";
import type { RuntimeLimits } from "./team/config";
import type { AgentView, ConversationSnapshot } from "@/lib/contracts/events";
import { isFinalAgentStatus } from "./team/state-machine";
import { loopCrashed } from "./team/loop-crashed";
import { permissionsNow } from "./team/permissions-now";
import { endAbilityCalls, resumeAbilityCalls } from "./team/abilities";
import { AgentLoops } from "./team/agent-loop";
import { decideApproval, type ApprovalDecision } from "./team/approvals";
import { LeaderLoop } from "./team/leader-loop";
import { retryWork } from "./team/retry";
import { scheduleDistill } from "./team/memory-distill";
import type { NextStep } from "./team/next-step";
import { ToolPipeline } from "./team/pipeline";
import type { ToolProviders } from "./team/tool-kit";
import { terminateAgent } from "./team/terminate";
import { answerQuestion, messageAgent } from "./team/mail";
import { PersonSharedContext } from "./team/person-shared-context";
import type { EngineBus, EngineStorage } from "./team/ports";
import { TeamState } from "./team/state";
import { atWork, leaderInbox, messageId, type AgentMeta, type Sender } from "./team/types";

export { CONTEXT_FILE_NAME } from "./team/ports";

/** Who a message is from when no one signed in: the owner at the machine (docs/people.md). */
const LOCAL_OWNER: Author = { id: OWNER_ID, name: "User", via: "local" };

/** Runs and observes one conversation. Create through the runtime manager, one per conversation. */
export class TeamRun {
  readonly convId: string;
  readonly limits: RuntimeLimits;
  readonly #s: TeamState;
  readonly #leader: LeaderLoop;
  readonly #agents: AgentLoops;
  readonly #listening = new Map<number, () => void>();
  #resumed: Promise<void> | null = null; // see resume()
  readonly #offHealth: () => void;

  /**
   * `ports` are the storage and the bus the run works through (./team/ports.ts); by default
   * `deps.storage` and `deps.bus`. `tools` are the providers of the leader's and the agents'
   * tools (./team/tool-kit.ts), run through one pipeline.
   */
  constructor(deps: EngineDeps, convId: string, limits: RuntimeLimits, tools: ToolProviders, ports: { storage?: EngineStorage; bus?: EngineBus } = {}) {
    this.convId = convId;
    this.limits = limits;
    this.#s = new TeamState(deps, convId, limits, ports);
    // Every tool call of both loops goes through one pipeline, over the providers the run was given.
    const pipeline = new ToolPipeline(this.#s, tools);
    this.#leader = new LeaderLoop(this.#s, pipeline, (error) => loopCrashed(this.#s, null, error));
    this.#agents = new AgentLoops(this.#s, pipeline, (agentId, error) => loopCrashed(this.#s, agentId, error));
    this.#s.setWakers({ wakeLeader: () => this.wakeLeader(), notifyAgent: (agentId) => this.#notifyAgent(agentId) });
    // A final summary (back to IDLE) is distilled into long-term memory in the background.
    this.#s.onIdle = () => void scheduleDistill(this.#s, "summary");
    this.#offHealth = deps.models.subscribeHealth((h) => {
      if (h.meta?.conversation_id === this.convId) void this.#onModelHealth(h).catch(() => undefined);
    });
  }

  /**
   * An agent whose model keeps failing is marked DEGRADED (seed 003 §6.1) — the fallback model
   * answers when the entry names one — and is marked OK again when its model answers.
   */
  async #onModelHealth(h: ModelHealth): Promise<void> {
    const s = this.#s;
    const agentId = h.meta?.agent_id ?? null;
    const health = h.state === "ok" ? "OK" : "DEGRADED";
    let was: string | undefined;
    if (agentId !== null) {
      const meta = await s.updateAgent(agentId, (m) => {
        was = m.health;
        return { ...m, health, health_reason: h.reason ?? null, health_model: h.fallback_key ?? h.model_key };
      });
      await s.publishAgent(meta);
    }
    if (health === "DEGRADED" && was !== "DEGRADED") {
      const why = { ...(h.reason ? { reason: h.reason } : {}) };
      const extras = h.message ? { detail: h.message } : {};
      if (h.fallback_key) s.notice("warning", "model_degraded", "notice.msg.modelDegradedFallback", { model: h.model_key, ...why, fallback: h.fallback_key }, agentId, extras);
      else s.notice("warning", "model_degraded", "notice.msg.modelDegraded", { model: h.model_key, ...why }, agentId, extras);
      await s.emitNow({ type: "event", from: SYSTEM_PARTY, to: agentId === null ? LEADER_PARTY : agentParty(agentId), payload: { model: h.model_key, reason: h.reason ?? null, fallback: h.fallback_key ?? null }, action: "degraded", resource: `model:${h.model_key}`, status: "failed" });
    } else if (health === "OK" && was === "DEGRADED") {
      s.notice("info", "model_recovered", "notice.msg.modelRecovered", { model: h.model_key }, agentId);
    }
  }

  // ---------------------------------------------------------------- what a viewer sees

  /** The full state of the conversation, as the first SSE event and the agents API show it. */
  async snapshot(): Promise<ConversationSnapshot> {
    const s = this.#s;
    const conversation = await s.store.get(this.convId);
    const leader = await s.store.readLeaderMessages(this.convId);
    const stats = normalizeTokenStatistics(leader.token_statistics);
    const { agents } = await s.store.listAgents(this.convId);
    // The same label as GET /api/models (the offline model always reads "… — offline"); an
    // unknown key is shown as it is, and the leader's calls report the error.
    const registry = await loadRegistry(s.deps.root).catch(() => null);
    const modelLabel = (registry && publicModels(registry).find((m) => m.key === conversation.model_key)?.label) || conversation.model_key;
    // Shown to a browser: only once what it holds is durable.
    await s.durable();
    return {
      conversation,
      leader: { messages: leader.messages, busy: s.leaderBusy, token_statistics: stats as Record<string, unknown> },
      agents: agents.map((a) => s.agentView(a as AgentMeta, stats)),
      questions: s.questionsOf(agents as AgentMeta[]),
      notices: s.notices,
      caps: { max_agents: this.limits.maxAgents, max_calls_per_task: this.limits.maxCallsPerTask },
      model_label: modelLabel,
      queued: queuedOf(leader.metadata),
    };
  }

  /**
   * Resolves once every change made so far is durable and the events describing them are
   * published: a person's request is answered, and a viewer shown state, only then (the engine
   * computes ahead of its step log: lib/runtime/team/state.ts).
   */
  durable(): Promise<void> {
    return this.#s.durable();
  }

  /**
   * What each loop decided at the end of its last pass (lib/runtime/team/next-step.ts): the
   * leader's and every agent's that ran in this process; undefined before a loop's first pass.
   */
  lastSteps(): { leader: NextStep | undefined; agent: (agentId: number) => NextStep | undefined } {
    return { leader: this.#leader.lastStep, agent: (agentId) => this.#agents.lastStep(agentId) };
  }

  /** One agent's view and whole conversation. */
  async agentDetail(agentId: number): Promise<{ agent: AgentView; messages: Message[] }> {
    const s = this.#s;
    const meta = await s.readAgent(agentId);
    const messages = await s.store.readAgentMessages(this.convId, agentId);
    const leader = await s.store.readLeaderMessages(this.convId);
    return { agent: s.agentView(meta, normalizeTokenStatistics(leader.token_statistics)), messages: messages.messages };
  }

  // ---------------------------------------------------------------- person entry points

  /**
   * Whether a run is going (issue 32): the leader's or an agent's loop is running, or an agent is
   * at work (waiting for an answer or an approval counts).
   */
  async isGoing(): Promise<boolean> {
    if (this.working) return true;
    return ((await this.#s.store.listAgents(this.convId)).agents as AgentMeta[]).some(atWork);
  }

  /**
   * A person's message to the leader. When no run is going it starts a trace and wakes the
   * leader, as ever; while one is going it is an intervention handled by `strategy` (default
   * steer; ./team/interventions.ts).
   */
  async postUserMessage(content: string, author?: Author, strategy: InterventionStrategy = "steer"): Promise<{ message_id: string; trace_id: string; intervention?: InterventionOutcome }> {
    const s = this.#s;
    await this.#assertActive();
    if (await this.isGoing()) return postIntervention(s, { content, author: author ?? LOCAL_OWNER, strategy, agentId: null });
    const project = await s.projectGate();
    if (!project.ok) {
      await s.projectRefused(project, LEADER_PARTY, "user_message", "notice.msg.projectCannotRun");
      throw new ConflictError(`This conversation cannot run: ${project.message}`, { reason: project.reason, project_path: project.path });
    }
    // The person's words are audited like a model's: a preview and a hash of the full text.
    const envelope = startTrace(authorParty(author), LEADER_PARTY, auditPayload("request", { content, author: author?.name ?? null }), { author });
    const record = timelineRecord(envelope, { action: "user_message", resource: `conversation:${this.convId}` });
    await s.storage.appendTimeline(this.convId, record);
    s.lastTrace = { trace_id: envelope.trace_id, turn_id: envelope.turn_id };
    const message: Message = {
      role: "user",
      content,
      message_id: messageId("msg_user"),
      metadata: { message_source: "user", visibility: "chat", starts_work: true, trace_id: envelope.trace_id, turn_id: envelope.turn_id, ...(author ? { author } : {}) },
    };
    await s.store.updateLeaderMessages(this.convId, (f) => ({ ...f, messages: [...f.messages, message] }));
    s.publish({ type: "timeline", record });
    s.publish({ type: "message", agent_id: null, message });
    if (s.stopController.signal.aborted) s.stopController = new AbortController();
    this.wakeLeader();
    return { message_id: message.message_id!, trace_id: envelope.trace_id };
  }

  /**
   * A person changes the conversation's model (a registered key, checked by the caller): the
   * leader's next call and the agents created from now on use it, and the timeline records the
   * change (from which key to which). Unchanged: nothing is written.
   */
  async changeModel(modelKey: string, author?: Author): Promise<ConversationMetadata> {
    const s = this.#s;
    const before = await s.store.get(this.convId);
    if (before.model_key === modelKey) return before;
    const updated = await s.store.update(this.convId, { model_key: modelKey });
    const record = timelineRecord(startTrace(authorParty(author), SYSTEM_PARTY, { from: before.model_key, to: modelKey }, { author }), { action: "model_changed", resource: `model:${modelKey}` });
    await s.storage.appendTimeline(this.convId, record);
    s.publish({ type: "timeline", record });
    return updated;
  }

  /** The shared context as a person reads and changes it (./team/person-shared-context.ts). */
  get sharedContext(): PersonSharedContext {
    return new PersonSharedContext(this.#s);
  }

  /** A person's (or the leader's) message to one sub-agent, delivered before its next step. */
  async messageAgent(agentId: number, content: string, from: Sender): Promise<string> {
    await this.#assertActive();
    return messageAgent(this.#s, agentId, content, from);
  }

  /**
   * A person's message to one sub-agent: while a run is going, an intervention by `strategy`
   * (steer, queue, interrupt; a new task is the leader's); else an ordinary message.
   */
  async personToAgent(agentId: number, content: string, author: Author, strategy: InterventionStrategy = "steer"): Promise<{ message_id: string; intervention?: InterventionOutcome }> {
    await this.#assertActive();
    await this.#s.readAgent(agentId);
    if (strategy === "new_task") throw new ValidationError("A new task goes to the Team Leader, not to a sub-agent.", [{ path: "strategy", message: "new_task is for the leader only" }]);
    if (await this.isGoing()) return postIntervention(this.#s, { content, author, strategy, agentId });
    return { message_id: await messageAgent(this.#s, agentId, content, { name: speakerName(author), agentId: null, party: authorParty(author), abbrev: "usr", author }) };
  }

  /** The messages people queued until the current work is over, in the order they will be handled. */
  queued(): Promise<QueuedMessage[]> {
    return queuedMessages(this.#s);
  }

  /** A person withdraws a queued message (404 when it is no longer queued). */
  async withdrawQueued(queueId: string, author: Author): Promise<QueuedMessage[]> {
    return withdrawQueued(this.#s, queueId, author);
  }

  /** A person puts the queued messages in a new order (409 when the queue changed meanwhile). */
  async reorderQueued(order: string[], author: Author): Promise<QueuedMessage[]> {
    return reorderQueued(this.#s, order, author);
  }

  /** A person withdraws the task an agent works on: it is told and stops, its work so far kept (409 when it has none). */
  async withdrawTask(agentId: number, author: Author): Promise<{ task_id: string }> {
    await this.#assertActive();
    return withdrawTask(this.#s, agentId, author);
  }

  /** Answers a pending `ask_master` question (by the leader or a person) and resumes the agent. */
  async answerQuestion(questionId: string, answer: string, answeredBy: string, expectedAgentId?: number, author?: Author): Promise<{ agent_id: number }> {
    await this.#assertActive();
    return answerQuestion(this.#s, questionId, answer, answeredBy, expectedAgentId, author);
  }

  /** A person approves or denies a sub-agent's tool call that waits for approval; 404 unknown, 409 already decided. */
  async decideApproval(agentId: number, decision: ApprovalDecision): Promise<{ tool_call_id: string; decision: ApprovalDecision["decision"] }> {
    await this.#assertActive();
    return decideApproval(this.#s, agentId, decision);
  }

  /** An archived conversation does no work: nothing a person sends may wake it. */
  async #assertActive(): Promise<void> {
    if ((await this.#s.store.get(this.convId)).status === "archived") throw new ConflictError("This conversation is archived; unarchive it to continue.");
  }

  /** Terminates one agent: its model call is aborted, its token revoked, and it never runs again. */
  terminateAgent(agentId: number, reason: string, by: string, author?: Author): Promise<void> {
    return terminateAgent(this.#s, agentId, reason, by, author);
  }

  /**
   * A person retries work that failed: the leader's (null) model call for the message it failed
   * on, or an idle agent's task (./team/retry.ts). 409 when there is nothing to retry.
   */
  async retry(agentId: number | null): Promise<{ retried: "leader" | number }> {
    await this.#assertActive();
    return retryWork(this.#s, agentId, { leaderRunning: this.#leader.running !== null, wakeLeader: () => this.wakeLeader(), wakeAgent: (id) => this.wakeAgent(id) });
  }

  /** Stops the whole conversation: every model stream is aborted and no agent is left running. */
  async stop(author?: Author): Promise<void> {
    const s = this.#s;
    s.stopController.abort(new Error("stopped"));
    for (const c of s.agentControllers.values()) c.abort(new Error("stopped"));
    await Promise.allSettled([this.#leader.running, ...this.#agents.running]);
    // A caller waiting on an ability call gets a tool error instead of waiting for ever.
    await endAbilityCalls(s, "the conversation was stopped", { wake: false });
    // The conversation's MCP servers stop with it (the next use starts them again).
    await this.#s.deps.mcp.stopConversation(this.convId);
    const { agents } = await s.store.listAgents(this.convId);
    for (const a of agents) {
      if (a.status === "running") await s.agentEvent(a.agent_id, "pause");
    }
    s.setLeaderBusy(false);
    await s.refreshPhase();
    await s.emitNow({ type: "control", from: authorParty(author), to: SYSTEM_PARTY, payload: {}, action: "stop", resource: `conversation:${this.convId}`, author });
    s.notice("info", "stopped", "notice.msg.stopped");
    s.stopController = new AbortController();
  }

  // ---------------------------------------------------------------- loops

  /** Starts the leader's loop, or asks a running one to look again (never once halted). */
  wakeLeader(): void {
    if (!this.#s.halted) this.#leader.wake();
  }

  /** Starts an agent's loop, or asks a running one to look again (never once halted). */
  wakeAgent(agentId: number): void {
    if (!this.#s.halted) this.#agents.wake(agentId);
  }

  /**
   * This instance may no longer write the conversation (another instance took its lease over, or
   * its commits are lost): the run stops here at once. Every model call is aborted and no loop
   * starts another step (their next step sees the stop), nothing more is published or woken, the
   * agents' tokens are revoked (a tool call under way is refused) and the listeners let go. It
   * writes nothing: the storage refuses its writes anyway, and the new owner resumes from what
   * was committed. The engine drops the run (lib/runtime/engine.ts).
   */
  halt(reason: Error): void {
    const s = this.#s;
    if (s.halted) return;
    s.halted = reason;
    s.stopController.abort(reason);
    for (const c of s.agentControllers.values()) c.abort(reason);
    this.dispose();
  }

  /** Why the run was halted (null while it may run). */
  get halted(): Error | null {
    return this.#s.halted;
  }

  /**
   * Each agent listens on its own bus topic: anything that changes its inbox (a task, a message,
   * an answer) publishes there, and the listener wakes the agent's loop.
   */
  #listen(agentId: number): void {
    if (this.#listening.has(agentId)) return;
    this.#listening.set(agentId, this.#s.bus.subscribe(agentTopic(this.convId, agentId), () => this.wakeAgent(agentId)));
  }

  #notifyAgent(agentId: number): void {
    this.#listen(agentId);
    this.#s.bus.publish(agentTopic(this.convId, agentId), { type: "inbox" });
  }

  /** Stops listening on the agents' topics and revokes the agents' tokens (archived or deleted). */
  dispose(): void {
    this.#s.deps.tokens.revoke(this.convId);
    this.release();
  }

  /**
   * Lets go of an idle run (no loop running) without ending anything: its listeners stop, its
   * agents keep their tokens, and the next request for the conversation starts a new run object.
   */
  release(): void {
    this.#offHealth();
    for (const unsubscribe of this.#listening.values()) unsubscribe();
    this.#listening.clear();
  }

  /** Whether the leader or any agent loop is running. */
  get working(): boolean {
    return this.#leader.running !== null || this.#agents.running.length > 0;
  }

  /** Whether this run holds notices for the person (kept in memory only, so a released run would lose them). */
  get hasNotices(): boolean {
    return this.#s.notices.length > 0;
  }

  /** Resolves when no loop of this conversation is running (tests and shutdown). */
  async idle(): Promise<void> {
    while (this.working) await Promise.allSettled([this.#leader.running, ...this.#agents.running]);
  }

  // ---------------------------------------------------------------- restart

  /**
   * After a restart (or an unarchive): every agent that is not finished gets its token again,
   * scoped to what its role allows now (never more than it was given); running agents continue
   * from their last saved messages, waiting agents keep waiting, and a leader with unanswered
   * input gets its turn. Once per run object: a second call (a start's resume and a takeover
   * scan reaching one run at once) gets the first's promise; a failed one may be tried again.
   */
  resume(): Promise<void> {
    return (this.#resumed ??= this.#resume().catch((error: unknown) => {
      this.#resumed = null;
      throw error;
    }));
  }

  async #resume(): Promise<void> {
    const s = this.#s;
    const conv = await s.store.get(this.convId);
    if (conv.status === "archived") return;
    // A refused project folder (the data folder moved into it, a symlink now pointing elsewhere…)
    // resumes nothing: no loop runs, no token is issued, and the person is told why.
    const project = await s.projectGate();
    if (!project.ok) {
      // On a takeover this is the instance that cannot see the folder: said in its log too.
      console.error(`[astrion] ${this.convId}: not resumed here: its project folder ${project.path} cannot be used on this instance (${project.message})`);
      await s.projectRefused(project, SYSTEM_PARTY, "resume", "notice.msg.projectNotResumed");
      return;
    }
    const { agents } = await s.store.listAgents(this.convId);
    for (const a of agents as AgentMeta[]) {
      if (isFinalAgentStatus(a.status)) continue;
      const permissions = await permissionsNow(s, a);
      if (permissions) this.#s.deps.tokens.ensure({ conversation_id: this.convId, agent_id: a.agent_id, role_id: a.role_id, permissions, project_path: project.path });
      else {
        this.#s.deps.tokens.revoke(this.convId, a.agent_id);
        s.notice("warning", "role_missing", "notice.msg.roleMissing", { agent: a.display_name, role: a.role_id }, a.agent_id);
      }
      this.#listen(a.agent_id);
      if (a.status === "running" || (a.status !== "waiting" && (a.pending_messages ?? []).length)) this.wakeAgent(a.agent_id);
    }
    await resumeAbilityCalls(s);
    const leader = await s.store.readLeaderMessages(this.convId);
    if (needsModelCall(leader.messages) || unansweredToolCalls(leader.messages).length || leaderInbox(leader.metadata).length) this.wakeLeader();
    else await s.refreshPhase();
  }
}
