/**
 * The stable reasons a project folder is refused (rules: project-folder-rules.ts). Kept apart
 * with no imports so browser code (the new-conversation form) can use them.
 */

/** Stable reasons a project folder is refused. The API sends them in `details[].reason`; the UI keys its text on them. */
export const PROJECT_FOLDER_REFUSALS = [
  "required",
  "invalid",
  "not_absolute",
  "not_found",
  "not_a_folder",
  "unreadable",
  "filesystem_root",
  "system_folder",
  "inside_data_folder",
  "contains_data_folder",
  "inside_app_folder",
] as const;
/** Why a project folder is refused. */
export type ProjectFolderRefusal = (typeof PROJECT_FOLDER_REFUSALS)[number];

