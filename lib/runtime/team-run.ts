import "server-only";
/**
 * One conversation's team at work: the Team Leader's loop and one loop per sub-agent, the tools
 * they call, and everything they persist and stream.
 *
 * Rules this file keeps (issue 3, seed §8.1):
 * - A sub-agent's metadata and messages are saved before every model call, after every tool
 *   call, on every status change and after every incoming message is handled; the leader's
 *   messages after every model call and tool call. So a restart continues from the last save.
 * - Every envelope is appended to `timeline.jsonl` before it is published; every other event is
 *   published after the file it describes was written. A browser never sees what a crash loses.
 * - Statuses change only through lib/runtime/state-machine; the phase is derived from them.
 * - Side-effecting tool calls go through the action journal, so none runs twice.
 * - Hard caps (agents per conversation, calls per task) are enforced here, in code.
 */
import path from "node:path";
import { agentTopic, conversationTopic, getBus } from "@/lib/bus";
import { AstrionError, ConflictError, NotFoundError } from "@/lib/errors";
import { addUsage, loadRegistry, lookupModel, ModelCallError, publicModels, normalizeTokenStatistics, usageAgentKey, type ChatMessage, type ChatModel, type ChatResult, type ToolCall } from "@/lib/models";
import { hasOwnKey } from "@/lib/own";
import {
  agentParty,
  appendTimeline,
  follow,
  formatAgentMessage,
  LEADER_PARTY,
  newTraceId,
  newTurnId,
  nextSeedId,
  parseEnvelope,
  replyTo,
  roleAbbreviation,
  SYSTEM_PARTY,
  startTrace,
  timelineFile,
  timelineRecord,
  USER_PARTY,
  type Envelope,
  type EnvelopeType,
  type SeedCounters,
  type SeedIdKind,
} from "@/lib/protocol";
import {
  allowListFromMetadata,
  assertInbox,
  auditPayload,
  authorizedRoles,
  buildRegistry,
  candidateNote,
  checkInbox,
  agentToken,
  checkToolCall,
  classifierModelKey,
  classifyIntent,
  classifyIntentWithModel,
  ensureAgentToken,
  issueAgentToken,
  restrictRegistry,
  revokeAgentTokens,
  roleRefusal,
  type AgentToken,
  type IntentResult,
} from "@/lib/governance";
import { subscribeModelHealth, type ModelHealth } from "@/lib/models/resilience";
import { buildModelInput, collectPromotions, conversationGoal, deriveWorkNotes, PROMOTION_HINT, summarizeReport, type SliceReport } from "@/lib/context";
import { appendJsonLine } from "@/lib/protocol/jsonl";
import type { RoleDetail } from "@/lib/roles";
import { executeSharedContextTool, isSharedContextTool, SHARED_CONTEXT_READ_ONLY_TOOLS, sharedContextTools } from "@/lib/shared-context";
import type { AstrionApp } from "@/lib/server/app";
import { epochSeconds, MessageSchema, type AgentFailure, type AgentMetadata, type ConversationMetadata, type ConversationPhase, type Message, type PendingMessage } from "@/lib/store";
import { capToolOutput, confirmProjectFolder, listFiles, readFile, searchFiles, writeFile, type ProjectFolderChanged, type ProjectFolderRefused } from "@/lib/workspace";
import type { RuntimeLimits } from "./config";
import type { AgentView, ConversationSnapshot, Notice, PendingQuestion, RuntimeEvent } from "./events";
import { failpoint } from "./failpoints";
import { leaderCallsSinceRequest } from "./leader-calls";
import { ActionJournal } from "./journal";
import { modelFor } from "./models";
import { agentSystemPrompt, leaderSystemPrompt } from "./prompts";
import { derivePhase, isFinalAgentStatus, PHASE_TRANSITIONS, transitionAgent, type AgentEvent } from "./state-machine";
import { faultSummary, isRefusal, toolFailureMessage } from "./tool-failure";
import { AGENT_TOOL_ARGS, agentTools, LEADER_TOOL_ARGS, leaderTools, parseToolArguments, READ_ONLY_TOOLS, type RoleChoice } from "./tools";

/**
 * Side effects that are one change of the conversation's own state (the change carries its
 * idempotency key): after a crash they are looked up rather than reported as interrupted.
 */
const INTERNAL_EFFECTS: ReadonlySet<string> = new Set(["report_to_leader", "create_sub_agent"]);

/** Per-call context reports of a conversation (an addition to the seed's layout). */
export const CONTEXT_FILE_NAME = "context.jsonl";

/** The display name the leader has in inter-agent messages (seed). */
export const LEADER_DISPLAY_NAME = "Team Leader";

/** Keys this runtime adds to the seed's files (allowed: the schemas are loose). */
interface AgentExtras {
  /** Model calls made for the current task (the cap counts these; survives restarts). */
  calls_this_task?: number;
  /** The trace and the task envelope's turn, so reports reply to their task. */
  trace_id?: string;
  task_turn_id?: string;
  /** Whether the agent reported on its current task. */
  reported?: boolean;
  permissions?: string[];
  /** False for work the leader's answer does not wait for (partial results are reported without it). */
  critical?: boolean;
  /** `DEGRADED` while the agent's model keeps failing (seed 003 §6.1). */
  health?: "OK" | "DEGRADED";
  /** Set when an internal error ended the agent's loop; cleared by its next task. */
  failure?: AgentFailure;
}
type AgentMeta = AgentMetadata & AgentExtras;

interface PendingToolCallExtra {
  question?: string;
}

/** Questions relayed to the leader: id → agent. */
interface ConversationExtras {
  seed_counters?: SeedCounters;
}

/** True when the conversation ends with the successful result of a `report_to_leader` call. */
function endsWithDeliveredReport(messages: Message[]): boolean {
  const last = messages[messages.length - 1];
  if (last?.role !== "tool" || !last.tool_call_id || String(last.content ?? "").startsWith('{"error"')) return false;
  for (let i = messages.length - 2; i >= 0; i--) {
    const call = messages[i]!.tool_calls?.find((c) => c.id === last.tool_call_id);
    if (call) return call.function.name === "report_to_leader";
    if (messages[i]!.role !== "tool") return false;
  }
  return false;
}

/** Tool calls of the last assistant message that have no tool result yet. */
function danglingToolCalls(messages: Message[]): ToolCall[] {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === "assistant") {
      if (!m.tool_calls?.length) return [];
      const answered = new Set(messages.slice(i + 1).filter((x) => x.role === "tool").map((x) => x.tool_call_id));
      return m.tool_calls.filter((c) => !answered.has(c.id)) as ToolCall[];
    }
  }
  return [];
}

/** True when the conversation's last message calls for another model call. */
function needsModelCall(messages: Message[]): boolean {
  const last = messages[messages.length - 1];
  if (!last) return false;
  if (last.role === "user" || last.role === "tool") return danglingToolCalls(messages).length === 0;
  return false;
}

/** The leader's inbox in its messages.json metadata (parsed; anything unreadable is ignored). */
function leaderInbox(metadata: Record<string, unknown> | undefined): Message[] {
  const raw = metadata?.pending_inbox;
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((m) => {
    const parsed = MessageSchema.safeParse(m);
    return parsed.success ? [parsed.data] : [];
  });
}

function errorResult(message: string): string {
  return JSON.stringify({ error: message });
}

function summarize(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

function messageId(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
}

/** An envelope standing for the request that started a trace, rebuilt from its saved ids. */
function traceCause(traceId: string, turnId: string): Envelope {
  return parseEnvelope({
    message_id: `msg_${turnId.slice(5)}`,
    trace_id: traceId,
    turn_id: turnId,
    parent_turn_id: null,
    type: "request",
    from: USER_PARTY,
    to: LEADER_PARTY,
    priority: "normal",
    created_at: new Date().toISOString(),
    payload: {},
    meta: {},
  });
}

/** The shortest path of phases from `from` to `to` through the transition table (BFS). */
function phasePath(from: ConversationPhase, to: ConversationPhase): ConversationPhase[] | null {
  if (from === to) return [];
  const prev = new Map<ConversationPhase, ConversationPhase>();
  const queue: ConversationPhase[] = [from];
  const seen = new Set<ConversationPhase>([from]);
  while (queue.length) {
    const at = queue.shift()!;
    for (const next of Object.values(PHASE_TRANSITIONS[at]) as ConversationPhase[]) {
      if (seen.has(next)) continue;
      seen.add(next);
      prev.set(next, at);
      if (next === to) {
        const pathOut: ConversationPhase[] = [to];
        let p = at;
        while (p !== from) {
          pathOut.unshift(p);
          p = prev.get(p)!;
        }
        return pathOut;
      }
      queue.push(next);
    }
  }
  return null;
}

/** Runs and observes one conversation. Create through the runtime manager, one per conversation. */
export class TeamRun {
  readonly convId: string;
  readonly limits: RuntimeLimits;
  private readonly app: AstrionApp;
  private readonly journal: ActionJournal;
  private stopController = new AbortController();
  private readonly agentControllers = new Map<number, AbortController>();
  private leaderLoop: Promise<void> | null = null;
  private leaderAgain = false;
  private readonly agentLoops = new Map<number, Promise<void>>();
  private readonly agentAgain = new Set<number>();
  private readonly listening = new Map<number, () => void>();
  private readonly activity = new Map<number, { text: string; at: string }>();
  private notices: Notice[] = [];
  private leaderBusy = false;
  /** A report reached the leader's inbox since its loop last looked. */
  private reportWaiting = false;
  private lastTrace: { trace_id: string; turn_id: string } | null = null;
  private intentCache: { trace_id: string; result: IntentResult } | null = null;
  /** Serializes read-modify-writes of the conversation's seed counters. */
  private counterChain: Promise<unknown> = Promise.resolve();
  /** The project folder this run started (or resumed) with: the one its agents' tokens carry. */
  private projectPath: string | null = null;
  /** Project-folder refusals already told to the person (one notice each, not one per tool call). */
  private readonly projectNoticed = new Set<string>();

  constructor(app: AstrionApp, convId: string, limits: RuntimeLimits) {
    this.app = app;
    this.convId = convId;
    this.limits = limits;
    this.journal = new ActionJournal(this.dir);
    this.offHealth = subscribeModelHealth((h) => {
      if (h.meta?.conversation_id === this.convId) void this.onModelHealth(h).catch(() => undefined);
    });
  }

  private readonly offHealth: () => void;

  /**
   * An agent whose model keeps failing is marked DEGRADED (seed 003 §6.1) — the fallback model
   * answers when the entry names one — and is marked OK again when its model answers.
   */
  private async onModelHealth(h: ModelHealth): Promise<void> {
    const agentId = h.meta?.agent_id ?? null;
    const health = h.state === "ok" ? "OK" : "DEGRADED";
    let was: string | undefined;
    if (agentId !== null) {
      const meta = (await this.store.updateAgentMetadata(this.convId, agentId, (m) => {
        was = (m as AgentMeta).health;
        return { ...m, health, health_reason: h.reason ?? null, health_model: h.fallback_key ?? h.model_key };
      })) as AgentMeta;
      await this.publishAgent(meta);
    }
    if (health === "DEGRADED" && was !== "DEGRADED") {
      this.notice(
        "warning",
        "model_degraded",
        h.fallback_key ? `${h.model_key} is failing (${h.reason}); ${h.fallback_key} answers instead.` : `${h.model_key} is failing (${h.reason}): ${h.message ?? ""}`,
        agentId,
      );
      await this.emit(await this.cause(), { type: "event", from: SYSTEM_PARTY, to: agentId === null ? LEADER_PARTY : agentParty(agentId), payload: { model: h.model_key, reason: h.reason ?? null, fallback: h.fallback_key ?? null }, action: "degraded", resource: `model:${h.model_key}`, status: "failed" });
    } else if (health === "OK" && was === "DEGRADED") {
      this.notice("info", "model_recovered", `${h.model_key} answers again.`, agentId);
    }
  }

  private get dir(): string {
    return path.join(this.app.root, "conversations", this.convId);
  }

  private get store() {
    return this.app.store;
  }

  // ---------------------------------------------------------------- events and timeline

  private publish(event: RuntimeEvent): void {
    getBus().publish(conversationTopic(this.convId), event);
  }

  /** Appends an envelope to the timeline (durably), then publishes it. */
  private async emit(
    cause: Envelope,
    init: { type: EnvelopeType; from: string; to: string; payload: Record<string, unknown>; action: string; resource?: string | null; status?: string; version?: number; producer?: "code" | "model"; reply?: boolean },
  ): Promise<Envelope> {
    // Model-written text is audited as a preview and a hash; control and event envelopes in full.
    const payload = auditPayload(init.reply ? "reply" : init.type, init.payload);
    const envelope = init.reply
      ? replyTo(cause, payload, { from: init.from, to: init.to })
      : follow(cause, { type: init.type, from: init.from, to: init.to, payload, producer: init.producer ?? "code" });
    const record = timelineRecord(envelope, { action: init.action, resource: init.resource ?? null, status: init.status ?? "ok", version: init.version ?? 0 });
    await appendTimeline(timelineFile(this.dir), record);
    this.publish({ type: "timeline", record });
    return envelope;
  }

  private notice(level: Notice["level"], code: string, message: string, agentId: number | null = null): void {
    const notice: Notice = { level, code, message, agent_id: agentId, at: new Date().toISOString() };
    this.notices = [...this.notices.slice(-19), notice];
    this.publish({ type: "notice", notice });
  }

  /**
   * The project folder, checked now (lib/workspace/project-folder.ts): the folder rules on its
   * real path and, once this run has started, that metadata.json still names the folder it
   * started with. Called when a run starts or resumes and before every tool call.
   */
  private async projectGate() {
    const conv = await this.store.get(this.convId);
    const check = await confirmProjectFolder(conv.project_path, this.projectPath, [{ kind: "data", path: this.app.root }]);
    if (check.ok) this.projectPath ??= check.path;
    return check;
  }

  /** A refused project folder: audited as refused, told to the person once, answered as a tool error. */
  private async projectRefused(check: ProjectFolderRefused | ProjectFolderChanged, to: string, action: string, lead = "No tool runs in this conversation"): Promise<string> {
    await this.emit(await this.cause(), { type: "event", from: SYSTEM_PARTY, to, payload: { code: check.reason, reason: check.message }, action, resource: `project:${check.path}`, status: "refused" });
    const key = `${check.reason}\n${check.path}`;
    if (!this.projectNoticed.has(key)) {
      this.projectNoticed.add(key);
      this.notice("error", "project_refused", `${lead}: ${check.message}`);
    }
    return errorResult(`refused: ${check.message}`);
  }

  /**
   * The agent's live token, issued when it was created or resumed; an agent resumed in this
   * process without one (after an unarchive) gets it now. A live token is never re-derived from
   * files: it alone says what the agent may do and in which folder.
   */
  private tokenOf(meta: AgentMeta, projectPath: string): AgentToken {
    return (
      agentToken(this.convId, meta.agent_id) ??
      issueAgentToken({ conversation_id: this.convId, agent_id: meta.agent_id, role_id: meta.role_id, permissions: meta.permissions ?? ["read"], project_path: projectPath })
    );
  }

  private setActivity(agentId: number, text: string): void {
    this.activity.set(agentId, { text, at: new Date().toISOString() });
  }

  private async traceOrNew(): Promise<{ trace_id: string; turn_id: string }> {
    if (this.lastTrace) return this.lastTrace;
    const file = await this.store.readLeaderMessages(this.convId);
    for (let i = file.messages.length - 1; i >= 0; i--) {
      const meta = file.messages[i]!.metadata as { trace_id?: string; turn_id?: string } | undefined;
      if (meta?.trace_id && meta.turn_id) {
        this.lastTrace = { trace_id: meta.trace_id, turn_id: meta.turn_id };
        return this.lastTrace;
      }
    }
    this.lastTrace = { trace_id: newTraceId(), turn_id: newTurnId() };
    return this.lastTrace;
  }

  private async cause(): Promise<Envelope> {
    const t = await this.traceOrNew();
    return traceCause(t.trace_id, t.turn_id);
  }

  // ---------------------------------------------------------------- ids and roles

  /** The next seed-style id (`task_001`, `msg_tl_001`, `out_uio_001`, `ask_uio_001`), persisted per conversation. */
  private nextId(kind: SeedIdKind, abbrev?: string): Promise<string> {
    const run = this.counterChain.then(async () => {
      let id = "";
      await this.store.update(this.convId, (meta) => {
        const m = meta as ConversationMetadata & ConversationExtras;
        const next = nextSeedId(kind, m.seed_counters ?? {}, abbrev);
        id = next.id;
        return { ...m, seed_counters: next.counters };
      });
      return id;
    });
    this.counterChain = run.catch(() => undefined);
    return run;
  }

  private async roleChoices(): Promise<{ choices: RoleChoice[]; byId: Map<string, RoleDetail> }> {
    const list = await this.app.roles.list();
    const byId = new Map<string, RoleDetail>();
    const choices: RoleChoice[] = [];
    for (const entry of list) {
      if (entry.kind !== "role") continue;
      choices.push({ id: entry.id, name: entry.name, description: entry.description, capabilities: entry.capabilities });
    }
    for (const c of choices) {
      const detail = await this.app.roles.get(c.id).catch(() => null);
      if (detail?.kind === "role") byId.set(c.id, detail);
    }
    return { choices: choices.filter((c) => byId.has(c.id)), byId };
  }

  /** The registered roles this conversation may use (its `allowed_roles`, when set, narrows them). */
  private async authorizedChoices(): Promise<{ all: RoleChoice[]; allowed: RoleChoice[]; allowList: string[] | undefined }> {
    const { choices } = await this.roleChoices();
    const allowList = allowListFromMetadata(await this.store.get(this.convId));
    return { all: choices, allowed: authorizedRoles(choices, allowList), allowList };
  }

  /**
   * Intent routing (seed 003 §2.1): the person's latest message is matched against the role
   * capability tags, and the leader is told which registered, authorized roles fit. Once per trace.
   */
  private async routeIntent(messages: Message[], allowed: RoleChoice[]): Promise<IntentResult | null> {
    const trace = await this.traceOrNew();
    if (this.intentCache?.trace_id === trace.trace_id) return this.intentCache.result;
    const lastUser = [...messages].reverse().find((m) => m.role === "user" && m.metadata?.message_source === "user");
    if (!lastUser) return null;
    const { agents } = await this.store.listAgents(this.convId);
    const registry = restrictRegistry(
      buildRegistry(await this.app.roles.list(), {
        agents: agents.map((a) => ({ role_id: a.role_id, status: a.status, model_key: a.model_key, degraded: (a as AgentMeta).health === "DEGRADED" })),
      }),
      allowed.map((c) => c.id),
    );
    // A small classifier model when models.json names one (`"classifier": "<key>"`), else matching on tags.
    const classifier = classifierModelKey(await loadRegistry(this.app.root));
    const text = String(lastUser.content ?? "");
    const result = classifier
      ? await classifyIntentWithModel(text, registry, await modelFor(this.app.root, classifier), { meta: { conversation_id: this.convId, trace_id: trace.trace_id } })
      : classifyIntent(text, registry);
    this.intentCache = { trace_id: trace.trace_id, result };
    await this.emit(await this.cause(), {
      type: "event",
      from: SYSTEM_PARTY,
      to: LEADER_PARTY,
      payload: { labels: result.labels, candidates: result.candidates.map((c) => ({ role_id: c.role_id, score: c.score, matched: c.matched })) },
      action: "intent_routing",
      resource: `conversation:${this.convId}`,
    });
    return result;
  }

  // ---------------------------------------------------------------- snapshot

  private async agentView(meta: AgentMeta, stats: ReturnType<typeof normalizeTokenStatistics>): Promise<AgentView> {
    const bucket = stats.by_agent[usageAgentKey(meta.agent_id)];
    const act = this.activity.get(meta.agent_id);
    return {
      metadata: meta,
      last_activity: act?.text ?? null,
      last_activity_at: act?.at ?? null,
      tokens: {
        prompt_tokens: bucket?.prompt_tokens ?? 0,
        completion_tokens: bucket?.completion_tokens ?? 0,
        total_tokens: bucket?.total_tokens ?? 0,
        calls: bucket?.calls ?? 0,
      },
      calls_this_task: meta.calls_this_task ?? 0,
    };
  }

  private async publishAgent(meta: AgentMeta): Promise<void> {
    const leader = await this.store.readLeaderMessages(this.convId);
    this.publish({ type: "agent", agent: await this.agentView(meta, normalizeTokenStatistics(leader.token_statistics)) });
  }

  /** Open questions of all agents. */
  private questionsOf(agents: AgentMeta[]): PendingQuestion[] {
    const out: PendingQuestion[] = [];
    for (const a of agents) {
      for (const p of a.pending_tool_calls ?? []) {
        if (p.tool_name !== "ask_master") continue;
        out.push({
          question_id: p.question_id,
          agent_id: a.agent_id,
          display_name: a.display_name,
          question: String((p as PendingToolCallExtra).question ?? ""),
          tool_call_id: p.tool_call_id,
          created_at: p.created_at,
        });
      }
    }
    return out;
  }

  /** The full state of the conversation, as the first SSE event and the agents API show it. */
  async snapshot(): Promise<ConversationSnapshot> {
    const conversation = await this.store.get(this.convId);
    const leader = await this.store.readLeaderMessages(this.convId);
    const stats = normalizeTokenStatistics(leader.token_statistics);
    const { agents } = await this.store.listAgents(this.convId);
    const views = await Promise.all(agents.map((a) => this.agentView(a as AgentMeta, stats)));
    // The same label as GET /api/models (the offline model always reads "… — offline"); an
    // unknown key is shown as it is, and the leader's calls report the error.
    const registry = await loadRegistry(this.app.root).catch(() => null);
    const modelLabel = (registry && publicModels(registry).find((m) => m.key === conversation.model_key)?.label) || conversation.model_key;
    return {
      conversation,
      leader: { messages: leader.messages, busy: this.leaderBusy, token_statistics: stats as Record<string, unknown> },
      agents: views,
      questions: this.questionsOf(agents as AgentMeta[]),
      notices: this.notices,
      caps: { max_agents: this.limits.maxAgents, max_calls_per_task: this.limits.maxCallsPerTask },
      model_label: modelLabel,
    };
  }

  /** One agent's view and whole conversation. */
  async agentDetail(agentId: number): Promise<{ agent: AgentView; messages: Message[] }> {
    const meta = (await this.store.readAgentMetadata(this.convId, agentId)) as AgentMeta;
    const messages = await this.store.readAgentMessages(this.convId, agentId);
    const leader = await this.store.readLeaderMessages(this.convId);
    return { agent: await this.agentView(meta, normalizeTokenStatistics(leader.token_statistics)), messages: messages.messages };
  }

  // ---------------------------------------------------------------- phase

  private async refreshPhase(): Promise<void> {
    const { agents } = await this.store.listAgents(this.convId);
    const target = derivePhase(
      agents.map((a) => a.status),
      this.leaderBusy,
    );
    const current = (await this.store.get(this.convId)).phase ?? "IDLE";
    if (current === target) return;
    const steps = phasePath(current, target);
    if (!steps) return;
    await this.store.update(this.convId, { phase: target });
    this.publish({ type: "phase", phase: target });
  }

  private setLeaderBusy(busy: boolean): void {
    if (this.leaderBusy === busy) return;
    this.leaderBusy = busy;
    this.publish({ type: "leader_busy", busy });
  }

  // ---------------------------------------------------------------- agent status

  /** Applies a state-machine event to an agent and saves it (a status change is always saved). */
  private async agentEvent(agentId: number, event: AgentEvent, change: (m: AgentMeta) => AgentMeta = (m) => m): Promise<AgentMeta> {
    const meta = (await this.store.updateAgentMetadata(this.convId, agentId, (m) => {
      const next = transitionAgent(m.status, event);
      return change({ ...(m as AgentMeta), status: next });
    })) as AgentMeta;
    await this.publishAgent(meta);
    await this.refreshPhase();
    return meta;
  }

  // ---------------------------------------------------------------- person entry points

  /** A person's message to the leader: starts a trace and wakes the leader. */
  async postUserMessage(content: string, author?: string): Promise<{ message_id: string; trace_id: string }> {
    const conv = await this.store.get(this.convId);
    if (conv.status === "archived") throw new ConflictError("This conversation is archived; unarchive it to continue.");
    const project = await this.projectGate();
    if (!project.ok) {
      await this.projectRefused(project, LEADER_PARTY, "user_message", "This conversation cannot run");
      throw new ConflictError(`This conversation cannot run: ${project.message}`, { reason: project.reason, project_path: project.path });
    }
    const envelope = startTrace(USER_PARTY, LEADER_PARTY, auditPayload("request", { content, author: author ?? null }));
    const record = timelineRecord(envelope, { action: "user_message", resource: `conversation:${this.convId}` });
    await appendTimeline(timelineFile(this.dir), record);
    this.lastTrace = { trace_id: envelope.trace_id, turn_id: envelope.turn_id };
    const message: Message = {
      role: "user",
      content,
      message_id: messageId("msg_user"),
      metadata: { message_source: "user", visibility: "chat", starts_work: true, trace_id: envelope.trace_id, turn_id: envelope.turn_id, ...(author ? { author } : {}) },
    };
    await this.store.updateLeaderMessages(this.convId, (f) => ({ ...f, messages: [...f.messages, message] }));
    this.publish({ type: "timeline", record });
    this.publish({ type: "message", agent_id: null, message });
    this.stopController = this.stopController.signal.aborted ? new AbortController() : this.stopController;
    this.wakeLeader();
    return { message_id: message.message_id!, trace_id: envelope.trace_id };
  }

  /** A person's (or the leader's) message to one sub-agent, delivered before its next step. */
  async messageAgent(agentId: number, content: string, from: { name: string; agentId: number | null; party: string; abbrev: string }): Promise<string> {
    const meta = (await this.store.readAgentMetadata(this.convId, agentId)) as AgentMeta;
    if (meta.status === "terminated") throw new ConflictError(`${meta.display_name} was terminated and cannot receive messages.`);
    // Bounded inbox (seed 003 §6.2): a full inbox answers the sender with a busy error.
    assertInbox(meta.display_name, (meta.pending_messages ?? []).length);
    const id = await this.nextId("message", from.abbrev);
    const pending: PendingMessage = {
      id,
      source_display_name: from.name,
      source_agent_id: from.agentId,
      message_type: "message",
      content,
      created_at: epochSeconds(),
    };
    const updated = (await this.store.updateAgentMetadata(this.convId, agentId, (m) => ({ ...m, pending_messages: [...(m.pending_messages ?? []), pending] }))) as AgentMeta;
    await this.emit(await this.cause(), { type: "request", from: from.party, to: agentParty(agentId), payload: { id, content }, action: "message", resource: `agent:${agentId}`, producer: "model" });
    await this.publishAgent(updated);
    if (updated.status !== "waiting") this.notifyAgent(agentId);
    return id;
  }

  /** Answers a pending `ask_master` question (by the leader or a person) and resumes the agent. */
  async answerQuestion(questionId: string, answer: string, answeredBy: string, expectedAgentId?: number): Promise<{ agent_id: number }> {
    const { agents } = await this.store.listAgents(this.convId);
    const owner = agents.find((a) => (a.pending_tool_calls ?? []).some((p) => p.question_id === questionId));
    if (!owner) {
      const known = await this.questionWasAsked(questionId);
      if (known) throw new ConflictError(`Question ${questionId} was already answered.`);
      throw new NotFoundError(`No pending question ${questionId} in this conversation.`);
    }
    if (expectedAgentId !== undefined && owner.agent_id !== expectedAgentId) {
      throw new NotFoundError(`Question ${questionId} is not ${expectedAgentId}'s.`);
    }
    const entry = owner.pending_tool_calls!.find((p) => p.question_id === questionId)!;
    const toolMessage: Message = {
      role: "tool",
      tool_call_id: entry.tool_call_id,
      content: JSON.stringify({ answer, answered_by: answeredBy }),
      message_id: messageId("msg_tool"),
      metadata: { trace_id: (owner as AgentMeta).trace_id ?? (await this.traceOrNew()).trace_id },
    };
    await this.store.updateAgentMessages(this.convId, owner.agent_id, (f) => ({ ...f, messages: [...f.messages, toolMessage] }));
    const meta = await this.agentEvent(owner.agent_id, "answer", (m) => ({
      ...m,
      pending_tool_calls: (m.pending_tool_calls ?? []).filter((p) => p.question_id !== questionId),
    }));
    this.publish({ type: "message", agent_id: owner.agent_id, message: toolMessage });
    this.publish({ type: "question_answered", question_id: questionId, answered_by: answeredBy });
    const t = meta as AgentMeta;
    await this.emit(t.trace_id && t.task_turn_id ? traceCause(t.trace_id, t.task_turn_id) : await this.cause(), {
      type: "reply",
      from: answeredBy === LEADER_DISPLAY_NAME ? LEADER_PARTY : USER_PARTY,
      to: agentParty(owner.agent_id),
      payload: { question_id: questionId, answer },
      action: "answer_question",
      resource: `question:${questionId}`,
      reply: true,
    });
    this.setActivity(owner.agent_id, `got an answer to ${questionId}`);
    this.notifyAgent(owner.agent_id);
    return { agent_id: owner.agent_id };
  }

  private async questionWasAsked(questionId: string): Promise<boolean> {
    const leader = await this.store.readLeaderMessages(this.convId);
    return [...leader.messages, ...leaderInbox(leader.metadata)].some((m) => typeof m.content === "string" && m.content.includes(`\nid: ${questionId}\n`));
  }

  /** Terminates one agent: its model call is aborted and it never runs again. */
  async terminateAgent(agentId: number, reason: string, by: string): Promise<void> {
    const meta = (await this.store.readAgentMetadata(this.convId, agentId)) as AgentMeta;
    if (meta.status === "terminated") return;
    this.agentControllers.get(agentId)?.abort(new Error("terminated"));
    revokeAgentTokens(this.convId, agentId);
    await this.agentEvent(agentId, "terminate", (m) => ({ ...m, pending_tool_calls: [] }));
    this.setActivity(agentId, `terminated${reason ? `: ${summarize(reason, 80)}` : ""}`);
    await this.emit(await this.cause(), {
      type: "control",
      from: by === LEADER_DISPLAY_NAME ? LEADER_PARTY : USER_PARTY,
      to: agentParty(agentId),
      payload: { reason: summarize(reason) },
      action: "terminate_agent",
      resource: `agent:${agentId}`,
    });
  }

  /** Stops the whole conversation: every model stream is aborted and no agent is left running. */
  async stop(): Promise<void> {
    this.stopController.abort(new Error("stopped"));
    for (const c of this.agentControllers.values()) c.abort(new Error("stopped"));
    await Promise.allSettled([this.leaderLoop, ...this.agentLoops.values()]);
    const { agents } = await this.store.listAgents(this.convId);
    for (const a of agents) {
      if (a.status === "running") await this.agentEvent(a.agent_id, "pause");
    }
    this.setLeaderBusy(false);
    await this.refreshPhase();
    await this.emit(await this.cause(), { type: "control", from: USER_PARTY, to: SYSTEM_PARTY, payload: {}, action: "stop", resource: `conversation:${this.convId}` });
    this.notice("info", "stopped", "Stopped. Send a message to continue.");
    this.stopController = new AbortController();
  }

  // ---------------------------------------------------------------- loops

  /** Starts the leader's loop, or asks a running one to look again. */
  wakeLeader(): void {
    if (this.leaderLoop) {
      this.leaderAgain = true;
      return;
    }
    this.leaderLoop = this.runLeader()
      .catch((error) => this.crashed(null, error))
      .finally(() => {
        this.leaderLoop = null;
        if (this.leaderAgain) {
          this.leaderAgain = false;
          this.wakeLeader();
        }
      });
  }

  /**
   * Each agent listens on its own bus topic: anything that changes its inbox (a task, a message,
   * an answer) publishes there, and the listener wakes the agent's loop.
   */
  private listen(agentId: number): void {
    if (this.listening.has(agentId)) return;
    this.listening.set(agentId, getBus().subscribe(agentTopic(this.convId, agentId), () => this.wakeAgent(agentId)));
  }

  /** Tells an agent (through its bus topic) that its inbox changed. */
  private notifyAgent(agentId: number): void {
    this.listen(agentId);
    getBus().publish(agentTopic(this.convId, agentId), { type: "inbox" });
  }

  /** Starts an agent's loop, or asks a running one to look again. */
  wakeAgent(agentId: number): void {
    if (this.agentLoops.has(agentId)) {
      this.agentAgain.add(agentId);
      return;
    }
    const loop = this.runAgent(agentId)
      .catch((error) => this.crashed(agentId, error))
      .finally(() => {
        this.agentLoops.delete(agentId);
        if (this.agentAgain.delete(agentId)) this.wakeAgent(agentId);
      });
    this.agentLoops.set(agentId, loop);
  }

  /** Stops listening on the agents' topics and revokes the agents' tokens (the conversation is being deleted). */
  dispose(): void {
    revokeAgentTokens(this.convId);
    this.release();
  }

  /**
   * Lets go of an idle run (no loop running) without ending anything: its listeners stop, its
   * agents keep their tokens, and the next request for the conversation starts a new run object.
   */
  release(): void {
    this.offHealth();
    for (const unsubscribe of this.listening.values()) unsubscribe();
    this.listening.clear();
  }

  /** Whether the leader or any agent loop is running. */
  get working(): boolean {
    return this.leaderLoop !== null || this.agentLoops.size > 0;
  }

  /** Whether this run holds notices for the person (kept in memory only, so a released run would lose them). */
  get hasNotices(): boolean {
    return this.notices.length > 0;
  }

  /** Resolves when no loop of this conversation is running (tests and shutdown). */
  async idle(): Promise<void> {
    while (this.leaderLoop || this.agentLoops.size) {
      await Promise.allSettled([this.leaderLoop, ...this.agentLoops.values()]);
    }
  }

  /**
   * An error escaped a loop (not from a tool: those become tool errors). Nothing may die
   * silently: it is logged, the person gets a notice, the timeline an event, and a sub-agent ends
   * in a visible failed state (idle, with `failure` in its metadata) and reports the failure to
   * the leader, so nobody waits for it. The next message or task it receives clears the failure.
   */
  private async crashed(agentId: number | null, error: unknown): Promise<void> {
    if (error instanceof AstrionError && error.code === "not_found") return; // deleted under us
    const who = agentId === null ? "Team Leader" : `agent ${agentId}`;
    console.error(`[astrion] ${this.convId} trace=${this.lastTrace?.trace_id ?? "-"} ${who} loop failed`, error);
    const fault = faultSummary(error);
    this.notice("error", agentId === null ? "leader_failed" : "agent_failed", `The ${who} stopped on an internal error (${fault}); details are in the server's log.`, agentId);
    try {
      await this.emit(await this.cause(), { type: "event", from: SYSTEM_PARTY, to: agentId === null ? LEADER_PARTY : agentParty(agentId), payload: { fault }, action: agentId === null ? "leader_failed" : "agent_failed", resource: agentId === null ? "leader" : `agent:${agentId}`, status: "failed" });
      if (agentId === null) return;
      const failure = { code: "internal_error", fault, at: new Date().toISOString() };
      const meta = (await this.store.readAgentMetadata(this.convId, agentId)) as AgentMeta;
      const updated =
        meta.status === "running"
          ? await this.agentEvent(agentId, "pause", (m) => ({ ...m, failure }))
          : ((await this.store.updateAgentMetadata(this.convId, agentId, (m) => ({ ...(m as AgentMeta), failure }))) as AgentMeta);
      if (meta.status !== "running") await this.publishAgent(updated);
      if (!updated.reported && updated.status !== "terminated") {
        await this.deliverReport(agentId, updated, `I stopped on an internal error (${fault}) and could not finish my task.`, "failed");
        await this.store.updateAgentMetadata(this.convId, agentId, (m) => ({ ...(m as AgentMeta), reported: true }));
      }
    } catch (again) {
      console.error(`[astrion] ${this.convId} could not record the failure of the ${who}`, again);
    }
  }

  /** Calls a model, streaming deltas live; a failure saves what streamed as an interrupted message. */
  private async callModel(
    model: ChatModel,
    agentId: number | null,
    messages: ChatMessage[],
    tools: ReturnType<typeof leaderTools>,
    thinking: "off" | "on" | "deep",
    signal: AbortSignal,
  ): Promise<{ ok: true; result: ChatResult } | { ok: false; error: ModelCallError }> {
    const t = await this.traceOrNew();
    try {
      const result = await model.stream(
        { messages, tools, thinking, signal, meta: { conversation_id: this.convId, agent_id: agentId, trace_id: t.trace_id } },
        (d) => {
          if (d.type === "content" || d.type === "reasoning") this.publish({ type: "delta", agent_id: agentId, kind: d.type, text: d.text });
          else if (d.type === "tool_call") this.publish({ type: "delta", agent_id: agentId, kind: "tool_call", text: d.name ? `${d.name}(` : (d.arguments_delta ?? "") });
        },
      );
      return { ok: true, result };
    } catch (error) {
      if (error instanceof ModelCallError) return { ok: false, error };
      return { ok: false, error: new ModelCallError("bad_response", (error as Error).message ?? String(error), { modelKey: model.key }) };
    }
  }

  private async recordUsage(agentId: number | null, modelKey: string, result: ChatResult): Promise<void> {
    const file = await this.store.updateLeaderMessages(
      this.convId,
      (f) => ({ ...f, token_statistics: addUsage(f.token_statistics, { agentKey: usageAgentKey(agentId), modelKey, usage: result.usage }) as Record<string, unknown> }),
      { touch: false },
    );
    this.publish({ type: "usage", token_statistics: file.token_statistics ?? {} });
  }

  private assistantMessage(result: ChatResult, traceId: string, extra: Record<string, unknown> = {}): Message {
    const message: Message = {
      role: "assistant",
      content: result.content || (result.tool_calls.length ? null : ""),
      message_id: messageId("msg_assistant"),
      metadata: { message_source: "leader", visibility: "chat", starts_work: false, trace_id: traceId, ...extra },
    };
    if (result.reasoning) (message as Record<string, unknown>).reasoning_content = result.reasoning;
    if (result.tool_calls.length) message.tool_calls = result.tool_calls.map((c) => ({ id: c.id, type: "function" as const, function: { name: c.function.name, arguments: c.function.arguments } }));
    return message;
  }

  private thinkingLevel(conv: ConversationMetadata): "off" | "on" | "deep" {
    return conv.run_mode === "deep" ? "deep" : conv.run_mode === "thinking" ? "on" : "off";
  }

  // ---------------------------------------------------------------- the leader

  /**
   * Reports and questions for the leader wait in its inbox (`metadata.pending_inbox` of its
   * messages.json, so they survive a restart) until the leader is at a safe point: a message
   * appended between an assistant's tool calls and their results would break the conversation.
   */
  private async toLeaderInbox(message: Message | Message[]): Promise<void> {
    const added = Array.isArray(message) ? message : [message];
    await this.store.updateLeaderMessages(
      this.convId,
      (f) => ({ ...f, metadata: { ...(f.metadata ?? {}), pending_inbox: [...leaderInbox(f.metadata), ...added] } }),
      { touch: false },
    );
    this.reportWaiting = true;
    this.wakeLeader();
  }

  /** Moves the inbox into the leader's messages (all at once: reports that arrived together make one turn). */
  private async drainLeaderInbox(): Promise<number> {
    let drained: Message[] = [];
    await this.store.updateLeaderMessages(this.convId, (f) => {
      drained = leaderInbox(f.metadata);
      if (!drained.length) return f;
      return { ...f, messages: [...f.messages, ...drained], metadata: { ...(f.metadata ?? {}), pending_inbox: [] } };
    }, { touch: false });
    for (const message of drained) this.publish({ type: "message", agent_id: null, message });
    return drained.length;
  }

  private async runLeader(): Promise<void> {
    this.setLeaderBusy(true);
    await this.refreshPhase();
    try {
      for (;;) {
        if (this.stopController.signal.aborted) return;
        // Woken by a report: wait a moment, so reports arriving together are read in one turn.
        // Any other pass (a person's message, a tool result) goes straight on.
        if (this.reportWaiting && this.limits.leaderBatchMs > 0) await new Promise((r) => setTimeout(r, this.limits.leaderBatchMs));
        this.reportWaiting = false;
        this.leaderAgain = false;
        const conv = await this.store.get(this.convId);
        let file = await this.store.readLeaderMessages(this.convId);
        const dangling = danglingToolCalls(file.messages);
        if (dangling.length) {
          await this.resolveDangling(null, dangling);
          continue;
        }
        if (await this.drainLeaderInbox()) file = await this.store.readLeaderMessages(this.convId);
        if (!needsModelCall(file.messages)) {
          if (this.leaderAgain) continue;
          return;
        }
        // Counted from the saved messages, so the cap holds across a restart.
        if (leaderCallsSinceRequest(file.messages) >= this.limits.maxCallsPerTask) {
          this.notice("warning", "cap_calls", `The Team Leader reached ${this.limits.maxCallsPerTask} model calls for this request and stopped. Send a message to continue.`);
          await this.emit(await this.cause(), { type: "event", from: SYSTEM_PARTY, to: LEADER_PARTY, payload: { cap: this.limits.maxCallsPerTask }, action: "cap_calls", resource: "leader", status: "capped" });
          return;
        }
        let model: ChatModel;
        try {
          model = await modelFor(this.app.root, conv.model_key);
        } catch (error) {
          this.notice("error", "model_error", `${(error as Error).message} Configure models in models.json in the data folder, or set OPENAI_BASE_URL and OPENAI_API_KEY.`);
          return;
        }
        const { allowed } = await this.authorizedChoices();
        const intent = await this.routeIntent(file.messages, allowed);
        const note = intent ? candidateNote(intent) : "";
        // What the model sees: the three context slices within their token budgets (seed 003 §4.2);
        // the full history stays in messages.json.
        const input = buildModelInput({
          kind: "leader",
          system: `${leaderSystemPrompt({ projectPath: conv.project_path, conversationTitle: conv.title })}\n${PROMOTION_HINT}${note ? `\n\n${note}` : ""}`,
          messages: file.messages,
          facts: { project_path: conv.project_path, goal: conversationGoal(file.messages) ?? conv.title },
          promoted: collectPromotions(file.messages),
          budgets: this.limits.budgets,
        });
        const t = await this.traceOrNew();
        const outcome = await this.callModel(model, null, input.messages, [...leaderTools(allowed), ...sharedContextTools()], this.thinkingLevel(conv), this.stopController.signal);
        if (!outcome.ok) {
          await this.saveInterrupted(null, outcome.error, t.trace_id, model.key);
          return;
        }
        const message = this.assistantMessage(outcome.result, t.trace_id, { context: summarizeReport(input.report) });
        await this.saveContextReport(message, null, input.report);
        file = await this.store.updateLeaderMessages(this.convId, (f) => ({ ...f, messages: [...f.messages, message] }), { touch: !outcome.result.tool_calls.length });
        await this.recordUsage(null, model.key, outcome.result);
        this.publish({ type: "message", agent_id: null, message });
        failpoint("leader.step", `${outcome.result.content ?? ""}${JSON.stringify(outcome.result.tool_calls)}`);
        if (!outcome.result.tool_calls.length) {
          await this.emit(await this.cause(), { type: "reply", from: LEADER_PARTY, to: USER_PARTY, payload: { content: outcome.result.content ?? "" }, action: "leader_reply", resource: `conversation:${this.convId}`, reply: true });
          continue;
        }
        for (const call of outcome.result.tool_calls) {
          if (this.stopController.signal.aborted) break;
          const result = await this.runLeaderTool(call);
          await this.appendToolResult(null, call, result);
        }
      }
    } finally {
      this.setLeaderBusy(false);
      await this.refreshPhase().catch(() => undefined);
    }
  }

  /**
   * The whole context report of a call goes to `context.jsonl` (one line per call, durable before
   * the message that names it is saved); the message itself keeps only the totals.
   */
  private async saveContextReport(message: Message, agentId: number | null, report: SliceReport): Promise<void> {
    await appendJsonLine(path.join(this.dir, CONTEXT_FILE_NAME), JSON.stringify({ message_id: message.message_id, agent_id: agentId, at: new Date().toISOString(), report }));
  }

  /** Saves the partial answer of a failed call as an interrupted message and shows a banner. */
  private async saveInterrupted(agentId: number | null, error: ModelCallError, traceId: string, modelKey: string): Promise<void> {
    const aborted = error.reason === "aborted";
    const partial = error.partial;
    if (partial && (partial.content || partial.reasoning)) {
      const message = this.assistantMessage({ ...partial, tool_calls: [] }, traceId, { interrupted: true, interrupted_reason: error.reason });
      if (agentId === null) {
        await this.store.updateLeaderMessages(this.convId, (f) => ({ ...f, messages: [...f.messages, message] }), { touch: false });
      } else {
        message.metadata = { ...message.metadata, message_source: "sub_agent", agent_id: agentId };
        await this.store.updateAgentMessages(this.convId, agentId, (f) => ({ ...f, messages: [...f.messages, message] }));
      }
      this.publish({ type: "message", agent_id: agentId, message });
    }
    if (!aborted) {
      const who = agentId === null ? "The Team Leader" : `Agent ${agentId}`;
      this.notice(
        "error",
        "model_error",
        `${who}'s model (${modelKey}) failed: ${error.message} Check the model's entry in models.json in the data folder (or OPENAI_BASE_URL / OPENAI_API_KEY), then send a message to continue.`,
        agentId,
      );
      await this.emit(await this.cause(), { type: "event", from: SYSTEM_PARTY, to: agentId === null ? LEADER_PARTY : agentParty(agentId), payload: { reason: error.reason }, action: "model_error", resource: `model:${modelKey}`, status: "failed" });
    }
  }

  /** Appends a tool result to the leader's or an agent's messages (saved at once). */
  private async appendToolResult(agentId: number | null, call: ToolCall, content: string, extra: Record<string, unknown> = {}): Promise<void> {
    const capped = capToolOutput(content, this.limits.toolOutputMax);
    const trace = await this.traceOrNew();
    const message: Message = { role: "tool", tool_call_id: call.id, content: capped, message_id: messageId("msg_tool"), metadata: { trace_id: trace.trace_id, ...extra } };
    if (agentId === null) {
      await this.store.updateLeaderMessages(this.convId, (f) => ({ ...f, messages: [...f.messages, message] }), { touch: false });
    } else {
      await this.store.updateAgentMessages(this.convId, agentId, (f) => ({ ...f, messages: [...f.messages, message] }));
      // seed §8.1: metadata too is saved after every tool call
      const meta = (await this.store.updateAgentMetadata(this.convId, agentId, (m) => m)) as AgentMeta;
      await this.publishAgent(meta);
    }
    this.publish({ type: "message", agent_id: agentId, message });
  }

  /**
   * Tool calls that were asked for but have no result (the server died in between): read-only
   * ones run again; a side-effecting one that finished gives back its recorded result; one that
   * started but did not finish is recorded as interrupted and not run again on its own.
   */
  private async resolveDangling(agentId: number | null, calls: ToolCall[]): Promise<void> {
    for (const call of calls) {
      if (agentId !== null && call.function.name === "ask_master") {
        const meta = await this.store.readAgentMetadata(this.convId, agentId);
        if ((meta.pending_tool_calls ?? []).some((p) => p.tool_call_id === call.id)) continue; // still waiting: fine
      }
      if (READ_ONLY_TOOLS.has(call.function.name)) {
        const result = agentId === null ? await this.runLeaderTool(call) : await this.runAgentTool(agentId, call);
        if (result !== null) await this.appendToolResult(agentId, call, result);
        continue;
      }
      const key = this.actionKey(agentId, call);
      const state = await this.journal.state(key);
      const found = state.status === "started" ? await this.effectOutcome(key, call) : null;
      if (state.status === "done") {
        await this.appendToolResult(agentId, call, state.result);
      } else if (found !== null) {
        await this.journal.done(key, found);
        await this.appendToolResult(agentId, call, found);
      } else if (state.status === "started" && !INTERNAL_EFFECTS.has(call.function.name)) {
        await this.appendToolResult(agentId, call, errorResult(`interrupted: the server stopped while ${call.function.name} was running; it was not run again. Check whether it took effect before trying again.`), { interrupted: true });
        this.notice("warning", "interrupted", `${agentId === null ? "The Team Leader's" : `Agent ${agentId}'s`} ${call.function.name} was interrupted by a restart and was not run again.`, agentId);
        await this.emit(await this.cause(), { type: "event", from: SYSTEM_PARTY, to: agentId === null ? LEADER_PARTY : agentParty(agentId), payload: { tool: call.function.name }, action: call.function.name, resource: `tool_call:${call.id}`, status: "interrupted" });
      } else {
        const result = agentId === null ? await this.runLeaderTool(call) : await this.runAgentTool(agentId, call);
        if (result !== null) await this.appendToolResult(agentId, call, result);
      }
    }
  }

  /**
   * Whether an internal effect (a change of the conversation's own state) whose run was cut short
   * by a crash did happen: the change carries its key. Its result when it did, null otherwise (or
   * for effects outside the conversation, which cannot be checked this way).
   */
  private async effectOutcome(key: string, call: ToolCall): Promise<string | null> {
    if (call.function.name === "report_to_leader") {
      const leader = await this.store.readLeaderMessages(this.convId);
      const report = [...leader.messages, ...leaderInbox(leader.metadata)].find((m) => m.metadata?.effect_key === key);
      if (!report) return null;
      const agentId = Number(report.metadata?.agent_id);
      if (Number.isSafeInteger(agentId)) await this.store.updateAgentMetadata(this.convId, agentId, (m) => ({ ...(m as AgentMeta), reported: true }));
      return JSON.stringify({ delivered: true, report_id: /\nid: (\S+)/.exec(String(report.content))?.[1] ?? null });
    }
    if (call.function.name === "create_sub_agent") {
      const agent = (await this.store.listAgents(this.convId)).agents.find((a) => (a as AgentMeta & { effect_key?: string }).effect_key === key);
      if (!agent) return null;
      const taskId = agent.pending_messages?.[0]?.id ?? null;
      return JSON.stringify({ agent_id: agent.agent_id, display_name: agent.display_name, task_id: taskId });
    }
    return null;
  }

  /**
   * The idempotency key of a side effect: who asked for it and the model's id for the call (not
   * the conversation's latest trace, which a person's new message changes under a running agent).
   */
  private actionKey(agentId: number | null, call: ToolCall): string {
    return `${agentId === null ? "leader" : `agent:${agentId}`}:${call.id}`;
  }

  /** Runs a side-effecting action of the leader (null) or an agent at most once under its idempotency key, written durably before it runs. */
  private async once(agentId: number | null, call: ToolCall, action: (key: string) => Promise<string>): Promise<string> {
    const key = this.actionKey(agentId, call);
    const state = await this.journal.state(key);
    if (state.status === "done") return state.result;
    if (state.status === "started") {
      const found = await this.effectOutcome(key, call);
      if (found !== null) {
        await this.journal.done(key, found);
        return found;
      }
      if (!INTERNAL_EFFECTS.has(call.function.name)) return errorResult(`interrupted earlier; ${call.function.name} was not run again`);
      // An internal effect is one change of the conversation's own state: not found, it did not happen.
    } else {
      await this.journal.started(key);
    }
    let result: string;
    try {
      result = await action(key);
    } catch (error) {
      // It ran and failed: a replay answers with the same failure instead of "interrupted".
      await this.journal.done(key, errorResult(toolFailureMessage(call.function.name, error)));
      throw error;
    }
    await this.journal.done(key, result);
    return result;
  }

  /**
   * A tool threw. A refusal (bad arguments, a forbidden path) is answered with its message; any
   * other fault is logged and put on the timeline, and the model is told in plain words, so the
   * loop goes on.
   */
  private async toolFailed(agentId: number | null, call: ToolCall, error: unknown): Promise<string> {
    const message = toolFailureMessage(call.function.name, error);
    if (isRefusal(error)) return errorResult(message);
    console.error(`[astrion] ${this.convId} trace=${this.lastTrace?.trace_id ?? "-"} ${agentId === null ? "leader" : `agent ${agentId}`} tool ${call.function.name} failed`, error);
    const party = agentId === null ? LEADER_PARTY : agentParty(agentId);
    await this.emit(await this.cause(), { type: "event", from: SYSTEM_PARTY, to: party, payload: { tool: call.function.name, fault: faultSummary(error) }, action: call.function.name, resource: `tool_call:${call.id}`, status: "failed" });
    return errorResult(message);
  }

  /** Runs one of the leader's tools; whatever it throws becomes a tool error. */
  private async runLeaderTool(call: ToolCall): Promise<string> {
    try {
      failpoint(`tool.${call.function.name}`, call.function.arguments);
      return await this.dispatchLeaderTool(call);
    } catch (error) {
      return this.toolFailed(null, call, error);
    }
  }

  private async dispatchLeaderTool(call: ToolCall): Promise<string> {
    const name = call.function.name;
    if (isSharedContextTool(name)) {
      const run = async () =>
        executeSharedContextTool(name, call.function.arguments, {
          conversationDir: this.dir,
          actor: { display_name: LEADER_DISPLAY_NAME, role: "leader", party: LEADER_PARTY },
          emit: async (e) => void (await this.emit(await this.cause(), e)),
        });
      return SHARED_CONTEXT_READ_ONLY_TOOLS.has(name) ? run() : this.once(null, call, run);
    }
    if (!hasOwnKey(LEADER_TOOL_ARGS, name)) return errorResult(`unknown tool ${name}`);
    const schema = LEADER_TOOL_ARGS[name as keyof typeof LEADER_TOOL_ARGS];
    const parsed = parseToolArguments(schema, call.function.arguments);
    if (!parsed.ok) return errorResult(parsed.error);
    const args = parsed.args as Record<string, unknown>;
    try {
      switch (name) {
        case "create_sub_agent": {
          // Only registered roles authorized for this conversation: refused in code, not by the model.
          const { all, allowList } = await this.authorizedChoices();
          const refusal = roleRefusal(String(args.role_id), all, allowList);
          if (refusal) {
            await this.emit(await this.cause(), { type: "event", from: SYSTEM_PARTY, to: LEADER_PARTY, payload: { role_id: String(args.role_id), reason: refusal }, action: "create_sub_agent", resource: `role:${String(args.role_id)}`, status: "refused" });
            return errorResult(refusal);
          }
          return await this.once(null, call, (key) => this.createSubAgent(String(args.role_id), String(args.task), args.critical !== false, key));
        }
        case "send_message_to_agent":
          return await this.once(null, call, async () => {
            const id = await this.messageAgent(Number(args.agent_id), String(args.content), { name: LEADER_DISPLAY_NAME, agentId: null, party: LEADER_PARTY, abbrev: "tl" });
            return JSON.stringify({ delivered: true, message_id: id });
          });
        case "answer_question":
          return await this.once(null, call, async () => {
            const r = await this.answerQuestion(String(args.question_id), String(args.answer), LEADER_DISPLAY_NAME);
            return JSON.stringify({ answered: true, agent_id: r.agent_id });
          });
        case "terminate_agent":
          return await this.once(null, call, async () => {
            await this.terminateAgent(Number(args.agent_id), String(args.reason ?? ""), LEADER_DISPLAY_NAME);
            return JSON.stringify({ terminated: Number(args.agent_id) });
          });
        case "broadcast":
          return await this.once(null, call, () => this.broadcast(String(args.content)));
        case "list_agents": {
          const { agents } = await this.store.listAgents(this.convId);
          return JSON.stringify({
            agents: agents.map((a) => ({ agent_id: a.agent_id, display_name: a.display_name, role_id: a.role_id, status: a.status, task_summary: a.task_summary ?? "" })),
          });
        }
      }
    } catch (error) {
      if (error instanceof AstrionError && error.status < 500) return errorResult(error.message);
      throw error;
    }
    return errorResult(`unknown tool ${name}`);
  }

  private async broadcast(content: string): Promise<string> {
    const { agents } = await this.store.listAgents(this.convId);
    const live = agents.filter((a) => a.status !== "terminated");
    const busy = live.filter((a) => !checkInbox(a.display_name, (a.pending_messages ?? []).length).ok).map((a) => a.agent_id);
    const targets = live.filter((a) => !busy.includes(a.agent_id));
    for (const a of targets) {
      await this.messageAgent(a.agent_id, content, { name: LEADER_DISPLAY_NAME, agentId: null, party: LEADER_PARTY, abbrev: "tl" });
    }
    await this.emit(await this.cause(), { type: "broadcast", from: LEADER_PARTY, to: "all", payload: { content, recipients: targets.map((a) => a.agent_id) }, action: "broadcast", resource: null });
    return JSON.stringify({ delivered_to: targets.map((a) => a.agent_id), busy });
  }

  /** `create_sub_agent`: enforces the per-conversation cap, creates the files, hands over the task. */
  private async createSubAgent(roleId: string, task: string, critical = true, effectKey?: string): Promise<string> {
    const project = await this.projectGate();
    if (!project.ok) return this.projectRefused(project, LEADER_PARTY, "create_sub_agent");
    const conv = await this.store.get(this.convId);
    if (conv.agent_ids.length >= this.limits.maxAgents) {
      this.notice("warning", "cap_agents", `The team already has ${this.limits.maxAgents} sub-agents, the most one conversation may create.`);
      await this.emit(await this.cause(), { type: "event", from: SYSTEM_PARTY, to: LEADER_PARTY, payload: { cap: this.limits.maxAgents }, action: "create_sub_agent", resource: `role:${roleId}`, status: "capped" });
      return errorResult(`cap reached: this conversation already has ${this.limits.maxAgents} sub-agents (the maximum). Reuse one with send_message_to_agent.`);
    }
    const role = await this.app.roles.get(roleId);
    if (role.kind !== "role") return errorResult(`role "${roleId}" cannot be loaded: ${role.error.message}`);
    const registry = await loadRegistry(this.app.root);
    let modelKey = conv.model_key;
    if (role.fields.model && lookupModel(registry, role.fields.model)) modelKey = role.fields.model;
    else if (role.fields.model && role.fields.model !== "inherit") {
      this.notice("warning", "model_fallback", `Role ${role.fields.name} names model "${role.fields.model}", which is not in models.json; it uses the conversation's model (${conv.model_key}).`);
    }
    const taskId = await this.nextId("task");
    const meta = (await this.store.createAgent(this.convId, {
      role_id: roleId,
      role_name: role.fields.name,
      model_key: modelKey,
      thinking_mode: role.fields.thinking_mode ?? (conv.run_mode === "fast" ? "fast" : "thinking"),
      task_summary: summarize(task, 160),
    })) as AgentMeta;
    const canWrite = (role.fields.permissions ?? []).includes("write");
    issueAgentToken({ conversation_id: this.convId, agent_id: meta.agent_id, role_id: roleId, permissions: role.fields.permissions ?? ["read"], project_path: project.path });
    const taskEnvelope = await this.emit(await this.cause(), {
      type: "request",
      from: LEADER_PARTY,
      to: agentParty(meta.agent_id),
      payload: { task_id: taskId, role_id: roleId, task },
      action: "create_sub_agent",
      resource: `agent:${meta.agent_id}`,
      producer: "model",
    });
    const system: Message = {
      role: "system",
      metadata: { message_source: "system", visibility: "hidden", starts_work: false, trace_id: taskEnvelope.trace_id },
      content: agentSystemPrompt(
        { projectPath: conv.project_path, conversationTitle: conv.title, displayName: meta.display_name, agentId: meta.agent_id, roleName: role.fields.name, canWrite },
        role.body,
      ),
    };
    await this.store.updateAgentMessages(this.convId, meta.agent_id, (f) => ({ ...f, messages: [system] }));
    const pending: PendingMessage = { id: taskId, source_display_name: LEADER_DISPLAY_NAME, source_agent_id: null, message_type: "task", content: task, created_at: epochSeconds() };
    const saved = (await this.store.updateAgentMetadata(this.convId, meta.agent_id, (m) => ({
      ...m,
      pending_messages: [pending],
      calls_this_task: 0,
      reported: false,
      trace_id: taskEnvelope.trace_id,
      task_turn_id: taskEnvelope.turn_id,
      critical,
      permissions: role.fields.permissions ?? ["read"],
      // Written with the task, in one change: a restart that finds the key knows the agent exists with its task.
      ...(effectKey ? { effect_key: effectKey } : {}),
    }))) as AgentMeta;
    this.setActivity(meta.agent_id, `created with ${taskId}`);
    await this.publishAgent(saved);
    await this.refreshPhase();
    this.notifyAgent(meta.agent_id);
    return JSON.stringify({ agent_id: meta.agent_id, display_name: meta.display_name, task_id: taskId });
  }

  // ---------------------------------------------------------------- sub-agents

  private agentSignal(agentId: number): AbortController {
    let c = this.agentControllers.get(agentId);
    if (!c || c.signal.aborted) {
      c = new AbortController();
      this.agentControllers.set(agentId, c);
    }
    return c;
  }

  /** Delivers pending messages into the agent's conversation; returns how many. */
  private async drainInbox(agentId: number): Promise<number> {
    const meta = (await this.store.readAgentMetadata(this.convId, agentId)) as AgentMeta;
    const pending = meta.pending_messages ?? [];
    if (!pending.length) return 0;
    const messages: Message[] = pending.map((p) => ({
      role: "user",
      content: formatAgentMessage(p.message_type === "task" ? "task" : "message", p.source_display_name, p.id, p.content),
      message_id: messageId("msg_user"),
      metadata: { message_source: p.source_agent_id === null && p.source_display_name === LEADER_DISPLAY_NAME ? "leader" : p.source_agent_id === null ? "user" : "sub_agent", visibility: "chat", starts_work: true, trace_id: meta.trace_id },
    }));
    const ids = new Set(pending.map((p) => p.id));
    await this.store.updateAgentMessages(this.convId, agentId, (f) => ({ ...f, messages: [...f.messages, ...messages] }));
    const hasTask = pending.some((p) => p.message_type === "task");
    const updated = (await this.store.updateAgentMetadata(this.convId, agentId, (m) => {
      const status = m.status === "running" ? m.status : transitionAgent(m.status, "assign");
      return {
        ...(m as AgentMeta),
        status,
        pending_messages: (m.pending_messages ?? []).filter((p) => !ids.has(p.id)),
        // Work delivered to a failed agent starts it afresh.
        failure: undefined,
        ...(hasTask ? { calls_this_task: 0, reported: false } : {}),
        ...(!hasTask && (m as AgentMeta).reported ? { calls_this_task: 0, reported: false } : {}),
      };
    })) as AgentMeta;
    for (const m of messages) this.publish({ type: "message", agent_id: agentId, message: m });
    this.setActivity(agentId, `read ${pending.map((p) => p.id).join(", ")}`);
    await this.publishAgent(updated);
    await this.refreshPhase();
    return pending.length;
  }

  private async runAgent(agentId: number): Promise<void> {
    const controller = this.agentSignal(agentId);
    for (;;) {
      if (this.stopController.signal.aborted || controller.signal.aborted) return;
      this.agentAgain.delete(agentId);
      let meta = (await this.store.readAgentMetadata(this.convId, agentId)) as AgentMeta;
      if (meta.status === "terminated") return;
      if (meta.status === "waiting" || (meta.pending_tool_calls ?? []).length) return;
      const files = await this.store.readAgentMessages(this.convId, agentId);
      const dangling = danglingToolCalls(files.messages);
      if (dangling.length) {
        await this.resolveDangling(agentId, dangling);
        continue;
      }
      await this.drainInbox(agentId);
      meta = (await this.store.readAgentMetadata(this.convId, agentId)) as AgentMeta;
      const messages = (await this.store.readAgentMessages(this.convId, agentId)).messages;
      // A delivered report ends the task: a crash between the report and the status change must
      // not give the agent another model call.
      if (!needsModelCall(messages) || (meta.reported && endsWithDeliveredReport(messages))) {
        if (meta.status === "running") await this.agentEvent(agentId, meta.reported ? "complete" : "pause");
        return;
      }
      if ((meta.calls_this_task ?? 0) >= this.limits.maxCallsPerTask) {
        await this.capReached(agentId, meta);
        return;
      }
      const conv = await this.store.get(this.convId);
      let model: ChatModel;
      try {
        model = await modelFor(this.app.root, meta.model_key ?? conv.model_key);
      } catch (error) {
        this.notice("error", "model_error", `${(error as Error).message} Configure models in models.json in the data folder.`, agentId);
        await this.agentEvent(agentId, "pause");
        return;
      }
      // seed §8.1: save metadata and messages before every model call
      meta = (await this.store.updateAgentMetadata(this.convId, agentId, (m) => ({ ...(m as AgentMeta), calls_this_task: ((m as AgentMeta).calls_this_task ?? 0) + 1 }))) as AgentMeta;
      await this.store.updateAgentMessages(this.convId, agentId, (f) => f);
      this.setActivity(agentId, "thinking…");
      await this.publishAgent(meta);
      const canWrite = (meta.permissions ?? []).includes("write");
      const thinking = meta.thinking_mode === "thinking" ? (conv.run_mode === "deep" ? "deep" : "on") : "off";
      const signal = AbortSignal.any([this.stopController.signal, controller.signal]);
      const leaderFile = await this.store.readLeaderMessages(this.convId);
      const input = buildModelInput({
        kind: "agent",
        system: PROMOTION_HINT,
        messages,
        facts: { project_path: conv.project_path, goal: conversationGoal(leaderFile.messages) ?? conv.title },
        promoted: [...collectPromotions(leaderFile.messages), ...collectPromotions(messages)],
        privateNotes: deriveWorkNotes(messages),
        budgets: this.limits.budgets,
      });
      const outcome = await this.callModel(model, agentId, input.messages, [...agentTools(canWrite), ...sharedContextTools()], thinking, signal);
      const traceId = meta.trace_id ?? (await this.traceOrNew()).trace_id;
      if (!outcome.ok) {
        await this.saveInterrupted(agentId, outcome.error, traceId, model.key);
        const now = (await this.store.readAgentMetadata(this.convId, agentId)) as AgentMeta;
        // A model that keeps failing (no fallback left) must not leave the leader waiting: the agent
        // reports the failure, so the leader can report partial results (seed 003 §6.1).
        if (outcome.error.reason !== "aborted" && now.status === "running" && !now.reported) {
          await this.deliverReport(agentId, now, `I could not finish: my model (${model.key}) failed — ${outcome.error.message}`, "failed");
          await this.store.updateAgentMetadata(this.convId, agentId, (m) => ({ ...(m as AgentMeta), reported: true }));
        }
        if (now.status === "running") await this.agentEvent(agentId, "pause");
        return;
      }
      const message = this.assistantMessage(outcome.result, traceId, { message_source: "sub_agent", agent_id: agentId, context: summarizeReport(input.report) });
      await this.saveContextReport(message, agentId, input.report);
      await this.store.updateAgentMessages(this.convId, agentId, (f) => ({ ...f, messages: [...f.messages, message] }));
      await this.recordUsage(agentId, model.key, outcome.result);
      this.publish({ type: "message", agent_id: agentId, message });
      failpoint("agent.step", `${outcome.result.content ?? ""}${JSON.stringify(outcome.result.tool_calls)}`);
      let ended = false;
      for (const call of outcome.result.tool_calls) {
        if (signal.aborted) break;
        const result = await this.runAgentTool(agentId, call);
        if (result === null) continue; // ask_master: the answer arrives later as the tool result
        await this.appendToolResult(agentId, call, result);
        if (call.function.name === "report_to_leader" && !result.startsWith('{"error"')) ended = true;
      }
      if (ended) {
        const now = (await this.store.readAgentMetadata(this.convId, agentId)) as AgentMeta;
        if (now.status === "running" && !(now.pending_tool_calls ?? []).length) await this.agentEvent(agentId, "complete");
        if (!(now.pending_messages ?? []).length) return;
      }
    }
  }

  private async capReached(agentId: number, meta: AgentMeta): Promise<void> {
    this.notice("warning", "cap_calls", `${meta.display_name} reached ${this.limits.maxCallsPerTask} model calls for its task and was stopped.`, agentId);
    await this.emit(await this.cause(), { type: "event", from: SYSTEM_PARTY, to: agentParty(agentId), payload: { cap: this.limits.maxCallsPerTask }, action: "cap_calls", resource: `agent:${agentId}`, status: "capped" });
    await this.deliverReport(agentId, meta, `I reached the limit of ${this.limits.maxCallsPerTask} model calls for this task and had to stop before finishing.`, "failed");
    await this.agentEvent(agentId, "pause");
  }

  /** Puts a report into the leader's conversation (seed: message_source sub_agent, compact, starts_work false) and wakes it. */
  private async deliverReport(agentId: number, meta: AgentMeta, summary: string, status: string, effectKey?: string): Promise<string> {
    const reportId = await this.nextId("report", roleAbbreviation(meta.role_id));
    const body = status === "completed" ? summary : `[${status}] ${summary}`;
    const message: Message = {
      role: "user",
      content: formatAgentMessage("report", meta.display_name, reportId, body),
      message_id: messageId("msg_auto"),
      // The side effect's key travels with the report, so a restart can see that it was delivered.
      metadata: { message_source: "sub_agent", visibility: "compact", starts_work: false, agent_id: agentId, trace_id: meta.trace_id, ...(effectKey ? { effect_key: effectKey } : {}) },
    };
    const cause = meta.trace_id && meta.task_turn_id ? traceCause(meta.trace_id, meta.task_turn_id) : await this.cause();
    await this.emit(cause, { type: "reply", from: agentParty(agentId), to: LEADER_PARTY, payload: { report_id: reportId, status, summary }, action: "report", resource: `agent:${agentId}`, reply: true });
    this.setActivity(agentId, `reported ${reportId}`);
    const note = await this.partialResultsNote(agentId, meta);
    await this.toLeaderInbox(note ? [message, note] : [message]);
    return reportId;
  }

  /**
   * Partial results (seed 003 §6.1): when this report completes the critical path of its trace
   * while agents marked non-critical still work, the leader is told — once per trace, by code —
   * to report what it has now; their late reports wake it again when they arrive.
   */
  private async partialResultsNote(agentId: number, meta: AgentMeta): Promise<Message | null> {
    if (!meta.trace_id) return null;
    const { agents } = await this.store.listAgents(this.convId);
    const team = (agents as AgentMeta[]).filter((a) => a.trace_id === meta.trace_id && a.status !== "terminated");
    const done = (a: AgentMeta) => a.agent_id === agentId || a.reported === true;
    const critical = team.filter((a) => a.critical !== false);
    const late = team.filter((a) => a.critical === false && !done(a));
    if (!critical.length || !late.length || !critical.every(done)) return null;
    const leader = await this.store.readLeaderMessages(this.convId);
    const sent = [...leader.messages, ...leaderInbox(leader.metadata)].some((m) => m.metadata?.partial_results_for === meta.trace_id);
    if (sent) return null;
    await this.emit(traceCause(meta.trace_id, meta.task_turn_id ?? newTurnId()), {
      type: "event",
      from: SYSTEM_PARTY,
      to: LEADER_PARTY,
      payload: { reported: critical.map((a) => a.agent_id), still_working: late.map((a) => a.agent_id) },
      action: "partial_results_ready",
      resource: `conversation:${this.convId}`,
    });
    return {
      role: "user",
      content: `[Astrion] Every agent on the critical path has reported (${critical.map((a) => a.display_name).join(", ")}). Still working, not critical: ${late.map((a) => a.display_name).join(", ")}. Report the partial results to the person now; add the late results when they arrive.`,
      message_id: messageId("msg_auto"),
      metadata: { message_source: "system", visibility: "compact", starts_work: false, trace_id: meta.trace_id, partial_results_for: meta.trace_id },
    };
  }

  /** Every data access is audited in the timeline (seed 003 §6.4): who read what, and how much. */
  private async auditAccess(agentId: number, action: string, resource: string, payload: Record<string, unknown>): Promise<void> {
    await this.emit(await this.cause(), { type: "event", from: agentParty(agentId), to: SYSTEM_PARTY, payload, action, resource });
  }

  /** Runs one of a sub-agent's tools; null for `ask_master` (the answer comes later). Whatever it throws becomes a tool error. */
  private async runAgentTool(agentId: number, call: ToolCall): Promise<string | null> {
    try {
      failpoint(`tool.${call.function.name}`, call.function.arguments);
      return await this.dispatchAgentTool(agentId, call);
    } catch (error) {
      return this.toolFailed(agentId, call, error);
    }
  }

  private async dispatchAgentTool(agentId: number, call: ToolCall): Promise<string | null> {
    const name = call.function.name;
    if (name === "create_sub_agent") {
      await this.emit(await this.cause(), { type: "event", from: SYSTEM_PARTY, to: agentParty(agentId), payload: { tool: name }, action: "create_sub_agent", resource: `agent:${agentId}`, status: "refused" });
      this.notice("warning", "cap_spawn", `Agent ${agentId} tried to create a sub-agent; only the Team Leader can.`, agentId);
      return errorResult("sub-agents cannot create sub-agents; ask the Team Leader with ask_master if you need help");
    }
    const shared = isSharedContextTool(name);
    if (!shared && !hasOwnKey(AGENT_TOOL_ARGS, name)) return errorResult(`unknown tool ${name}`);
    // Shared-context tools validate their own arguments; the permission check only needs the name.
    const parsed = shared ? ({ ok: true, args: {} } as const) : parseToolArguments(AGENT_TOOL_ARGS[name as keyof typeof AGENT_TOOL_ARGS], call.function.arguments);
    if (!parsed.ok) return errorResult(parsed.error);
    const args = parsed.args as Record<string, unknown>;
    const meta = (await this.store.readAgentMetadata(this.convId, agentId)) as AgentMeta;
    const conv = await this.store.get(this.convId);
    // No tool runs while the project folder is refused or metadata.json names another folder.
    const project = await this.projectGate();
    if (!project.ok) return this.projectRefused(project, agentParty(agentId), name);
    // Least privilege (seed 003 §6.3): every call is checked against the agent's scoped token,
    // which is also the one source of the folder the workspace tools work in.
    const token = meta.status === "terminated" || conv.status === "archived" ? undefined : this.tokenOf(meta, project.path);
    const check = checkToolCall(token, { conversation_id: this.convId, agent_id: agentId, tool: name, args });
    if (!check.ok || !token) {
      const refusal = check.ok ? { code: "no_token", reason: "permission denied: this agent holds no access token" } : check;
      await this.emit(await this.cause(), { type: "event", from: SYSTEM_PARTY, to: agentParty(agentId), payload: { tool: name, code: refusal.code, reason: refusal.reason, scope: check.ok ? null : (check.scope ?? null) }, action: name, resource: `agent:${agentId}`, status: "refused" });
      return errorResult(refusal.reason);
    }
    const root = token.project_path;
    if (shared) {
      const cause = meta.trace_id && meta.task_turn_id ? traceCause(meta.trace_id, meta.task_turn_id) : await this.cause();
      this.setActivity(agentId, name);
      const run = () =>
        executeSharedContextTool(name, call.function.arguments, {
          conversationDir: this.dir,
          actor: { display_name: meta.display_name, role: "agent", party: agentParty(agentId) },
          emit: async (e) => void (await this.emit(cause, e)),
        });
      return SHARED_CONTEXT_READ_ONLY_TOOLS.has(name) ? run() : this.once(agentId, call, run);
    }
    try {
      switch (name) {
        case "list_files": {
          this.setActivity(agentId, `list_files ${String(args.path)}`);
          const r = await listFiles(root, String(args.path ?? "."));
          await this.auditAccess(agentId, name, `dir:${r.path}`, { entries: r.entries.length, truncated: r.truncated });
          return JSON.stringify(r);
        }
        case "read_file": {
          this.setActivity(agentId, `read_file ${String(args.path)}`);
          const r = await readFile(root, String(args.path));
          await this.auditAccess(agentId, name, `file:${r.path}`, { size: r.size, truncated: r.truncated });
          return JSON.stringify(r);
        }
        case "search_files": {
          this.setActivity(agentId, `search_files "${summarize(String(args.query), 40)}"`);
          const r = await searchFiles(root, String(args.query), { path: args.path as string | undefined, glob: args.glob as string | undefined });
          await this.auditAccess(agentId, name, `dir:${String(args.path ?? ".")}`, { query: summarize(String(args.query), 80), matches: r.matches.length, files_scanned: r.filesScanned });
          return JSON.stringify(r);
        }
        case "write_file": {
          this.setActivity(agentId, `write_file ${String(args.path)}`);
          return await this.once(agentId, call, async () => {
            const r = await writeFile(root, String(args.path), String(args.content));
            await this.emit(await this.cause(), { type: "event", from: agentParty(agentId), to: SYSTEM_PARTY, payload: { path: r.path, bytes: r.bytes }, action: "write_file", resource: `file:${r.path}` });
            return JSON.stringify(r);
          });
        }
        case "send_message": {
          const target = Number(args.agent_id);
          if (target === agentId) return errorResult("you cannot message yourself");
          const conv2 = await this.store.get(this.convId);
          if (!conv2.agent_ids.includes(target)) return errorResult(`no agent ${target} in this team`);
          this.setActivity(agentId, `message to agent ${target}`);
          return await this.once(agentId, call, async () => {
            const id = await this.messageAgent(target, String(args.content), { name: meta.display_name, agentId, party: agentParty(agentId), abbrev: roleAbbreviation(meta.role_id) });
            return JSON.stringify({ delivered: true, message_id: id });
          });
        }
        case "report_to_leader": {
          return await this.once(agentId, call, async (key) => {
            const reportId = await this.deliverReport(agentId, meta, String(args.summary), String(args.status ?? "completed"), key);
            await this.store.updateAgentMetadata(this.convId, agentId, (m) => ({ ...(m as AgentMeta), reported: true }));
            return JSON.stringify({ delivered: true, report_id: reportId });
          });
        }
        case "ask_master": {
          const questionId = await this.nextId("question", roleAbbreviation(meta.role_id));
          const question = String(args.question);
          this.setActivity(agentId, `asked ${questionId}`);
          const updated = await this.agentEvent(agentId, "ask", (m) => ({
            ...m,
            pending_tool_calls: [...(m.pending_tool_calls ?? []), { tool_call_id: call.id, tool_name: "ask_master", question_id: questionId, created_at: epochSeconds(), question }],
          }));
          const leaderMessage: Message = {
            role: "user",
            content: formatAgentMessage("message", meta.display_name, questionId, question),
            message_id: messageId("msg_auto"),
            metadata: { message_source: "sub_agent", visibility: "compact", starts_work: false, agent_id: agentId, trace_id: meta.trace_id },
          };
          const q = this.questionsOf([updated]).find((x) => x.question_id === questionId);
          if (q) this.publish({ type: "question", question: q });
          const cause = meta.trace_id && meta.task_turn_id ? traceCause(meta.trace_id, meta.task_turn_id) : await this.cause();
          await this.emit(cause, { type: "request", from: agentParty(agentId), to: LEADER_PARTY, payload: { question_id: questionId, question }, action: "ask_master", resource: `question:${questionId}`, producer: "model" });
          await this.toLeaderInbox(leaderMessage);
          return null;
        }
      }
    } catch (error) {
      if (error instanceof AstrionError && error.status < 500) {
        if (error.code === "forbidden") {
          const code = (error.details as { reason?: unknown } | undefined)?.reason;
          await this.emit(await this.cause(), { type: "event", from: SYSTEM_PARTY, to: agentParty(agentId), payload: { tool: name, code: typeof code === "string" ? code : "forbidden", reason: error.message }, action: name, resource: `path:${String(args.path ?? "")}`, status: "refused" });
        }
        return errorResult(error.message);
      }
      throw error;
    }
    return errorResult(`unknown tool ${name}`);
  }

  // ---------------------------------------------------------------- restart

  /**
   * After a restart: running agents continue from their last saved messages, waiting agents keep
   * waiting, and a leader with unanswered input gets its turn.
   */
  async resume(): Promise<void> {
    const conv = await this.store.get(this.convId);
    if (conv.status === "archived") return;
    // A refused project folder (the data folder moved into it, a symlink now pointing elsewhere…)
    // resumes nothing: no loop runs, no token is issued, and the person is told why.
    const project = await this.projectGate();
    if (!project.ok) {
      await this.projectRefused(project, SYSTEM_PARTY, "resume", "This conversation was not resumed");
      return;
    }
    const { agents } = await this.store.listAgents(this.convId);
    for (const a of agents) {
      if (isFinalAgentStatus(a.status)) continue;
      ensureAgentToken({ conversation_id: this.convId, agent_id: a.agent_id, role_id: a.role_id, permissions: (a as AgentMeta).permissions ?? ["read"], project_path: project.path });
      this.listen(a.agent_id);
      if (a.status === "running" || (a.status !== "waiting" && (a.pending_messages ?? []).length)) this.wakeAgent(a.agent_id);
    }
    const leader = await this.store.readLeaderMessages(this.convId);
    if (needsModelCall(leader.messages) || danglingToolCalls(leader.messages).length || leaderInbox(leader.metadata).length) this.wakeLeader();
    else await this.refreshPhase();
  }
}
