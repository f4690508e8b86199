/**
 * Public face of the workspace: tools confined to a conversation's project folder (SPEC §3),
 * the rules for which folders may be a project folder, and Astrion's own folders that no tool may
 * reach. The tools are reached through a {@link Workspace}, which binds them to the server's
 * protected folders and write queues (the composition root makes it). Server only. Client code imports `@/lib/workspace/cap` ({@link capToolOutput}) or
 * `@/lib/contracts/project-folder` (the refusal reasons) directly.
 */
import "server-only";

export { capToolOutput, cutText, MIN_SHAPE_CHARS, truncationMarker } from "./cap";
export { GLOB_LIMITS, globMatcher } from "./glob";
export {
  checkRequestedPath,
  isInsideRoot,
  MAX_PATH_LENGTH,
  projectRealRoot,
  resolveInProject,
  resolveProjectPath,
  toRelative,
  WORKSPACE_REFUSALS,
  WorkspaceError,
  type ResolvedPath,
  type ResolveOptions,
  type WorkspaceRefusal,
} from "./resolve";
export {
  assertProjectFolder,
  checkProjectFolder,
  confirmProjectFolder,
  projectFolderCheckFor,
  type ProjectFolderChanged,
  type ProjectFolderAccepted,
  type ProjectFolderCheck,
  type ProjectFolderRefused,
} from "./project-folder";
export { PROJECT_FOLDER_REFUSALS, type ProjectFolderRefusal } from "@/lib/contracts/project-folder";
export {
  isFilesystemRoot,
  projectFolderMessage,
  projectFolderRefusal,
  SYSTEM_FOLDERS,
  SYSTEM_TREES,
  type ProjectFolderFacts,
  type ProjectFolderVerdict,
  type ProtectedFolder,
} from "./project-folder-rules";
export { describeProtected, protectedAncestor, protectedMatch, ProtectedFolders, type ProtectedInput, type ProtectedRoot } from "./protected";
export {
  SKIPPED_DIRS,
  WORKSPACE_LIMITS,
  WorkspaceToolError,
  type ListOptions,
  type ReadOptions,
  type SearchOptions,
  type WriteOptions,
  type WriteResult,
} from "./tools";
export {
  countLines,
  FileEntrySchema,
  ListResultSchema,
  ReadResultSchema,
  SearchMatchSchema,
  SearchResultSchema,
  shapeListResult,
  shapeReadResult,
  shapeSearchResult,
  type FileEntry,
  type ListResult,
  type ReadResult,
  type SearchMatch,
  type SearchResult,
} from "./results";
export { Workspace, type WorkspaceParts } from "./workspace";
