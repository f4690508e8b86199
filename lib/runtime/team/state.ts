import "server-only";
/**
 * The state of one conversation's team run that every part of it shares: the conversation's
 * files (through the store, which holds an open conversation in memory), what the person is told
 * (events, notices, the timeline), ids, the project-folder gate and the agents' status changes.
 *
 * Rules kept here (issue 3, seed §8.1):
 * - Every envelope is appended to `timeline.jsonl` before it is published; every other event is
 *   published after the change it describes was saved. A browser never sees what a crash loses.
 * - The engine computes ahead: its changes resolve once they are ordered for durability, and an
 *   event waits in the outbox until every change made before it was published is durable (one
 *   group commit releases all the events of its tick, in order). A person's request is answered
 *   only after {@link TeamState.durable}.
 * - Statuses change only through lib/runtime/state-machine; the phase is derived from them.
 */
import { conversationTopic } from "@/lib/bus";
import { auditPayload, allowListFromMetadata, authorizedRoles, type AgentToken } from "@/lib/governance";
import { normalizeTokenStatistics, tokenCountsOf, usageAgentKey } from "@/lib/models";
import { agentIdOfParty, agentParty, follow, newTraceId, newTurnId, nextSeedId, replyTo, SYSTEM_PARTY, timelineRecord, type Envelope, type EnvelopeMeta, type EnvelopeType, type SeedCounters, type SeedIdKind } from "@/lib/protocol";
import type { RoleCatalog } from "@/lib/roles";
import type { EngineDeps } from "./deps";
import type { ConversationMetadata } from "@/lib/store";
import type { ProjectFolderChanged, ProjectFolderRefused } from "@/lib/workspace";
import type { RuntimeLimits } from "./config";
import type { AgentActionInit, AgentView, Notice, PendingQuestion, RuntimeEvent } from "@/lib/contracts/events";
import type { EffectJournal, EngineBus, EngineStorage } from "./ports";
import { derivePhase, transitionAgent, type AgentEvent } from "./state-machine";
import type { RoleChoice } from "@/lib/team-tools";
import { AgentActivities } from "./activity";
import { makeNotice, type NoticeExtras, type NoticeKey, type NoticeParams } from "./notice";
import { roleChoicesOf, type RoleChoices } from "./role-choices";
import { Outbox } from "./outbox";
import { errorResult, phasePath, traceCause, type AgentMeta } from "./types";
import type { Author } from "@/lib/contracts/people";

/** What an envelope written by the runtime says. */
export interface EmitInit {
  type: EnvelopeType;
  from: string;
  to: string;
  payload: Record<string, unknown>;
  action: string;
  resource?: string | null;
  status?: string;
  version?: number;
  producer?: "code" | "model";
  reply?: boolean;
  /** The person who did it (issue 32): kept on the envelope. */
  author?: Author;
  /** The envelope's `meta` (an intervention's `meta.intervention`). */
  meta?: EnvelopeMeta;
}

/** How the loops are woken (set by the run that owns them). */
export interface Wakers {
  wakeLeader(): void;
  /** Tells an agent that its inbox changed (through its bus topic). */
  notifyAgent(agentId: number): void;
}

/** The conversation's seed counters, kept in its metadata.json. */
interface ConversationExtras {
  seed_counters?: SeedCounters;
}


/** One conversation's shared run state. Made by {@link TeamRun}; one per conversation. */
export class TeamState {
  readonly deps: EngineDeps;
  readonly convId: string;
  readonly limits: RuntimeLimits;
  readonly storage: EngineStorage;
  readonly bus: EngineBus;
  readonly journal: EffectJournal;
  /** Aborted by stop: every model stream and loop of the conversation ends. */
  stopController = new AbortController();
  readonly agentControllers = new Map<number, AbortController>();
  /** The model call in flight of the leader (null) and of each agent: its own controller, for a person's interrupt. */
  readonly calls = new Map<number | null, AbortController>();
  /** A report reached the leader's inbox since its loop last looked. */
  reportWaiting = false;
  notices: Notice[] = [];
  leaderBusy = false;
  /** What each agent is doing, and its last few actions. */
  readonly activity = new AgentActivities();
  #lastTrace: { trace_id: string; turn_id: string } | null = null;
  #roleChoices: { catalog: RoleCatalog; value: RoleChoices } | null = null;
  /** Serializes read-modify-writes of the conversation's seed counters. */
  #counterChain: Promise<unknown> = Promise.resolve();
  /** The project folder this run started (or resumed) with: the one its agents' tokens carry. */
  #projectPath: string | null = null;
  /** Project-folder refusals already told to the person (one notice each, not one per tool call). */
  readonly #projectNoticed = new Set<string>();
  #wakers: Wakers | null = null;
  /** Called, not awaited, each time the phase comes back to IDLE (the run schedules memory distillation). */
  onIdle: (() => void) | null = null;
  /** Audit records of tool calls whose results are not saved yet. */
  #audits: Promise<void>[] = [];
  /** Events wait here until the changes made before them are durable (./outbox.ts). */
  readonly #outbox: Outbox<RuntimeEvent>;

  constructor(deps: EngineDeps, convId: string, limits: RuntimeLimits, ports: { storage?: EngineStorage; bus?: EngineBus } = {}) {
    this.deps = deps;
    this.convId = convId;
    this.limits = limits;
    this.storage = ports.storage ?? deps.storage;
    this.bus = ports.bus ?? deps.bus;
    this.journal = this.storage.journal(convId);
    const topic = conversationTopic(convId);
    this.#outbox = new Outbox(() => this.storage.durability(convId), (event) => this.bus.publish(topic, event));
  }

  /** The conversation's files (through the storage port). */
  get store() {
    return this.storage.conversations;
  }

  /** Connects the loops' wake-up calls (once, by the run). */
  setWakers(wakers: Wakers): void {
    this.#wakers = wakers;
  }

  wakeLeader(): void {
    if (!this.halted) this.#wakers?.wakeLeader();
  }

  notifyAgent(agentId: number): void {
    if (!this.halted) this.#wakers?.notifyAgent(agentId);
  }

  // ---------------------------------------------------------------- events and timeline

  /**
   * Publishes `event` to the conversation's viewers once every change made so far is durable
   * (at once when it is), in order; dropped when the storage fails (./outbox.ts).
   */
  publish(event: RuntimeEvent): void {
    // A halted run's events could describe what another instance now decides: none leaves.
    if (this.halted) return;
    this.#outbox.publish(event);
  }

  /**
   * Why this instance may no longer run the conversation (its lease was taken over, its commits
   * are lost), once it may not: nothing more is published, no loop is woken (TeamRun.halt).
   */
  halted: Error | null = null;

  /**
   * Resolves once every change made so far is durable and every event published before the call
   * has reached the bus: what a person's request changed is then safe to acknowledge.
   */
  durable(): Promise<void> {
    return this.#outbox.durable();
  }

  /** Appends an envelope to the timeline (durably), then publishes it. */
  async emit(cause: Envelope, init: EmitInit): Promise<Envelope> {
    // The payload is audited by lib/governance: model-written text as a preview and a hash of the full text.
    const payload = auditPayload(init.reply ? "reply" : init.type, init.payload);
    const envelope = init.reply
      ? replyTo(cause, payload, { from: init.from, to: init.to, author: init.author, ...(init.meta ? { meta: init.meta } : {}) })
      : follow(cause, { type: init.type, from: init.from, to: init.to, payload, producer: init.producer ?? "code", author: init.author, ...(init.meta ? { meta: init.meta } : {}) });
    const record = timelineRecord(envelope, { action: init.action, resource: init.resource ?? null, status: init.status ?? "ok", version: init.version ?? 0 });
    await this.storage.appendTimeline(this.convId, record);
    this.publish({ type: "timeline", record });
    return envelope;
  }

  /**
   * {@link emit} caused by the conversation's current trace, or, for what an agent does (or the
   * system says about it), by that agent's task: with two requests running at once (issue 32), an
   * agent's audit records and events stay in its own request's trace.
   */
  async emitNow(init: EmitInit): Promise<Envelope> {
    const agentId = agentIdOfParty(init.from) ?? (init.from === SYSTEM_PARTY ? agentIdOfParty(init.to) : null);
    if (agentId !== null) {
      const meta = await this.readAgent(agentId).catch(() => null);
      if (meta?.trace_id && meta.task_turn_id) return this.emit(traceCause(meta.trace_id, meta.task_turn_id), init);
    }
    return this.emit(await this.cause(), init);
  }

  /** The cause of an agent's envelopes: its task's trace when it has one, else the current one. */
  async causeFor(meta: AgentMeta): Promise<Envelope> {
    return meta.trace_id && meta.task_turn_id ? traceCause(meta.trace_id, meta.task_turn_id) : this.cause();
  }

  /**
   * Shows a notice (./notice.ts): `key` is its text in the i18n dictionaries, rendered in the
   * viewer's language, a `reason` param names its cause by code; the English text and `detail`
   * go along for logs and API clients. `extras` tie a failure to the trace and the message it
   * failed on.
   */
  notice(level: Notice["level"], code: string, key: NoticeKey, params: NoticeParams = {}, agentId: number | null = null, extras: NoticeExtras = {}): void {
    const notice = makeNotice(level, code, key, params, agentId, extras, new Date().toISOString());
    this.notices = [...this.notices.slice(-19), notice];
    this.publish({ type: "notice", notice });
  }

  /** Records what an agent is doing now (`think` for a model call). */
  setActivity(agentId: number, init: AgentActionInit): void {
    this.activity.set(agentId, init, new Date().toISOString());
  }

  /**
   * Every data access is audited in the timeline (seed 003 §6.4): who read what, and how much.
   * The record is appended while the tool's result is saved (both are awaited by
   * {@link settleAudits}, which saving a tool result calls), so the two share the step's tick.
   */
  auditAccess(agentId: number, action: string, resource: string, payload: Record<string, unknown>): void {
    const audit = this.emitNow({ type: "event", from: agentParty(agentId), to: SYSTEM_PARTY, payload, action, resource }).then(() => undefined);
    // Handled here too, so a loop that stops before saving the result leaves no unhandled rejection.
    audit.catch(() => undefined);
    this.#audits.push(audit);
  }

  /** Resolves once every audit record started so far is recorded (ordered with the step's changes; published once durable); rejects with the first failure. */
  async settleAudits(): Promise<void> {
    const pending = this.#audits;
    this.#audits = [];
    await Promise.all(pending);
  }

  // ---------------------------------------------------------------- traces and ids

  get lastTrace(): { trace_id: string; turn_id: string } | null {
    return this.#lastTrace;
  }

  set lastTrace(trace: { trace_id: string; turn_id: string }) {
    this.#lastTrace = trace;
  }

  /** The conversation's current trace: the latest saved one (looked up once), or a new one. */
  async traceOrNew(): Promise<{ trace_id: string; turn_id: string }> {
    if (this.#lastTrace) return this.#lastTrace;
    const file = await this.store.readLeaderMessages(this.convId);
    for (let i = file.messages.length - 1; i >= 0; i--) {
      const meta = file.messages[i]!.metadata as { trace_id?: string; turn_id?: string } | undefined;
      if (meta?.trace_id && meta.turn_id) {
        this.#lastTrace = { trace_id: meta.trace_id, turn_id: meta.turn_id };
        return this.#lastTrace;
      }
    }
    this.#lastTrace = { trace_id: newTraceId(), turn_id: newTurnId() };
    return this.#lastTrace;
  }

  async cause(): Promise<Envelope> {
    const t = await this.traceOrNew();
    return traceCause(t.trace_id, t.turn_id);
  }

  /** The next seed-style id (`task_001`, `msg_tl_001`, `out_uio_001`, `ask_uio_001`), persisted per conversation. */
  nextId(kind: SeedIdKind, abbrev?: string): Promise<string> {
    const run = this.#counterChain.then(async () => {
      let id = "";
      await this.store.update(this.convId, (meta) => {
        const m = meta as ConversationMetadata & ConversationExtras;
        const next = nextSeedId(kind, m.seed_counters ?? {}, abbrev);
        id = next.id;
        return { ...m, seed_counters: next.counters };
      });
      return id;
    });
    this.#counterChain = run.catch(() => undefined);
    return run;
  }

  // ---------------------------------------------------------------- project folder and tokens

  /**
   * The project folder, checked now (lib/workspace/project-folder.ts): the folder rules on its
   * real path and, once this run has started, that metadata.json still names the folder it
   * started with. Called when a run starts or resumes and before every tool call.
   */
  async projectGate() {
    const conv = await this.store.get(this.convId);
    const check = await this.deps.workspace.confirmProjectFolder(conv.project_path, this.#projectPath, [{ kind: "data", path: this.deps.root }]);
    if (check.ok) this.#projectPath ??= check.path;
    return check;
  }

  /** A refused project folder: audited as refused, told to the person once, answered as a tool error. */
  async projectRefused(check: ProjectFolderRefused | ProjectFolderChanged, to: string, action: string, lead: NoticeKey = "notice.msg.projectNoTools"): Promise<string> {
    await this.emitNow({ type: "event", from: SYSTEM_PARTY, to, payload: { code: check.reason, reason: check.message }, action, resource: `project:${check.path}`, status: "refused" });
    const key = `${check.reason}\n${check.path}`;
    if (!this.#projectNoticed.has(key)) {
      this.#projectNoticed.add(key);
      const reason = check.reason === "project_changed" ? check.reason : (`project_${check.reason}` as const);
      const where: Record<string, string> = check.reason === "project_changed" ? { recorded: check.recorded } : { folder: check.folder ?? "" };
      this.notice("error", "project_refused", lead, { reason, path: check.path, ...where }, null, { detail: check.message });
    }
    return errorResult(`refused: ${check.message}`);
  }

  /**
   * The agent's live token: issued when it was created or when its run resumed, never here. A
   * revoked token (terminated, archived, deleted, its role's permissions narrowed) stays revoked.
   */
  tokenOf(agentId: number): AgentToken | undefined {
    return this.deps.tokens.get(this.convId, agentId);
  }

  // ---------------------------------------------------------------- roles

  /**
   * The registered roles an agent may be made of, with their details: worked out once per
   * snapshot of the role folder (every step asks), so what it gives must not be changed.
   */
  async roleChoices(): Promise<RoleChoices> {
    const catalog = await this.deps.roles.catalog();
    if (this.#roleChoices?.catalog !== catalog) this.#roleChoices = { catalog, value: roleChoicesOf(catalog) };
    return this.#roleChoices.value;
  }

  /** The registered roles this conversation may use (its `allowed_roles`, when set, narrows them). */
  async authorizedChoices(): Promise<{ all: readonly RoleChoice[]; allowed: RoleChoice[]; allowList: string[] | undefined }> {
    const { choices } = await this.roleChoices();
    const allowList = allowListFromMetadata(await this.store.get(this.convId));
    return { all: choices, allowed: authorizedRoles(choices, allowList), allowList };
  }

  // ---------------------------------------------------------------- views, phase and status

  agentView(meta: AgentMeta, stats: ReturnType<typeof normalizeTokenStatistics>): AgentView {
    const bucket = stats.by_agent[usageAgentKey(meta.agent_id)];
    return {
      metadata: meta,
      ...this.activity.viewOf(meta.agent_id),
      tokens: tokenCountsOf(bucket),
      calls_this_task: meta.calls_this_task ?? 0,
    };
  }

  async publishAgent(meta: AgentMeta): Promise<void> {
    const leader = await this.store.readLeaderMessages(this.convId);
    this.publish({ type: "agent", agent: this.agentView(meta, normalizeTokenStatistics(leader.token_statistics)) });
  }

  /** Open questions of all agents. */
  questionsOf(agents: AgentMeta[]): PendingQuestion[] {
    const out: PendingQuestion[] = [];
    for (const a of agents) {
      for (const p of a.pending_tool_calls ?? []) {
        if (p.tool_name !== "ask_master") continue;
        out.push({
          question_id: p.question_id,
          agent_id: a.agent_id,
          display_name: a.display_name,
          question: String((p as { question?: string }).question ?? ""),
          tool_call_id: p.tool_call_id,
          created_at: p.created_at,
        });
      }
    }
    return out;
  }

  async refreshPhase(): Promise<void> {
    const { agents } = await this.store.listAgents(this.convId);
    const target = derivePhase(
      agents.map((a) => a.status),
      this.leaderBusy,
    );
    const current = (await this.store.get(this.convId)).phase ?? "IDLE";
    if (current === target || !phasePath(current, target)) return;
    await this.store.update(this.convId, { phase: target });
    this.publish({ type: "phase", phase: target });
    if (target === "IDLE") this.onIdle?.();
  }

  setLeaderBusy(busy: boolean): void {
    if (this.leaderBusy === busy) return;
    this.leaderBusy = busy;
    this.publish({ type: "leader_busy", busy });
  }

  /** Applies a state-machine event to an agent and saves it (a status change is always saved). */
  async agentEvent(agentId: number, event: AgentEvent, change: (m: AgentMeta) => AgentMeta = (m) => m): Promise<AgentMeta> {
    const meta = await this.updateAgent(agentId, (m) => change({ ...m, status: transitionAgent(m.status, event) }));
    await this.publishAgent(meta);
    await this.refreshPhase();
    return meta;
  }

  async readAgent(agentId: number): Promise<AgentMeta> {
    return (await this.store.readAgentMetadata(this.convId, agentId)) as AgentMeta;
  }

  async updateAgent(agentId: number, change: (m: AgentMeta) => AgentMeta): Promise<AgentMeta> {
    return (await this.store.updateAgentMetadata(this.convId, agentId, (m) => change(m as AgentMeta))) as AgentMeta;
  }

  /** The controller of an agent's model calls: a fresh one once the last was aborted. */
  agentSignal(agentId: number): AbortController {
    let c = this.agentControllers.get(agentId);
    if (!c || c.signal.aborted) {
      c = new AbortController();
      this.agentControllers.set(agentId, c);
    }
    return c;
  }
}
