/**
 * Public face of the workspace: tools confined to a conversation's project folder (SPEC §3).
 * Server only. Client code that needs only {@link capToolOutput} imports `@/lib/workspace/cap`.
 */
import "server-only";

export { capToolOutput, truncationMarker } from "./cap";
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
  listFiles,
  readFile,
  searchFiles,
  SKIPPED_DIRS,
  WORKSPACE_LIMITS,
  WorkspaceToolError,
  writeFile,
  type FileEntry,
  type ListOptions,
  type ListResult,
  type ReadOptions,
  type ReadResult,
  type SearchMatch,
  type SearchOptions,
  type SearchResult,
  type WriteOptions,
  type WriteResult,
} from "./tools";
