import "server-only";
/**
 * A person's interventions in a run that is going (issue 32, seed 003 §2.1 "用户干预"): a
 * message sent with a strategy, a queued message withdrawn or reordered, a task withdrawn from an
 * agent. Each is one envelope on the timeline, action `intervention`, whose `meta.intervention`
 * says what it was, by whom and to whom (lib/contracts/interventions.ts). Envelope types follow
 * the seed: a message that asks something is a `request` (steer, queue, new task); what changes
 * how work runs is `control` (interrupt, withdraw, reorder).
 *
 * Where things wait: the leader's messages.json metadata keeps its inbox (`pending_inbox`, read
 * at its next call) and the queue (`queued_interventions`, taken up when the work is over); an
 * agent's messages wait in its `pending_messages` (seed). Every change is one read-modify-write of
 * its file, so two people acting at once never lose a message and keep the order they arrived in.
 */
import { ConflictError, NotFoundError, ValidationError } from "@/lib/contracts/errors";
import { queuedOf, reorderQueue, type InterventionMeta, type InterventionOutcome, type InterventionStrategy, type QueuedMessage } from "@/lib/contracts/interventions";
import { authorParty, speakerName, type Author } from "@/lib/contracts/people";
import { auditPayload } from "@/lib/governance";
import { agentParty, follow, LEADER_PARTY, startTrace, timelineRecord, unansweredToolCalls, type Envelope } from "@/lib/protocol";
import type { Message } from "@/lib/store";
import { messageAgent, toLeaderInbox } from "./mail";
import type { TeamState } from "./state";
import { appendToolResult } from "./steps";
import { CallCancel, errorResult, leaderInbox, messageId, traceCause, type AgentMeta, type Sender } from "./types";

/** A person's message to a running team. */
export interface InterventionInit {
  content: string;
  author: Author;
  strategy: InterventionStrategy;
  /** null: the leader; else the sub-agent addressed. */
  agentId: number | null;
}

const targetOf = (agentId: number | null) => (agentId === null ? LEADER_PARTY : agentParty(agentId));

function senderOf(author: Author): Sender {
  return { name: speakerName(author), agentId: null, party: authorParty(author), abbrev: "usr", author };
}

/** Appends an intervention's envelope to the timeline (durably), then publishes it. */
async function record(s: TeamState, envelope: Envelope, resource: string, status = "ok"): Promise<void> {
  const rec = timelineRecord(envelope, { action: "intervention", resource, status });
  await s.storage.appendTimeline(s.convId, rec);
  s.publish({ type: "timeline", record: rec });
}

/** Publishes the queue as it is now (the composer's list). */
async function publishQueue(s: TeamState): Promise<QueuedMessage[]> {
  const queued = queuedOf((await s.store.readLeaderMessages(s.convId)).metadata);
  s.publish({ type: "queue", queued });
  return queued;
}

/** A person's message as the leader's conversation keeps it (seed shape; author and intervention added in metadata). */
function personMessage(content: string, author: Author, trace: { trace_id: string; turn_id: string }, intervention?: InterventionMeta): Message {
  return {
    role: "user",
    content,
    message_id: messageId("msg_user"),
    metadata: { message_source: "user", visibility: "chat", starts_work: true, trace_id: trace.trace_id, turn_id: trace.turn_id, author, ...(intervention ? { intervention } : {}) },
  };
}

/** Puts a person's message in the leader's inbox (read at its next call) and wakes it. */
async function toInbox(s: TeamState, message: Message): Promise<void> {
  await s.store.updateLeaderMessages(s.convId, (f) => ({ ...f, metadata: { ...(f.metadata ?? {}), pending_inbox: [...leaderInbox(f.metadata), message] } }), { touch: false });
  s.publish({ type: "message", agent_id: null, message });
  s.wakeLeader();
}

/** Cancels the model call in flight of the leader (null) or an agent, if any; says whether there was one. */
function cancelCall(s: TeamState, agentId: number | null, why: CallCancel): boolean {
  const call = s.calls.get(agentId);
  if (!call || call.signal.aborted) return false;
  call.abort(why);
  return true;
}

/**
 * A person's message sent while the run is going, handled by its strategy (see
 * lib/contracts/interventions.ts). Returns the message's id (its queue id when queued) and trace.
 * @throws ValidationError for a new task addressed to a sub-agent (a new request is the leader's).
 */
export async function postIntervention(s: TeamState, init: InterventionInit): Promise<{ message_id: string; trace_id: string; intervention: InterventionOutcome }> {
  const { content, author, strategy, agentId } = init;
  const target = targetOf(agentId);
  if (strategy === "new_task" && agentId !== null) throw new ValidationError("A new task goes to the Team Leader, not to a sub-agent.", [{ path: "strategy", message: "new_task is for the leader only" }]);
  const base: InterventionMeta = { kind: "message", strategy, author, target };
  const payload = auditPayload("request", { content, author: author.name });

  if (strategy === "queue" || strategy === "new_task") {
    const running = await s.traceOrNew();
    const meta: InterventionMeta = strategy === "new_task" ? { ...base, beside_trace_id: running.trace_id } : { ...base, queue_id: `q_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}` };
    // Both are requests of their own: a new trace, started now.
    const envelope = startTrace(authorParty(author), target, payload, { author, meta: { intervention: meta } });
    const trace = { trace_id: envelope.trace_id, turn_id: envelope.turn_id };
    if (strategy === "new_task") {
      await record(s, envelope, `conversation:${s.convId}`, "delivered");
      const message = personMessage(content, author, trace, meta);
      await toInbox(s, message);
      return { message_id: message.message_id!, trace_id: trace.trace_id, intervention: { strategy } };
    }
    await record(s, envelope, `conversation:${s.convId}`, "queued");
    const queued: QueuedMessage = { id: meta.queue_id!, content, author, agent_id: agentId, created_at: new Date().toISOString(), ...trace };
    await s.store.updateLeaderMessages(s.convId, (f) => ({ ...f, metadata: { ...(f.metadata ?? {}), queued_interventions: [...queuedOf(f.metadata), queued] } }), { touch: false });
    await publishQueue(s);
    return { message_id: queued.id, trace_id: trace.trace_id, intervention: { strategy, queue_id: queued.id } };
  }

  // steer and interrupt: the running request's own words, read at the addressed agent's next call
  // (an interrupt first cancels the call in flight, so that is at once).
  const type = strategy === "interrupt" ? "control" : "request";
  if (agentId !== null) {
    const before = await s.readAgent(agentId);
    const id = await messageAgent(s, agentId, content, senderOf(author), { type, meta: base });
    const cancelled = strategy === "interrupt" && cancelCall(s, agentId, new CallCancel("interrupt", author));
    return { message_id: id, trace_id: before.trace_id ?? (await s.traceOrNew()).trace_id, intervention: { strategy, ...(strategy === "interrupt" ? { cancelled_call: cancelled } : {}) } };
  }
  const running = await s.traceOrNew();
  const envelope = follow(traceCause(running.trace_id, running.turn_id), { type, from: authorParty(author), to: target, payload, producer: "code", author, meta: { intervention: base } });
  const message = personMessage(content, author, { trace_id: envelope.trace_id, turn_id: envelope.turn_id }, base);
  await record(s, envelope, `conversation:${s.convId}`, "delivered");
  await toInbox(s, message);
  const cancelled = strategy === "interrupt" && cancelCall(s, null, new CallCancel("interrupt", author));
  return { message_id: message.message_id!, trace_id: envelope.trace_id, intervention: { strategy, ...(strategy === "interrupt" ? { cancelled_call: cancelled } : {}) } };
}

/** The queued messages, in the order they will be handled. */
export async function queuedMessages(s: TeamState): Promise<QueuedMessage[]> {
  return queuedOf((await s.store.readLeaderMessages(s.convId)).metadata);
}

/**
 * The work is over (the leader found nothing to do and no agent at work): the first queued
 * message is taken up as a request of its own, in the trace its envelope started. Returns whether
 * one was (the leader then runs again for it).
 */
export async function releaseQueued(s: TeamState): Promise<boolean> {
  let next: QueuedMessage | undefined;
  await s.store.updateLeaderMessages(
    s.convId,
    (f) => {
      const queued = queuedOf(f.metadata);
      next = queued[0];
      if (!next) return f;
      const rest = { ...(f.metadata ?? {}), queued_interventions: queued.slice(1) };
      if (next.agent_id !== null) return { ...f, metadata: rest };
      const message = personMessage(next.content, next.author ?? { id: "owner", name: "User" }, next, { kind: "message", strategy: "queue", author: next.author ?? { id: "owner", name: "User" }, target: LEADER_PARTY, queue_id: next.id });
      return { ...f, messages: [...f.messages, message], metadata: rest };
    },
    { touch: false },
  );
  if (!next) return false;
  await publishQueue(s);
  s.lastTrace = { trace_id: next.trace_id, turn_id: next.turn_id };
  if (next.agent_id === null) {
    const file = await s.store.readLeaderMessages(s.convId);
    const message = file.messages.at(-1)!;
    s.publish({ type: "message", agent_id: null, message });
    return true;
  }
  const author = next.author ?? { id: "owner", name: "User" };
  await messageAgent(s, next.agent_id, next.content, senderOf(author)).catch(() => undefined);
  return false;
}

/** A control envelope of a person's intervention in the conversation's current trace. */
async function controlRecord(s: TeamState, author: Author, to: string, payload: Record<string, unknown>, meta: InterventionMeta, resource: string): Promise<void> {
  const envelope = follow(await s.cause(), { type: "control", from: authorParty(author), to, payload, producer: "code", author, meta: { intervention: meta } });
  await record(s, envelope, resource);
}

/** Withdraws a queued message (it is never handled). 404 when it is not in the queue (handled already, or withdrawn). */
export async function withdrawQueued(s: TeamState, queueId: string, author: Author): Promise<QueuedMessage[]> {
  let found: QueuedMessage | undefined;
  await s.store.updateLeaderMessages(
    s.convId,
    (f) => {
      const queued = queuedOf(f.metadata);
      found = queued.find((q) => q.id === queueId);
      return found ? { ...f, metadata: { ...(f.metadata ?? {}), queued_interventions: queued.filter((q) => q.id !== queueId) } } : f;
    },
    { touch: false },
  );
  if (!found) throw new NotFoundError(`No queued message ${queueId} (it may have been handled or withdrawn already).`);
  await controlRecord(s, author, targetOf(found.agent_id), { queue_id: queueId }, { kind: "withdraw_queued", author, target: targetOf(found.agent_id), queue_id: queueId }, `queue:${queueId}`);
  return publishQueue(s);
}

/** Puts the queue in a new order (`order` names every queued id once). 409 when the queue changed meanwhile. */
export async function reorderQueued(s: TeamState, order: string[], author: Author): Promise<QueuedMessage[]> {
  let refused: string | null = null;
  await s.store.updateLeaderMessages(
    s.convId,
    (f) => {
      const result = reorderQueue(queuedOf(f.metadata), order);
      if (!result.ok) {
        refused = result.reason;
        return f;
      }
      return { ...f, metadata: { ...(f.metadata ?? {}), queued_interventions: result.queued } };
    },
    { touch: false },
  );
  if (refused) throw new ConflictError(`The queue cannot be put in that order: ${refused as string}. Reload it and try again.`, { reason: "queue_changed" });
  await controlRecord(s, author, LEADER_PARTY, { order }, { kind: "reorder", author, target: LEADER_PARTY, order }, `conversation:${s.convId}`);
  return publishQueue(s);
}

/**
 * Withdraws the task an agent works on: its model call in flight is cancelled (its partial words
 * kept), a question or approval it waits for is answered "withdrawn", it is told, and it stops
 * (idle; its messages, files and notes stay). The leader is told too, so it does not wait for a
 * report. 409 when the agent has no task in progress.
 */
export async function withdrawTask(s: TeamState, agentId: number, author: Author): Promise<{ task_id: string }> {
  const meta = await s.readAgent(agentId);
  if (meta.status === "terminated") throw new ConflictError(`${meta.display_name} was terminated; it has no task to withdraw.`);
  if (meta.status !== "running" && meta.status !== "waiting" && !(meta.pending_messages ?? []).length) throw new ConflictError(`${meta.display_name} has no task in progress.`, { reason: "no_task" });
  const taskId = lastTaskId(await s.store.readAgentMessages(s.convId, agentId).then((f) => f.messages), meta);
  const by = speakerName(author);
  await s.updateAgent(agentId, (m) => ({ ...m, task_withdrawn: { task_id: taskId, by, at: new Date().toISOString() } }));
  const notice = `The task ${taskId} was withdrawn by ${by}. Stop working on it and do not report on it; what you did so far is kept.`;
  // Told as a message from the person, in the agent's trace (delivered by its next pass).
  await messageAgent(s, agentId, notice, senderOf(author), { type: "control", meta: { kind: "withdraw_task", author, target: agentParty(agentId), task_id: taskId } });
  cancelCall(s, agentId, new CallCancel("withdraw", author));
  if (meta.status === "waiting") {
    // What it waits for is answered, so its conversation stays whole; then its loop tells it and stops it.
    const calls = unansweredToolCalls((await s.store.readAgentMessages(s.convId, agentId)).messages);
    for (const call of calls) await appendToolResult(s, agentId, call, errorResult(`withdrawn: ${by} withdrew the task`));
    await s.agentEvent(agentId, "answer", (m) => ({ ...m, pending_tool_calls: [] }));
    s.notifyAgent(agentId);
  }
  await toLeaderInbox(s, {
    role: "user",
    content: `[Astrion] ${by} withdrew task ${taskId} from ${meta.display_name}; it stopped and will not report on it. Its work so far is kept.`,
    message_id: messageId("msg_auto"),
    metadata: { message_source: "system", visibility: "compact", starts_work: false, agent_id: agentId, trace_id: meta.trace_id },
  });
  return { task_id: taskId };
}

/** The id of the task an agent was last given (`task_NNN`), from its messages or its inbox. */
function lastTaskId(messages: readonly Message[], meta: AgentMeta): string {
  const pending = (meta.pending_messages ?? []).findLast((p) => p.message_type === "task");
  if (pending) return pending.id;
  for (let i = messages.length - 1; i >= 0; i--) {
    const match = /的任务发布\nid: (\S+)\n/.exec(String(messages[i]!.content ?? ""));
    if (match) return match[1]!;
  }
  return "task";
}

/** The agent's loop found its task withdrawn (and delivered the notice): it stops, counted as reported, so nobody waits for it. */
export async function endWithdrawnTask(s: TeamState, agentId: number): Promise<void> {
  const meta = await s.readAgent(agentId);
  const change = (m: AgentMeta): AgentMeta => ({ ...m, task_withdrawn: undefined, reported: true });
  if (meta.status === "running") await s.agentEvent(agentId, "pause", change);
  else await s.publishAgent(await s.updateAgent(agentId, change));
  s.setActivity(agentId, { kind: "withdrawn", target: meta.task_withdrawn?.task_id ?? "" });
}
