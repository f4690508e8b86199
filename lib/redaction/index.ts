/**
 * Public face of the secret and personal-data detectors and the redaction pass built on them
 * (e-mail, phone numbers, API keys and tokens, JWTs, private keys, labelled secrets, IP
 * addresses, ID and bank cards, configured account ids). Pure; imports only zod and
 * lib/contracts. Long-term memory masks what it stores with it (lib/memory), the command
 * environment withholds credentials by value with {@link holdsCredential} (lib/commands/env.ts).
 */
export {
  accountIdPatternSchema,
  accountIdPatternsSchema,
  compileAccountPattern,
  compileAccountPatterns,
  type CompiledAccountPattern,
} from "./account-patterns";
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
} from "./redact";
export { redactField, redactStatement, type FieldRedaction, type RedactedField } from "./redact-fields";
