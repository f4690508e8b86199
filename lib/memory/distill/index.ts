/**
 * Public face of the memory distiller (seed 003 §5): a conversation's conclusions read from the
 * leader's history, turned into memory candidates either by rules (the offline model) or by a
 * model's JSON answer (prompt, zod answer schema, reading). Pure; the runtime runs it
 * (lib/runtime/memory-distill.ts).
 */
export { collectConclusions, type CollectOptions } from "./conclusions";
export { decideLevel, isSensitive, LEADER_READER, projectOf, type LevelDecision } from "./level";
export { DistillAnswerSchema, distillAnswerJsonSchema, distillMessages, distillSystemPrompt, conclusionsText, parseDistillAnswer, retryMessages, type DistillAnswer, type ParsedDistillAnswer } from "./model";
export { confidenceOf, distillByRules, kindOf } from "./rules";
export { subjectOf } from "./text";
export * from "./types";
