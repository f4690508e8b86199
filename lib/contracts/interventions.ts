/**
 * Interventions (issue 32, seed 003 §2.1 "用户干预"): what a person does to a run that is going —
 * a message sent with a strategy (steer, queue, interrupt, new task), a queued message withdrawn
 * or reordered, a task withdrawn from an agent. Each is an envelope on the timeline whose
 * `meta.intervention` is an {@link InterventionMeta}; queued messages wait in the leader's
 * messages.json metadata (`queued_interventions`, an added key). Pure: the browser parses the
 * API's answers with the same schemas.
 */
import { z } from "zod";
import { AuthorSchema } from "./people";

/**
 * How a message sent while a run is going is handled, the default first:
 * - `steer`: delivered to the addressed agent at its next model call;
 * - `queue`: held until the current work is over, then handled as a new request;
 * - `interrupt`: the addressed agent's model call in flight is cancelled (its partial answer kept,
 *   marked cancelled) and the message handled at once;
 * - `new_task`: a new request (a new trace) beside the running one, handled by the leader apart.
 */
export const INTERVENTION_STRATEGIES = ["steer", "queue", "interrupt", "new_task"] as const;
/** One of {@link INTERVENTION_STRATEGIES}. */
export const InterventionStrategySchema = z.enum(INTERVENTION_STRATEGIES);
/** One of {@link INTERVENTION_STRATEGIES}. */
export type InterventionStrategy = z.infer<typeof InterventionStrategySchema>;

/** What a person did: sent a message, withdrew (a queued message or an agent's task), reordered the queue. */
export const InterventionKindSchema = z.enum(["message", "withdraw_queued", "withdraw_task", "reorder"]);
/** One of the intervention kinds. */
export type InterventionKind = z.infer<typeof InterventionKindSchema>;

/** `leader` or `agent:<id>`: whom an intervention is addressed to. */
export const InterventionTargetSchema = z.string().regex(/^(leader|agent:[1-9]\d*)$/, "leader or agent:<id>");

/** `meta.intervention` of an intervention envelope. Loose: later versions may add keys. */
export const InterventionMetaSchema = z.looseObject({
  kind: InterventionKindSchema,
  /** For a message: how it is handled. */
  strategy: InterventionStrategySchema.optional(),
  author: AuthorSchema,
  /** Whom it is addressed to (the leader unless another agent was picked). */
  target: InterventionTargetSchema,
  /** The queued message concerned (queue, withdraw_queued), or the queue's new order (reorder). */
  queue_id: z.string().optional(),
  order: z.array(z.string()).optional(),
  /** interrupt: whether a model call was in flight and was cancelled. */
  cancelled_call: z.boolean().optional(),
  /** withdraw_task: the task withdrawn. */
  task_id: z.string().optional(),
  /** new_task: the trace that was running when the new one started beside it. */
  beside_trace_id: z.string().optional(),
});
/** `meta.intervention` of an intervention envelope. */
export type InterventionMeta = z.infer<typeof InterventionMetaSchema>;

/** A message waiting in the queue until the current work is over. */
export const QueuedMessageSchema = z.object({
  /** `q_<time><random>`: what withdraw and reorder name. */
  id: z.string().regex(/^q_[A-Za-z0-9]{4,40}$/),
  content: z.string(),
  author: AuthorSchema.optional(),
  /** null: the leader; else the sub-agent it is addressed to. */
  agent_id: z.number().int().positive().nullable(),
  /** UTC ISO. */
  created_at: z.string(),
  /** The trace of the queued message's envelope: it becomes the request's trace when released. */
  trace_id: z.string(),
  turn_id: z.string(),
});
/** A queued message. */
export type QueuedMessage = z.infer<typeof QueuedMessageSchema>;

/** `GET /api/conversations/[id]/interventions`: the queued messages, in the order they will be handled. */
export const InterventionsResponseSchema = z.object({ queued: z.array(QueuedMessageSchema), running: z.boolean() });
/** Answer of `GET /api/conversations/[id]/interventions`. */
export type InterventionsResponse = z.infer<typeof InterventionsResponseSchema>;

/** `POST /api/conversations/[id]/interventions`: withdraw a queued message or an agent's task, or reorder the queue. */
export const InterventionActionBodySchema = z.discriminatedUnion("action", [
  z.object({ action: z.literal("withdraw_queued"), queue_id: z.string().min(1).max(60) }),
  z.object({ action: z.literal("withdraw_task"), agent_id: z.number().int().positive() }),
  /** The queue's ids in their new order (exactly the queued ids, each once). */
  z.object({ action: z.literal("reorder"), order: z.array(z.string().min(1).max(60)).min(1).max(100) }),
]);
/** Body of `POST /api/conversations/[id]/interventions`. */
export type InterventionActionBody = z.infer<typeof InterventionActionBodySchema>;

/** What a message to a running team became: its strategy, and its queue id when queued. */
export const InterventionOutcomeSchema = z.object({
  strategy: InterventionStrategySchema,
  queue_id: z.string().optional(),
  cancelled_call: z.boolean().optional(),
});
/** What a message to a running team became. */
export type InterventionOutcome = z.infer<typeof InterventionOutcomeSchema>;

/** The queued messages kept in the leader's messages.json metadata (anything unreadable is dropped). */
export function queuedOf(metadata: Record<string, unknown> | undefined): QueuedMessage[] {
  const raw = metadata?.queued_interventions;
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((q) => {
    const parsed = QueuedMessageSchema.safeParse(q);
    return parsed.success ? [parsed.data] : [];
  });
}

/**
 * The queue in `order` (which must name exactly the queued ids, each once), or a reason why not.
 * Pure, so the rule is unit-tested without a run.
 */
export function reorderQueue(queued: readonly QueuedMessage[], order: readonly string[]): { ok: true; queued: QueuedMessage[] } | { ok: false; reason: string } {
  const byId = new Map(queued.map((q) => [q.id, q]));
  if (new Set(order).size !== order.length) return { ok: false, reason: "an id is named twice" };
  if (order.length !== queued.length || order.some((id) => !byId.has(id))) return { ok: false, reason: "the order must name every queued message once, and nothing else" };
  return { ok: true, queued: order.map((id) => byId.get(id)!) };
}
