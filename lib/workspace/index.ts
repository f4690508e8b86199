/**
 * Public face of the workspace: tools confined to a conversation's project folder (SPEC §3),
 * the rules for which folders may be a project folder, and Astrion's own folders that no tool may
 * reach. The tools are reached through a {@link Workspace}, which binds them to the server's
 * protected folders and write queues (the composition root makes it). Server only. Client code imports `@/lib/workspace/cap` ({@link capToolOutput}) or
 * `@/lib/contracts/project-folder` (the refusal reasons) directly.
 */
import "server-only";

export { type ProjectFolderChanged, type ProjectFolderRefused } from "./project-folder";
export { protectedMatch, ProtectedFolders, type ProtectedRoot } from "./protected";
export { SKIPPED_DIRS } from "./tools";
export { Workspace } from "./workspace";
