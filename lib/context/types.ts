/**
 * The options and results of a model call's context (seed 003 §4.2, §5.1): the three slices'
 * token budgets, the facts every call states, what {@link buildModelInput} takes and returns.
 * Pure: types, defaults and the placeholder line.
 */
import type { ChatMessage } from "@/lib/models/types";
import type { Message } from "@/lib/contracts/on-disk";
import type { SliceReport } from "./report";

/** Token budgets of the three slices. */
export interface ContextBudgets {
  global: number;
  scene: number;
  private: number;
}

/** Defaults from the seed: global ≤ 500, scene within 2,000–4,000, private 1,000. */
const DEFAULT_BUDGETS: Readonly<ContextBudgets> = { global: 500, scene: 3000, private: 1000 };

/** The conversation facts every call states (global slice). */
export interface ContextFacts {
  project_path: string;
  goal: string;
  target_paths?: string[];
}

/**
 * One memory entry recalled for this request (long-term memory, seed 003 §5), shown in the
 * global slice with a citation to the conversation it came from.
 */
export interface RecalledMemory {
  entry_id: string;
  kind: string;
  level: string;
  statement: string;
  /** The conversation it was distilled from (null: added by a person) and its title when known. */
  source: { conversation_id: string | null; title?: string };
}

/** Input of {@link buildModelInput}. */
export interface BuildModelInputOptions {
  /** Whose call: decides which message is "the newest instruction". */
  kind: "leader" | "agent";
  /**
   * The base system prompt. When `messages` starts with system messages (an agent's saved
   * prompt), those come first and this is appended to them; pass "" to add nothing.
   */
  system: string;
  /**
   * The whole saved history (messages.json), oldest first. Not mutated. Append-only between
   * calls: messages already seen are never replaced, reordered or changed (see `ContextWindow`).
   */
  messages: readonly Message[];
  facts: ContextFacts;
  /** Conclusions marked persistent, oldest first (see `collectPromotions`); the newest are kept. */
  promoted?: readonly string[];
  /** The agent's own notes, oldest first (see `deriveWorkNotes`); the newest are kept. */
  privateNotes?: readonly string[];
  /**
   * Long-term memory recalled for the current request, most relevant first (see
   * `lib/runtime/team/memory-recall.ts`): placed in the global slice after the goal, newest
   * relevance first until its share of the budget.
   */
  memory?: readonly RecalledMemory[];
  budgets?: Partial<ContextBudgets>;
}

/** What to send, and what went into it. */
export interface ModelInput {
  /** `[system, ...scene]`, valid for the OpenAI chat API. */
  messages: ChatMessage[];
  report: SliceReport;
}

/** The defaults with every budget that `budgets` sets (an `undefined` one keeps its default). */
export function resolveBudgets(budgets: Partial<ContextBudgets> | undefined): ContextBudgets {
  const set = Object.fromEntries(Object.entries(budgets ?? {}).filter(([, v]) => v !== undefined)) as Partial<ContextBudgets>;
  return { ...DEFAULT_BUDGETS, ...set };
}

/** The line that stands in for `n` messages left out of the scene. */
export function placeholderText(n: number): string {
  return `[${n} earlier message${n === 1 ? "" : "s"} omitted here to fit the context budget; the full history is saved]`;
}

const PLACEHOLDER = /^\[\d+ earlier messages? omitted here to fit the context budget; the full history is saved\]$/;

/** True for a {@link placeholderText} line (a model reading its scene must not take it for someone's message). */
export function isPlaceholderText(text: string): boolean {
  return PLACEHOLDER.test(text.trim());
}
