import "server-only";
/**
 * The team runtime's public face: the {@link Engine} (one per process, built by the composition
 * root) and the run of one conversation.
 */
export { Engine } from "./engine";
export { RunCommands, type RunCommandOptions } from "./run-commands";
;
export { DistillState } from "./team/distilled-progress";
export { CONTEXT_FILE_NAME } from "./team-run";
export { limitsFromEnv } from "./team/config";
export * from "@/lib/contracts/events";
