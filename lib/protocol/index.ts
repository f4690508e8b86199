/**
 * Public face of the protocol: the envelope, inter-agent message text, and the audit timeline
 * (SPEC §3). Server only, because the timeline touches the disk; browser code imports the pure
 * modules directly: `@/lib/contracts/envelope`, `@/lib/contracts/messages`,
 * `@/lib/contracts/timeline-record`.
 */
import "server-only";

export * from "@/lib/contracts/envelope";
export * from "@/lib/contracts/messages";
export * from "@/lib/contracts/timeline-record";
export { appendTimeline, readTimeline, timelineFile, timelineLine, TIMELINE_FILE_NAME } from "./timeline";
export { JsonLineFiles } from "@/lib/store/jsonl";
export { endsWithResultOf, needsModelCall, unansweredToolCalls } from "./tool-calls";
