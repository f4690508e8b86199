/**
 * Public face of long-term memory's pure parts: the formats (entries, candidates, readers, API
 * bodies), the access rule, the dedup/contradiction rules, the redaction pass that runs before
 * any write and the compiler of configured account-id patterns. The I/O side is
 * `lib/memory/service.ts` (server-only), built by the composition root (lib/server/app.ts) and handed to whatever uses it.
 */
export * from "./schema";
export { canRead } from "./access";
export { decideMerge, type MergeDecision } from "./merge";
export { redactField, redactStatement, type RedactedField } from "@/lib/redaction/redact-fields";
export {
  accountIdPatternSchema,
  accountIdPatternsSchema,
  compileAccountPattern,
  compileAccountPatterns,
  type CompiledAccountPattern,
} from "@/lib/redaction/account-patterns";
export {
  CREDENTIAL_KINDS,
  holdsCredential,
  KIND_PRIORITY,
  redact,
  redactionMarker,
  type RedactedSpan,
  type RedactionKind,
  type RedactionResult,
  type RedactOptions,
} from "@/lib/redaction/redact";
