/**
 * Assembles what one model call sees from three slices with token budgets (seed 003 §4.2, §5.1):
 *
 * - global (default 500 tokens): project folder, target paths, goal, promoted conclusions (newest
 *   first until the budget) — rendered into the system message under a heading;
 * - private (default 1,000): the agent's own notes (files already checked…), also in the system
 *   message;
 * - scene (default 3,000): the conversation history itself, trimmed by weighted eviction.
 *
 * Only what is sent is trimmed: the saved history (messages.json) is never touched and the input
 * is never mutated. Built incrementally by the history's `ContextWindow`. Pure: no I/O.
 */
import type { Message } from "@/lib/contracts/on-disk";
import type { BuildModelInputOptions, ModelInput } from "./types";
import { contextWindowFor } from "./window";

export { placeholderText, type BuildModelInputOptions, type ModelInput } from "./types";

/**
 * The conversation's goal for the global slice: the first plain person message of the leader's
 * history (not an inter-agent text), trimmed; null when there is none yet.
 */
export function conversationGoal(leaderMessages: readonly Message[]): string | null {
  return contextWindowFor(leaderMessages).goal(leaderMessages);
}

/**
 * Builds the messages for one model call and a report of each slice.
 *
 * Scene eviction, lowest weight first: ordinary flow (assistant text, tool calls with their
 * results) before negotiation (inter-agent texts `来自 …` and older person messages) — and never
 * the newest instruction (the latest plain person message for the leader; the current task
 * message for an agent). Within a weight the newest are kept first; the single most recent item
 * (what the model is answering now) is kept right after the instruction, whatever its weight. An assistant message with
 * tool calls and its tool results are one item: kept or dropped together. A non-instruction item
 * larger than half the scene budget has its long texts cut (with a note saying so) rather than
 * vanishing, so an agent still sees the start of a huge file it just read. Each run of dropped
 * messages is replaced by one placeholder user line, counted in the budget.
 *
 * The scene never exceeds its budget, except when the newest instruction alone is larger: then it
 * is sent whole and the report says `over_budget`.
 *
 * The history's `ContextWindow` (found by `contextWindowFor`) keeps what earlier calls
 * computed, so a call costs the messages appended since the last one plus what fits.
 */
export function buildModelInput(options: BuildModelInputOptions): ModelInput {
  return contextWindowFor(options.messages).build(options);
}
