/**
 * The role library: role files (`agents/<id>.md`, YAML frontmatter + Markdown prompt) read,
 * validated and edited without losing a byte the form did not change.
 */
export * from "./schema";
export * from "./policy-schema";
export { RoleLibrary, assertRoleId, sanitizeRoleId, type RoleLibraryOptions } from "./library";
export type { DeriveCapabilities } from "./derived";
export type { RoleCatalog } from "./catalog";
export { parseRoleFile, computeEtag, roleIdFromFileName, EDITABLE_KEYS, type EditableKey, type RoleEditFields } from "./parse";
export { applyRoleEdit, serializeNewRole, scalarText, type RoleEditChanges } from "./edit";
export { splitFrontmatter, parseFrontmatter, type FrontmatterParts, type FrontmatterProblem } from "./frontmatter";
export {
  ALWAYS_OFFERED_TOOLS,
  FILE_TOOLS,
  mapToolName,
  READ_FILE_TOOLS,
  roleToolAccess,
  toolWarnings,
  WRITE_FILE_TOOLS,
  type FileToolName,
  type RoleToolAccess,
  type ToolMapping,
  type ToolMappingKind,
} from "./tool-mapping";
export { isIdFileName, ROLE_FILE, roleIdFromText, stemOf, suggestRoleId } from "./file-names";
export { readMatter, type MatterData } from "./matter";
