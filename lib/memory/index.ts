/**
 * Public face of long-term memory's pure parts: the formats (entries, candidates, readers, API
 * bodies), the access rule and the dedup/contradiction rules (the redaction pass that runs before
 * any write is lib/redaction). The I/O side is
 * `lib/memory/service.ts` (server-only), built by the composition root (lib/server/app.ts) and handed to whatever uses it.
 */
export * from "./schema";
export { canRead } from "./access";
export { decideMerge, type MergeDecision } from "./merge";
