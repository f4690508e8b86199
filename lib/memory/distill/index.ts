/**
 * Public face of the memory distiller (seed 003 §5): a conversation's conclusions read from the
 * leader's history, turned into memory candidates either by rules (the offline model) or by a
 * model's JSON answer (prompt, zod answer schema, reading). Pure; the runtime runs it
 * (lib/runtime/memory-distill.ts).
 */
export { collectConclusions } from "./conclusions";
export { LEADER_READER } from "./level";
export { distillAnswerJsonSchema, distillMessages, parseDistillAnswer, retryMessages } from "./model";
export { distillByRules } from "./rules";
export { subjectOf } from "./text";
export * from "./types";
