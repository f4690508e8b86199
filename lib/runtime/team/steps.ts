import "server-only";
/**
 * One step's persistence: a model call streamed live and its answer saved, its usage counted,
 * its context report kept, a failed call saved as interrupted, and tool results appended. Every
 * save goes through the store (one durable write path: the conversation's step log) before the
 * event that shows it is published.
 */
import { addUsage, ModelCallError, normalizeTokenStatistics, tokenTotalsOf, usageAgentKey, type ChatMessage, type ChatModel, type ChatResult, type ToolCall, type ToolSpec } from "@/lib/models";
import { agentParty, LEADER_PARTY, SYSTEM_PARTY } from "@/lib/protocol";
import type { SliceReport } from "@/lib/context";
import type { ConversationMetadata, LeaderMessagesFile, Message } from "@/lib/store";
import { capToolOutput } from "@/lib/tools";
import type { TeamState } from "./state";
import { isCallCancel, messageId, type CallCancel } from "./types";

/** The thinking level of the leader's calls in a conversation's run mode. */
export function thinkingLevel(conv: ConversationMetadata): "off" | "on" | "deep" {
  return conv.run_mode === "deep" ? "deep" : conv.run_mode === "thinking" ? "on" : "off";
}

type DeltaKind = "content" | "reasoning" | "tool_call";

/**
 * Streamed text goes to viewers in pieces of one event-loop turn: what the model sent in one
 * turn (often many tokens) is one event, not one per token. A change of kind sends what was
 * gathered first, so the order is kept; `flush` sends the rest before the saved message.
 */
class DeltaBatch {
  #kind: DeltaKind | null = null;
  #text = "";
  #scheduled = false;
  constructor(private readonly send: (kind: DeltaKind, text: string) => void) {}

  add(kind: DeltaKind, text: string): void {
    if (this.#kind !== kind) this.flush();
    this.#kind = kind;
    this.#text += text;
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => {
        this.#scheduled = false;
        this.flush();
      });
    }
  }

  flush(): void {
    if (this.#kind && this.#text) this.send(this.#kind, this.#text);
    this.#kind = null;
    this.#text = "";
  }
}

/** Calls a model, streaming deltas live; a failure comes back as a {@link ModelCallError}. */
export async function callModel(
  s: TeamState,
  model: ChatModel,
  agentId: number | null,
  messages: ChatMessage[],
  tools: ToolSpec[],
  thinking: "off" | "on" | "deep",
  signal: AbortSignal,
): Promise<{ ok: true; result: ChatResult } | { ok: false; error: ModelCallError; cancelled?: CallCancel }> {
  const t = await s.traceOrNew();
  const deltas = new DeltaBatch((kind, text) => s.publish({ type: "delta", agent_id: agentId, kind, text }));
  // This call's own controller, so a person's interrupt (./interventions.ts) cancels this call
  // alone, down to its HTTP request, without stopping the loop or the conversation.
  const own = new AbortController();
  s.calls.set(agentId, own);
  const cancelledBy = (): CallCancel | undefined => (own.signal.aborted && isCallCancel(own.signal.reason) ? own.signal.reason : undefined);
  try {
    const result = await model.stream({ messages, tools, thinking, signal: AbortSignal.any([signal, own.signal]), meta: { conversation_id: s.convId, agent_id: agentId, trace_id: t.trace_id } }, (d) => {
      if (d.type === "content" || d.type === "reasoning") deltas.add(d.type, d.text);
      else if (d.type === "tool_call") deltas.add("tool_call", d.name ? `${d.name}(` : (d.arguments_delta ?? ""));
    });
    return { ok: true, result };
  } catch (error) {
    const cancelled = cancelledBy();
    if (error instanceof ModelCallError) return { ok: false, error, ...(cancelled ? { cancelled } : {}) };
    return { ok: false, error: new ModelCallError("bad_response", (error as Error).message ?? String(error), { modelKey: model.key }) };
  } finally {
    if (s.calls.get(agentId) === own) s.calls.delete(agentId);
    deltas.flush();
  }
}

/**
 * Saves a model's answer in one step: the message, the call's usage in the conversation's token
 * statistics (the leader's messages.json, with the conversation's totals copied into its
 * metadata.json for the list) and its context report, all issued together, so they share one
 * durable write of the step log (and the report's file is written beside it). Then the message
 * and the new statistics are published.
 *
 * The call is counted under the model that answered it (a fallback answering for `modelKey` is
 * its own model) and priced at that model's prices as they were for this call.
 */
export async function saveAnswer(s: TeamState, agentId: number | null, message: Message, modelKey: string, result: ChatResult, report: SliceReport): Promise<void> {
  const answered = result.answered_by ?? { key: modelKey, prices: null };
  const call = { agentKey: usageAgentKey(agentId), modelKey: answered.key, usage: result.usage, prices: answered.prices };
  const usage = (f: LeaderMessagesFile): LeaderMessagesFile => ({ ...f, token_statistics: addUsage(f.token_statistics, call) as Record<string, unknown> });
  const totals = { metadata: (f: LeaderMessagesFile) => ({ token_totals: tokenTotalsOf(normalizeTokenStatistics(f.token_statistics)) }) };
  const context = s.storage.appendContextReport(s.convId, JSON.stringify({ message_id: message.message_id, agent_id: agentId, at: new Date().toISOString(), report }));
  // The leader's message and its usage are one change of its file; an agent's are two files.
  const saved =
    agentId === null
      ? s.store.updateLeaderMessages(s.convId, (f) => usage({ ...f, messages: [...f.messages, message] }), { touch: !result.tool_calls.length, ...totals })
      : Promise.all([s.store.updateAgentMessages(s.convId, agentId, (f) => ({ ...f, messages: [...f.messages, message] })), s.store.updateLeaderMessages(s.convId, usage, { touch: false, ...totals })]);
  await Promise.all([context, saved]);
  const leader = await s.store.readLeaderMessages(s.convId);
  s.publish({ type: "usage", token_statistics: leader.token_statistics ?? {} });
  s.publish({ type: "message", agent_id: agentId, message });
  if (result.recovered_tool_calls) {
    // The model wrote its call as JSON text; the audit timeline says it was read as a call.
    await s.emitNow({
      type: "event",
      from: SYSTEM_PARTY,
      to: agentId === null ? LEADER_PARTY : agentParty(agentId),
      payload: { message_id: message.message_id, tools: result.tool_calls.map((c) => c.function.name) },
      action: "tool_call_recovered",
      resource: `model:${modelKey}`,
      status: "ok",
    });
  }
}

/** The saved form of a model's answer. */
export function assistantMessage(result: ChatResult, traceId: string, extra: Record<string, unknown> = {}): Message {
  const message: Message = {
    role: "assistant",
    content: result.content || (result.tool_calls.length ? null : ""),
    message_id: messageId("msg_assistant"),
    metadata: { message_source: "leader", visibility: "chat", starts_work: false, trace_id: traceId, ...extra },
  };
  if (result.reasoning) (message as Record<string, unknown>).reasoning_content = result.reasoning;
  if (result.recovered_tool_calls) message.metadata = { ...message.metadata, tool_calls_recovered: true };
  if (result.notes?.length) message.metadata = { ...message.metadata, private_notes: [...result.notes] };
  if (result.tool_calls.length) message.tool_calls = result.tool_calls.map((c) => ({ id: c.id, type: "function" as const, function: { name: c.function.name, arguments: c.function.arguments } }));
  return message;
}

/** Appends a message to the leader's (null) or an agent's messages.json. */
async function appendMessage(s: TeamState, agentId: number | null, message: Message, touch = false): Promise<void> {
  if (agentId === null) await s.store.updateLeaderMessages(s.convId, (f) => ({ ...f, messages: [...f.messages, message] }), { touch });
  else await s.store.updateAgentMessages(s.convId, agentId, (f) => ({ ...f, messages: [...f.messages, message] }));
}

/**
 * What a failure of the leader's (null) or an agent's work is tied to: the message it was working
 * on (the last one that asked it something: the person's message, a report, a task) and the last
 * message saved, so the page marks the one and knows the failure is over once anything follows
 * the other.
 */
export async function failureRefs(s: TeamState, agentId: number | null): Promise<{ message_id?: string; after_message_id?: string }> {
  const { messages } = agentId === null ? await s.store.readLeaderMessages(s.convId) : await s.store.readAgentMessages(s.convId, agentId);
  const input = messages.findLast((m) => m.role === "user" && m.message_id)?.message_id;
  const last = messages.at(-1)?.message_id;
  return { ...(input ? { message_id: input } : {}), ...(last ? { after_message_id: last } : {}) };
}

/**
 * Saves the partial answer of a failed call as an interrupted message and shows a banner. A call
 * a person cancelled (`cancelled`: an interrupt or a withdrawn task) is marked so in the message's
 * metadata (`cancelled`, `cancelled_by`, `cancelled_for`), its words kept; it is no failure.
 */
export async function saveInterrupted(s: TeamState, agentId: number | null, error: ModelCallError, traceId: string, modelKey: string, cancelled?: CallCancel): Promise<void> {
  const partial = error.partial;
  const marks = cancelled ? { cancelled: true, cancelled_for: cancelled.kind, ...(cancelled.author ? { cancelled_by: cancelled.author } : {}) } : {};
  if (partial && (partial.content || partial.reasoning)) {
    const message = assistantMessage({ ...partial, tool_calls: [] }, traceId, { interrupted: true, interrupted_reason: error.reason, ...marks });
    if (agentId !== null) message.metadata = { ...message.metadata, message_source: "sub_agent", agent_id: agentId };
    await appendMessage(s, agentId, message);
    s.publish({ type: "message", agent_id: agentId, message });
  }
  if (error.reason === "aborted") return;
  const refs = { trace_id: traceId, ...(await failureRefs(s, agentId)) };
  if (error.serverFlag) {
    // The server must be started differently: the notice says how, in the person's language.
    const who = agentId === null ? "notice.msg.leaderServerFlag" : "notice.msg.agentServerFlag";
    s.notice("error", "model_server_flag", who, { agent: agentId ?? "", model: modelKey, server: error.serverFlag.server, flag: error.serverFlag.flag }, agentId, refs);
  } else if (agentId === null) s.notice("error", "model_error", "notice.msg.leaderModelFailed", { model: modelKey, reason: error.reason }, null, { ...refs, detail: error.message });
  else s.notice("error", "model_error", "notice.msg.agentModelFailed", { agent: agentId, model: modelKey, reason: error.reason }, agentId, { ...refs, detail: error.message });
  await s.emitNow({ type: "event", from: SYSTEM_PARTY, to: agentId === null ? LEADER_PARTY : agentParty(agentId), payload: { reason: error.reason }, action: "model_error", resource: `model:${modelKey}`, status: "failed" });
}

/**
 * Appends a tool result to the leader's or an agent's messages (saved at once, with the agent's
 * metadata: seed §8.1), capped at `ASTRION_TOOL_OUTPUT_MAX` characters: JSON is shrunk by its
 * structure and stays valid, other text is cut with a marker (lib/tools/shape).
 */
export async function appendToolResult(s: TeamState, agentId: number | null, call: ToolCall, content: string, extra: Record<string, unknown> = {}): Promise<void> {
  const capped = capToolOutput(content, s.limits.toolOutputMax);
  const trace = await s.traceOrNew();
  const message: Message = { role: "tool", tool_call_id: call.id, content: capped, message_id: messageId("msg_tool"), metadata: { trace_id: trace.trace_id, ...extra } };
  // Saved together with the call's audit records (their timeline appends), in one tick.
  await Promise.all([appendMessage(s, agentId, message), s.settleAudits()]);
  if (agentId !== null) {
    // seed §8.1: metadata too is saved after every tool call (an unchanged file is not rewritten).
    await s.publishAgent(await s.readAgent(agentId));
  }
  s.publish({ type: "message", agent_id: agentId, message });
}
