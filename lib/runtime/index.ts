import "server-only";
/**
 * The team runtime's public face: the {@link Engine} (one per process, built by the composition
 * root) and the run of one conversation.
 */
export { Engine, type EngineParts } from "./engine";
export type { EngineDeps } from "./team/deps";
export { DistillState } from "./team/distilled-progress";
export { TeamRun, LEADER_DISPLAY_NAME, CONTEXT_FILE_NAME } from "./team-run";
export { limitsFromEnv, type RuntimeLimits } from "./team/config";
export * from "@/lib/contracts/events";
