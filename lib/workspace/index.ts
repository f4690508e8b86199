/**
 * Public face of the workspace: tools confined to a conversation's project folder (SPEC §3),
 * the rules for which folders may be a project folder, and Astrion's own folders that no tool may
 * reach. Server only. Client code imports `@/lib/workspace/cap` ({@link capToolOutput}) or
 * `@/lib/contracts/project-folder` (the refusal reasons) directly.
 */
import "server-only";

export { resolveProjectPath } from "./resolve";
export { confirmProjectFolder, projectFolderCheckFor, type ProjectFolderChanged, type ProjectFolderRefused } from "./project-folder";
export { protectedFolders, protectedMatch, protectFolder } from "./protected";
export { listFiles, readFile, searchFiles, SKIPPED_DIRS, writeFile } from "./tools";
