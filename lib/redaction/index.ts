/**
 * Public face of the secret and personal-data detectors and the redaction pass built on them
 * (e-mail, phone numbers, API keys and tokens, JWTs, private keys, labelled secrets, IP
 * addresses, ID and bank cards, configured account ids). Pure; imports only zod and
 * lib/contracts. Long-term memory masks what it stores with it (lib/memory), the command
 * environment withholds credentials by value with {@link holdsCredential} (lib/commands/env.ts).
 */
export { compileAccountPattern, compileAccountPatterns } from "./account-patterns";
export { holdsCredential, KIND_PRIORITY, redact, redactionMarker, type RedactionKind } from "./redact";
