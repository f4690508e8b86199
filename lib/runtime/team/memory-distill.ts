import "server-only";
/**
 * The memory distiller in the runtime (seed 003 §5): when a conversation reaches a final summary
 * (its phase is back to IDLE after a person's request) and when it is archived, its conclusions
 * become long-term memory entries — in the background, never on the path of a model call.
 *
 * - Which model: the `memory` key of models.json, else the conversation's model. The offline
 *   model distils by rules (lib/memory/distill); any other gets the conclusions in a prompt and
 *   must answer JSON matching the zod answer schema: an invalid answer is asked again once, then
 *   the rules distil instead (the model's error on the timeline event and in the log).
 * - Once per message: `memory/distilled.jsonl` remembers, per conversation, how far its leader's
 *   history was distilled (the count and the last message's id, so a history that does not
 *   continue it is read again whole; ./distilled-progress.ts); a run reads only what came after.
 *   The service's `upsert` merges duplicates besides, so a history read again adds nothing twice.
 * - One run at a time per conversation (runs queue); a failure is logged and told, never thrown
 *   into the conversation.
 * - Each run that wrote something puts a `memory_write` event on the timeline (entry ids, kinds
 *   and levels, never their text) (no notice: it would keep an idle run in memory).
 */
import { collectConclusions, distillByRules, distillMessages, parseDistillAnswer, retryMessages, type Conclusion, type DistillContext, type DistilledCandidate } from "@/lib/memory/distill";
import { accountPatternsFor } from "@/lib/memory/redaction-config";
import { auxModelKey, loadRegistry, resolveModel } from "@/lib/models";
import { SYSTEM_PARTY } from "@/lib/protocol";
import type { Message } from "@/lib/store";
import type { EmitInit, TeamState } from "./state";
import { faultReason } from "./tool-failure";
import { memoryOf } from "./memory-port";
import type { AgentMeta } from "./types";

/** What started a distillation. */
export type DistillTrigger = "summary" | "archive";

/** Where a run's events and notices go: the conversation's run state, or one made for an archived conversation. */
export type DistillSink = Pick<TeamState, "deps" | "convId" | "store" | "storage"> & {
  /** Resolves once what the store holds is durable (a run's state computes ahead of its log): memory is distilled only from that. */
  durable?(): Promise<void>;
  emitNow(init: EmitInit): Promise<unknown>;
  notice: TeamState["notice"];
};

/**
 * Schedules a distillation of the conversation (not awaited by the caller: it runs in the
 * background, after any run already queued for it). Resolves when this one is done.
 */
export function scheduleDistill(sink: DistillSink, trigger: DistillTrigger): Promise<void> {
  const q = sink.deps.distill.queues;
  const before = q.get(sink.convId) ?? Promise.resolve();
  const run = before
    .then(() => distillConversation(sink, trigger))
    .catch((error: unknown) => {
      console.error(`[astrion] ${sink.convId} memory distillation failed:`, error);
      sink.notice("error", "memory_failed", "notice.msg.memoryFailed", { reason: faultReason(error) }, null, { detail: (error as Error).message ?? String(error) });
    });
  q.set(sink.convId, run);
  void run.finally(async () => {
    if (q.get(sink.convId) === run) q.delete(sink.convId);
    // The run may have let the conversation go while this one worked: what its event opened in the
    // storage (the file store's timeline file) is let go again, so nothing stays held for a
    // conversation nobody uses.
    await sink.storage.letGo?.(sink.convId);
  });
  return run;
}

/** Whether the history ends with the leader's final answer (text, no tool call) after a person's request. */
function endsWithSummary(messages: readonly Message[]): boolean {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === "assistant" && m.metadata?.message_source !== "sub_agent") return !m.tool_calls?.length && !!m.content?.trim();
    if (m.role === "user" && m.metadata?.message_source === "user") return false;
  }
  return false;
}

/** How the candidates were made: by a model (its key), by rules, or by rules after the model failed. */
type Distilled = { candidates: DistilledCandidate[]; by: string; error?: string };

async function byModel(sink: DistillSink, key: string, conclusions: Conclusion[], ctx: DistillContext, title: string): Promise<Distilled> {
  const model = await sink.deps.models.modelFor(sink.deps.root, key);
  const messages = distillMessages(conclusions, title);
  let error = "";
  let next = messages;
  for (let attempt = 0; attempt < 2; attempt++) {
    let answer = "";
    try {
      answer = (await model.stream({ messages: next, thinking: "off", meta: { conversation_id: sink.convId } })).content ?? "";
    } catch (e) {
      error = (e as Error).message;
      break;
    }
    const parsed = parseDistillAnswer(answer, conclusions, ctx);
    if (parsed.ok) return { candidates: parsed.candidates, by: `model:${key}` };
    error = parsed.error;
    next = retryMessages(messages, answer, parsed.error);
  }
  // Said on the timeline (the memory_write event) and in the server log, not as a notice: a notice
  // would keep the idle conversation's run in memory until someone looks.
  console.warn(`[astrion] ${sink.convId}: the memory model "${key}" gave no usable answer (${error.slice(0, 200)}); distilled by rules instead`);
  return { candidates: distillByRules(conclusions, ctx), by: "rules_fallback", error: error.slice(0, 200) };
}

/** One distillation of a conversation (see the module comment); exported for tests. */
async function distillConversation(sink: DistillSink, trigger: DistillTrigger): Promise<void> {
  const memory = await memoryOf(sink.deps);
  if (!memory) return;
  const convId = sink.convId;
  const root = sink.deps.root;
  await sink.durable?.();
  // Background work goes after what that durable point releases: the run's outbox hands the
  // summary's events to the viewers' streams on the next turn of the event loop, and reading and
  // sifting the history here first would hold them back.
  await new Promise<void>((resolve) => setTimeout(resolve, 0));
  const messages = (await sink.store.readLeaderMessages(convId)).messages;
  if (trigger === "summary" && !endsWithSummary(messages)) return;
  const progressLog = sink.deps.distill.progress;
  const seen = await progressLog.get(convId);
  // The history read last time must still be this one's start; otherwise it is read again whole.
  const continues = seen && seen.through <= messages.length && (seen.through === 0 || (messages[seen.through - 1]?.message_id ?? null) === seen.last_message_id);
  const from = continues ? seen.through : 0;
  const last = messages[messages.length - 1];
  const progress = () => progressLog.record(convId, { through: messages.length, last_message_id: last?.message_id ?? null, at: new Date().toISOString() });
  // Nothing new: the run is still recorded (when it ran), and reads nothing.
  if (from >= messages.length) return void (await progress());
  const conv = await sink.store.get(convId);
  const { agents } = await sink.store.listAgents(convId);
  const pendingQuestions = new Set((agents as AgentMeta[]).flatMap((a) => (a.pending_tool_calls ?? []).filter((p) => p.tool_name === "ask_master").map((p) => p.question_id)));
  const conclusions = collectConclusions(messages, { from, agents: agents.map((a) => ({ agent_id: a.agent_id, role_id: a.role_id, display_name: a.display_name })), pendingQuestions });
  // The configured account-id patterns make a statement sensitive (restricted) as they make the service mask it.
  const accountPatterns = await accountPatternsFor(root).catch(() => undefined);
  const ctx: DistillContext = { conversation_id: convId, project_path: conv.project_path || null, accountPatterns };
  let distilled: Distilled = { candidates: [], by: "rules" };
  if (conclusions.length) {
    const registry = await loadRegistry(root);
    const key = auxModelKey(registry, "memory") ?? conv.model_key;
    const entry = resolveModel(registry, key);
    distilled = entry.provider === "offline" ? { candidates: distillByRules(conclusions, ctx), by: "rules" } : await byModel(sink, key, conclusions, ctx, conv.title);
  }
  const written = distilled.candidates.length ? await memory.upsert(distilled.candidates) : { added: [], updated: [] };
  await progress();
  if (!written.added.length && !written.updated.length && distilled.error === undefined) return;
  const ids = (list: ReadonlyArray<{ id: string; kind: string; level: string }>) => list.map((e) => ({ id: e.id, kind: e.kind, level: e.level }));
  await sink.emitNow({
    type: "event",
    from: SYSTEM_PARTY,
    to: SYSTEM_PARTY,
    payload: { trigger, distilled_by: distilled.by, ...(distilled.error !== undefined ? { model_error: distilled.error } : {}), conclusions: conclusions.length, messages_read: messages.length - from, added: ids(written.added), updated: ids(written.updated) },
    action: "memory_write",
    resource: "memory",
  });
  // The timeline says it; a notice would keep the idle conversation's run in memory until viewed.
}
