/**
 * Public face of long-term memory's pure parts: the formats (entries, candidates, readers, API
 * bodies). The access rule (access.ts), the dedup/contradiction rules (merge.ts) and the I/O side,
 * `lib/memory/service.ts` (server-only, built by the composition root in lib/server/app.ts and
 * handed to whatever uses it), are imported from their own modules; the redaction pass that runs
 * before any write is lib/redaction.
 */
export * from "./schema";
