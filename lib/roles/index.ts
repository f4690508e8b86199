/**
 * The role library: role files (`agents/<id>.md`, YAML frontmatter + Markdown prompt) read,
 * validated and edited without losing a byte the form did not change.
 */
export * from "./schema";
export * from "./policy-schema";
export { RoleLibrary } from "./library";
export type { RoleCatalog } from "./catalog";
export { parseRoleFile } from "./parse";
