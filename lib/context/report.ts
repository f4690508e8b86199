/**
 * What went into one model call, slice by slice (seed 003 §4.2): the schema of the report
 * {@link buildModelInput} returns and the runtime saves on the assistant message it produced
 * (`metadata.context`). Pure and free of server-only imports so the UI parses the same schema.
 *
 * The report is kept small on purpose — it is saved once per model call: no full texts, previews
 * of at most {@link PREVIEW_CHARS} characters, and dropped history messages as index ranges
 * rather than one entry each.
 */
import { z } from "zod";

/** Longest preview kept in a report. */
export const PREVIEW_CHARS = 80;

/** The three slices a model call is assembled from. */
export const SliceNameSchema = z.enum(["global", "private", "scene"]);
export type SliceName = z.infer<typeof SliceNameSchema>;

/**
 * How much a scene item is worth keeping: `flow` (ordinary assistant text, tool calls and
 * results) goes first, `negotiation` (inter-agent texts `来自 …` and older person messages)
 * next, `instruction` (the newest person instruction or the agent's current task) never.
 * `system` marks a stray system message inside the history (treated like flow).
 */
export const SceneWeightSchema = z.enum(["flow", "negotiation", "instruction", "system"]);
export type SceneWeight = z.infer<typeof SceneWeightSchema>;

/** The citation of a recalled memory line: which entry, at what level, from which conversation. */
export const MemoryCitationSchema = z.object({
  entry_id: z.string(),
  kind: z.string(),
  level: z.string(),
  /** The conversation the entry was distilled from; null when a person added it. */
  conversation_id: z.string().nullable(),
  title: z.string().optional(),
});
export type MemoryCitation = z.infer<typeof MemoryCitationSchema>;

/** One line of the global or private slice. */
export const SliceLineSchema = z.object({
  /** Short label: `project`, `goal`, `targets`, `memory`, `conclusion`, `note`. */
  label: z.string(),
  preview: z.string().max(PREVIEW_CHARS),
  tokens: z.number().int().nonnegative(),
  included: z.boolean(),
  /** True when only the start of the text fitted. */
  truncated: z.boolean().optional(),
  /** On a `memory` line: the recalled entry and its source (never more of its text than the preview). */
  memory: MemoryCitationSchema.optional(),
});
export type SliceLine = z.infer<typeof SliceLineSchema>;

/** Budget bookkeeping shared by the three slices. */
const SliceBaseSchema = z.object({
  budget: z.number().int().nonnegative(),
  /** Tokens this slice put into the call. */
  used: z.number().int().nonnegative(),
  /** Only ever true for the scene, when the newest instruction alone is larger than the budget. */
  over_budget: z.boolean(),
});

/** The global (facts + promoted conclusions) or the private (agent notes) slice. */
export const LineSliceReportSchema = SliceBaseSchema.extend({
  lines: z.array(SliceLineSchema),
});
export type LineSliceReport = z.infer<typeof LineSliceReportSchema>;

/** One history message that was sent (whole or truncated). */
export const SceneItemSchema = z.object({
  /** Index of the message in the saved history (messages.json), stable because history only grows. */
  index: z.number().int().nonnegative(),
  /** The saved message's `message_id`, when it has one. */
  id: z.string().optional(),
  role: z.enum(["system", "user", "assistant", "tool"]),
  weight: SceneWeightSchema,
  tokens: z.number().int().nonnegative(),
  preview: z.string().max(PREVIEW_CHARS),
  /** True when a long text (usually a tool result) was cut to fit. */
  truncated: z.boolean().optional(),
});
export type SceneItem = z.infer<typeof SceneItemSchema>;

/** The scene slice: the conversation history as sent. */
export const SceneSliceReportSchema = SliceBaseSchema.extend({
  /** Messages sent, in the order sent. */
  items: z.array(SceneItemSchema),
  /** History indices left out, as inclusive `[from, to]` ranges. */
  dropped_ranges: z.array(z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()])),
  dropped_count: z.number().int().nonnegative(),
  /** Placeholder lines inserted where messages were left out (their tokens count in `used`). */
  placeholders: z.number().int().nonnegative(),
  /** History index of the newest instruction (never dropped), or null when there is none. */
  instruction_index: z.number().int().nonnegative().nullable(),
});
export type SceneSliceReport = z.infer<typeof SceneSliceReportSchema>;

/** What went into one model call. Saved as `metadata.context` on the assistant message it produced. */
export const SliceReportSchema = z.object({
  kind: z.enum(["leader", "agent"]),
  /** The tokenizer the counts come from. */
  tokenizer: z.string(),
  /** Tokens of the base system prompt (outside the three slices). */
  system_tokens: z.number().int().nonnegative(),
  /** Estimated prompt tokens of the whole call (system message + scene, with per-message overhead). */
  total_tokens: z.number().int().nonnegative(),
  global: LineSliceReportSchema,
  private: LineSliceReportSchema,
  scene: SceneSliceReportSchema,
});
export type SliceReport = z.infer<typeof SliceReportSchema>;

/**
 * One line of `conversations/<id>/context.jsonl`: the whole report of the model call that wrote
 * the message `message_id` (of the leader when `agent_id` is null).
 */
export const ContextLineSchema = z.object({ message_id: z.string(), agent_id: z.number().nullable(), report: SliceReportSchema });
export type ContextLine = z.infer<typeof ContextLineSchema>;

/** A one-line preview of at most {@link PREVIEW_CHARS} characters. */
export function preview(text: string | null | undefined): string {
  const whole = text ?? "";
  // only the start is shown: flatten a bounded slice of a huge text
  const long = whole.length > PREVIEW_CHARS * 8;
  const flat = (long ? whole.slice(0, PREVIEW_CHARS * 8) : whole).replace(/\s+/g, " ").trim();
  if (flat.length <= PREVIEW_CHARS && !long) return flat;
  let cut = flat.slice(0, PREVIEW_CHARS - 1);
  // never leave half of a surrogate pair (emoji, rare CJK) at the end
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut}…`;
}

const SliceTotalsSchema = z.object({ used: z.number(), budget: z.number(), over_budget: z.boolean() });

/**
 * What an assistant message keeps of its call's report (`metadata.context`): totals only, so
 * messages.json does not grow with the square of the conversation. The whole report is kept in
 * `conversations/<id>/context.jsonl` and served by `GET …/context/<message_id>`.
 */
export const ContextSummarySchema = z.object({
  tokenizer: z.string(),
  total_tokens: z.number(),
  global: SliceTotalsSchema,
  private: SliceTotalsSchema,
  scene: SliceTotalsSchema.extend({ sent: z.number(), dropped_count: z.number() }),
});
export type ContextSummary = z.infer<typeof ContextSummarySchema>;

/** The totals of a report, as saved on its assistant message. */
export function summarizeReport(report: SliceReport): ContextSummary {
  const totals = (s: { used: number; budget: number; over_budget: boolean }) => ({ used: s.used, budget: s.budget, over_budget: s.over_budget });
  return {
    tokenizer: report.tokenizer,
    total_tokens: report.total_tokens,
    global: totals(report.global),
    private: totals(report.private),
    scene: { ...totals(report.scene), sent: report.scene.items.length, dropped_count: report.scene.dropped_count },
  };
}
