/**
 * The role library: role files (`agents/<id>.md`, YAML frontmatter + Markdown prompt) read,
 * validated and edited without losing a byte the form did not change.
 */
export * from "./schema";
export { RoleLibrary, assertRoleId, sanitizeRoleId } from "./library";
export { parseRoleFile, computeEtag, roleIdFromFileName, EDITABLE_KEYS, type EditableKey, type RoleEditFields } from "./parse";
export { applyRoleEdit, serializeNewRole, scalarText, type RoleEditChanges } from "./edit";
export { splitFrontmatter, parseFrontmatter, type FrontmatterParts, type FrontmatterProblem } from "./frontmatter";
