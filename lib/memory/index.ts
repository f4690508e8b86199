/**
 * Public face of long-term memory's pure parts. Today: the redaction pass that runs before any
 * write, and the compiler of configured account-id patterns.
 */
export {
  accountIdPatternSchema,
  accountIdPatternsSchema,
  compileAccountPattern,
  compileAccountPatterns,
  type CompiledAccountPattern,
} from "./account-patterns";
export {
  KIND_PRIORITY,
  redact,
  redactionMarker,
  type RedactedSpan,
  type RedactionKind,
  type RedactionResult,
  type RedactOptions,
} from "./redact";
