/**
 * Public face of the context slices (seed 003 §4.2, §5.1): what each model call sees, assembled
 * from a global, a private and a scene slice with token budgets, and a report of what went in.
 * Built incrementally per history (`ContextWindow`): token counts, tool-call pairing and the
 * promoted conclusions are computed once per message. Pure (no I/O); the report schema is also
 * importable alone from `@/lib/context/report` by client code.
 */
export { buildModelInput, conversationGoal } from "./slices";
export type { RecalledMemory } from "./types";
export { collectPromotions, deriveWorkNotes, NOTE_HINT, PROMOTION_HINT } from "./promotions";
export { countTokens } from "./tokens";
export * from "./report";
