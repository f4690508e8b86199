import "server-only";
/**
 * Messages between the parties of a team: a message to a sub-agent's inbox, an answer to its
 * question, a report or question to the leader's inbox. Each is saved before it is published and
 * wakes whoever must read it. The persisted headers are the seed's Chinese strings
 * (lib/protocol `formatAgentMessage`).
 */
import { ConflictError, NotFoundError } from "@/lib/contracts/errors";
import { assertInbox } from "@/lib/governance";
import { agentParty, formatAgentMessage, LEADER_PARTY, newTurnId, roleAbbreviation, SYSTEM_PARTY, USER_PARTY } from "@/lib/protocol";
import { epochSeconds, type Message, type PendingMessage } from "@/lib/store";
import { replyToCaller } from "./abilities";
import type { TeamState } from "./state";
import { LEADER_DISPLAY_NAME, leaderInbox, messageId, traceCause, type AgentMeta, type Sender } from "./types";
import { authorParty, type Author } from "@/lib/contracts/people";
import type { InterventionMeta } from "@/lib/contracts/interventions";

/**
 * A person's (or the leader's, or a teammate's) message to one sub-agent, delivered before its
 * next step. `intervention`: a person's message to a running team (./interventions.ts), recorded
 * as that intervention (its envelope type, action and `meta.intervention`) in the agent's trace.
 */
export async function messageAgent(s: TeamState, agentId: number, content: string, from: Sender, intervention?: { type: "request" | "control"; meta: InterventionMeta }): Promise<string> {
  const meta = await s.readAgent(agentId);
  if (meta.status === "terminated") throw new ConflictError(`${meta.display_name} was terminated and cannot receive messages.`);
  // Bounded inbox (seed 003 §6.2): a full inbox answers the sender with a busy error.
  assertInbox(meta.display_name, (meta.pending_messages ?? []).length);
  const id = await s.nextId("message", from.abbrev);
  const pending: PendingMessage = { id, source_display_name: from.name, source_agent_id: from.agentId, message_type: "message", content, created_at: epochSeconds() };
  const updated = await s.updateAgent(agentId, (m) => ({ ...m, pending_messages: [...(m.pending_messages ?? []), pending] }));
  if (intervention) await s.emit(await s.causeFor(meta), { type: intervention.type, from: from.party, to: agentParty(agentId), payload: { id, content }, action: "intervention", resource: `agent:${agentId}`, status: "delivered", author: from.author, meta: { intervention: intervention.meta } });
  else await s.emitNow({ type: "request", from: from.party, to: agentParty(agentId), payload: { id, content }, action: "message", resource: `agent:${agentId}`, producer: "model", author: from.author });
  await s.publishAgent(updated);
  if (updated.status !== "waiting") s.notifyAgent(agentId);
  return id;
}

/** Whether a question id was ever relayed to the leader (so a second answer is a conflict, not a 404). */
async function questionWasAsked(s: TeamState, questionId: string): Promise<boolean> {
  const leader = await s.store.readLeaderMessages(s.convId);
  return [...leader.messages, ...leaderInbox(leader.metadata)].some((m) => typeof m.content === "string" && m.content.includes(`\nid: ${questionId}\n`));
}

/** Answers a pending `ask_master` question (by the leader or a person) and resumes the agent. */
export async function answerQuestion(s: TeamState, questionId: string, answer: string, answeredBy: string, expectedAgentId?: number, author?: Author): Promise<{ agent_id: number }> {
  const { agents } = await s.store.listAgents(s.convId);
  // Only ask_master questions: an ability call is answered by its callee, and an approval is a person's to decide (./approvals.ts).
  const owner = agents.find((a) => (a.pending_tool_calls ?? []).some((p) => p.question_id === questionId && p.tool_name === "ask_master"));
  if (!owner) {
    if (await questionWasAsked(s, questionId)) throw new ConflictError(`Question ${questionId} was already answered.`);
    throw new NotFoundError(`No pending question ${questionId} in this conversation.`);
  }
  if (expectedAgentId !== undefined && owner.agent_id !== expectedAgentId) throw new NotFoundError(`Question ${questionId} is not ${expectedAgentId}'s.`);
  const entry = owner.pending_tool_calls!.find((p) => p.question_id === questionId && p.tool_name === "ask_master")!;
  const toolMessage: Message = {
    role: "tool",
    tool_call_id: entry.tool_call_id,
    content: JSON.stringify({ answer, answered_by: answeredBy }),
    message_id: messageId("msg_tool"),
    metadata: { trace_id: (owner as AgentMeta).trace_id ?? (await s.traceOrNew()).trace_id },
  };
  await s.store.updateAgentMessages(s.convId, owner.agent_id, (f) => ({ ...f, messages: [...f.messages, toolMessage] }));
  const answered = (m: AgentMeta): AgentMeta => ({ ...m, pending_tool_calls: (m.pending_tool_calls ?? []).filter((p) => p.question_id !== questionId) });
  // Still waiting on something else (a tool call awaiting approval, asked in the same answer): it stays waiting.
  const stillWaiting = answered(owner as AgentMeta).pending_tool_calls!.length > 0;
  const meta = stillWaiting ? await s.updateAgent(owner.agent_id, answered) : await s.agentEvent(owner.agent_id, "answer", answered);
  if (stillWaiting) await s.publishAgent(meta);
  s.publish({ type: "message", agent_id: owner.agent_id, message: toolMessage });
  s.publish({ type: "question_answered", question_id: questionId, answered_by: answeredBy });
  await s.emit(await s.causeFor(meta), {
    type: "reply",
    from: author ? authorParty(author) : answeredBy === LEADER_DISPLAY_NAME ? LEADER_PARTY : USER_PARTY,
    to: agentParty(owner.agent_id),
    author,
    payload: { question_id: questionId, answer },
    action: "answer_question",
    resource: `question:${questionId}`,
    reply: true,
  });
  s.setActivity(owner.agent_id, { kind: "answered", target: questionId });
  s.notifyAgent(owner.agent_id);
  return { agent_id: owner.agent_id };
}

/**
 * Reports and questions for the leader wait in its inbox (`metadata.pending_inbox` of its
 * messages.json, so they survive a restart) until the leader is at a safe point: a message
 * appended between an assistant's tool calls and their results would break the conversation.
 */
export async function toLeaderInbox(s: TeamState, message: Message | Message[]): Promise<void> {
  const added = Array.isArray(message) ? message : [message];
  await s.store.updateLeaderMessages(s.convId, (f) => ({ ...f, metadata: { ...(f.metadata ?? {}), pending_inbox: [...leaderInbox(f.metadata), ...added] } }), { touch: false });
  s.reportWaiting = true;
  s.wakeLeader();
}

/** The trace a message of the leader's inbox belongs to (undefined for one saved without). */
function traceOfMessage(m: Message): string | undefined {
  const t = m.metadata?.trace_id;
  return typeof t === "string" ? t : undefined;
}

/** A person's steer or interrupt: read at the leader's next call, whichever request that call is for. */
function readAtNextCall(m: Message): boolean {
  const strategy = (m.metadata?.intervention as { strategy?: unknown } | undefined)?.strategy;
  return strategy === "steer" || strategy === "interrupt";
}

/**
 * Which inbox messages one turn takes: those of one request (trace) and any without a trace, in
 * the order they arrived, and a person's steer or interrupt whatever its request. `trace` is the
 * request the leader is in the middle of (its messages end with tool results or input): only its
 * messages join; else the first waiting request's. So two requests running beside each other (a
 * person's new task) are answered in turns of their own, and what the leader does in a turn
 * belongs to that turn's request (`trace` of the answer). Pure.
 */
export function inboxTurn(inbox: readonly Message[], trace: string | undefined): { take: Message[]; keep: Message[]; trace: string | undefined } {
  const group = trace ?? inbox.filter((m) => !readAtNextCall(m)).map(traceOfMessage).find((t) => t !== undefined) ?? inbox.map(traceOfMessage).find((t) => t !== undefined);
  const take: Message[] = [];
  const keep: Message[] = [];
  for (const m of inbox) {
    const t = traceOfMessage(m);
    (t === undefined || group === undefined || t === group || readAtNextCall(m) ? take : keep).push(m);
  }
  return { take, keep, trace: group };
}

/**
 * Moves the inbox into the leader's messages (all of one turn at once: reports that arrived
 * together make one turn; see {@link inboxTurn}). `trace`: the request the leader is in the
 * middle of, if any. Returns how many were moved and the request of the turn.
 */
export async function drainLeaderInbox(s: TeamState, trace?: string): Promise<{ count: number; trace: string | undefined }> {
  let drained: Message[] = [];
  let group: string | undefined;
  await s.store.updateLeaderMessages(
    s.convId,
    (f) => {
      const turn = inboxTurn(leaderInbox(f.metadata), trace);
      drained = turn.take;
      group = turn.trace;
      if (!drained.length) return f;
      return { ...f, messages: [...f.messages, ...drained], metadata: { ...(f.metadata ?? {}), pending_inbox: turn.keep } };
    },
    { touch: false },
  );
  // What stays waits for the next turn.
  if (drained.length && leaderInbox((await s.store.readLeaderMessages(s.convId)).metadata).length) s.wakeLeader();
  for (const message of drained) s.publish({ type: "message", agent_id: null, message });
  return { count: drained.length, trace: drained.length ? group : undefined };
}

/** Puts a report into the leader's conversation (seed: message_source sub_agent, compact, starts_work false) and wakes it. */
export async function deliverReport(s: TeamState, agentId: number, meta: AgentMeta, summary: string, status: string, effectKey?: string): Promise<string> {
  // An agent serving an ability call answers its caller (as the call's tool result), not the leader.
  const replied = await replyToCaller(s, agentId, summary, status, effectKey);
  if (replied !== null) return replied;
  const reportId = await s.nextId("report", roleAbbreviation(meta.role_id));
  const body = status === "completed" ? summary : `[${status}] ${summary}`;
  const message: Message = {
    role: "user",
    content: formatAgentMessage("report", meta.display_name, reportId, body),
    message_id: messageId("msg_auto"),
    // The side effect's key travels with the report, so a restart can see that it was delivered.
    metadata: { message_source: "sub_agent", visibility: "compact", starts_work: false, agent_id: agentId, trace_id: meta.trace_id, ...(effectKey ? { effect_key: effectKey } : {}) },
  };
  await s.emit(await s.causeFor(meta), { type: "reply", from: agentParty(agentId), to: LEADER_PARTY, payload: { report_id: reportId, status, summary }, action: "report", resource: `agent:${agentId}`, reply: true });
  s.setActivity(agentId, { kind: "reported", target: reportId });
  const note = await partialResultsNote(s, agentId, meta);
  await toLeaderInbox(s, note ? [message, note] : [message]);
  return reportId;
}

/** Reports a failure on the agent's behalf, once per task (so nobody waits for it), and marks it reported. */
export async function reportFailure(s: TeamState, agentId: number, meta: AgentMeta, summary: string): Promise<void> {
  if (meta.reported || meta.status === "terminated") return;
  await deliverReport(s, agentId, meta, summary, "failed");
  await s.updateAgent(agentId, (m) => ({ ...m, reported: true }));
}

/**
 * Partial results (seed 003 §6.1): when this report completes the critical path of its trace
 * while agents marked non-critical still work, the leader is told — once per trace, by code —
 * to report what it has now; their late reports wake it again when they arrive.
 */
async function partialResultsNote(s: TeamState, agentId: number, meta: AgentMeta): Promise<Message | null> {
  if (!meta.trace_id) return null;
  const { agents } = await s.store.listAgents(s.convId);
  const team = (agents as AgentMeta[]).filter((a) => a.trace_id === meta.trace_id && a.status !== "terminated");
  const done = (a: AgentMeta) => a.agent_id === agentId || a.reported === true;
  const critical = team.filter((a) => a.critical !== false);
  const late = team.filter((a) => a.critical === false && !done(a));
  if (!critical.length || !late.length || !critical.every(done)) return null;
  const leader = await s.store.readLeaderMessages(s.convId);
  if ([...leader.messages, ...leaderInbox(leader.metadata)].some((m) => m.metadata?.partial_results_for === meta.trace_id)) return null;
  await s.emit(traceCause(meta.trace_id, meta.task_turn_id ?? newTurnId()), {
    type: "event",
    from: SYSTEM_PARTY,
    to: LEADER_PARTY,
    payload: { reported: critical.map((a) => a.agent_id), still_working: late.map((a) => a.agent_id) },
    action: "partial_results_ready",
    resource: `conversation:${s.convId}`,
  });
  return {
    role: "user",
    content: `[Astrion] Every agent on the critical path has reported (${critical.map((a) => a.display_name).join(", ")}). Still working, not critical: ${late.map((a) => a.display_name).join(", ")}. Report the partial results to the person now; add the late results when they arrive.`,
    message_id: messageId("msg_auto"),
    metadata: { message_source: "system", visibility: "compact", starts_work: false, trace_id: meta.trace_id, partial_results_for: meta.trace_id },
  };
}
