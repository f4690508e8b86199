/**
 * Pure helpers of the per-call context report (seed 003 §4.2): reading `metadata.context` off a
 * saved assistant message and turning budgets and dropped ranges into what the UI shows.
 * Imports only `@/lib/context/report`: the `@/lib/context` index loads the tokenizer tables.
 */
import { ContextSummarySchema, type ContextSummary } from "@/lib/context/report";

/** The context totals saved on an assistant message (`metadata.context`), or null when absent or unreadable. */
export function contextSummaryOf(metadata: unknown): ContextSummary | null {
  if (!metadata || typeof metadata !== "object" || !("context" in metadata)) return null;
  const parsed = ContextSummarySchema.safeParse((metadata as { context: unknown }).context);
  return parsed.success ? parsed.data : null;
}

/** How full a slice is: the bar's width (0–100) and whether it went over its budget. */
export interface SliceUsage {
  percent: number;
  over: boolean;
}

/**
 * The bar of a slice. A zero budget with nothing used is an empty bar; anything used over a
 * zero budget is a full red one. `overBudget` is the report's own flag (the newest instruction
 * alone exceeded the scene budget).
 */
export function sliceUsage(used: number, budget: number, overBudget = false): SliceUsage {
  const over = overBudget || used > budget;
  if (budget <= 0) return { percent: used > 0 ? 100 : 0, over };
  return { percent: Math.min(100, Math.round((used / budget) * 100)), over };
}

/** Dropped history ranges as people read them: `#3–#10, #12` (indices of messages.json). */
export function formatRanges(ranges: ReadonlyArray<readonly [number, number]>): string {
  return ranges.map(([from, to]) => (from === to ? `#${from}` : `#${from}–#${to}`)).join(", ");
}
