/**
 * What one snapshot of the role folder lists (pure): every file as a card, sorted by name, and
 * each readable id-named role's detail by id. The library (./library.ts) keeps the result with
 * the snapshot it came from.
 */
import { derivedCapabilitiesOf, type DeriveCapabilities } from "./derived";
import type { FolderSnapshot } from "./folder-cache";
import { isIdFileName, stemOf, suggestRoleId } from "./file-names";
import { roleIdFromFileName } from "./parse";
import type { RoleAnyDetail, RoleDetail, RoleListEntry } from "./schema";
import { offeredProjectTools, roleToolAccess } from "./tool-mapping";

/** One role file as the folder cache holds it: parsed, or the code of the error that kept it from being read. */
export type CachedRole = RoleAnyDetail | { kind: "unreadable"; code: string };

/** What `RoleLibrary.catalog` gives: the listing, and each readable role's detail by id (what `get(id)` gives). */
export interface RoleCatalog {
  readonly entries: readonly RoleListEntry[];
  readonly details: ReadonlyMap<string, RoleDetail>;
}

/** The catalog of a snapshot; `derive` gives the derived tags of a role without capabilities. */
export function catalogOf(files: FolderSnapshot<CachedRole>, derive: DeriveCapabilities): RoleCatalog {
  return { entries: entriesOf(files, derive), details: detailsOf(files) };
}

function entriesOf(files: FolderSnapshot<CachedRole>, derive: DeriveCapabilities): readonly RoleListEntry[] {
  const taken = takenIds(files.keys());
  const entries = [...files].map(([name, role]): RoleListEntry => {
    const entry: RoleListEntry =
      role.kind === "unreadable" ? { kind: "error", id: roleIdFromFileName(name), file: name, message: `could not read the file (${role.code})` } : toListEntry(role, derive);
    return isIdFileName(name) ? entry : { ...entry, suggested_id: suggestRoleId(name, taken) };
  });
  const sortKey = (e: RoleListEntry) => (e.kind === "role" ? e.name : e.id).toLocaleLowerCase("en");
  return entries.sort((a, b) => sortKey(a).localeCompare(sortKey(b), "en") || a.id.localeCompare(b.id, "en"));
}

/** The roles of a snapshot by id: the files named `<id>.md`, as `get(id)` finds them. */
function detailsOf(files: FolderSnapshot<CachedRole>): ReadonlyMap<string, RoleDetail> {
  const details = new Map<string, RoleDetail>();
  for (const [name, role] of files) {
    if (role.kind !== "role") continue;
    const id = roleIdFromFileName(name);
    if (name === `${id}.md` && isIdFileName(name)) details.set(id, role);
  }
  return details;
}

function toListEntry(detail: RoleAnyDetail, derive: DeriveCapabilities): RoleListEntry {
  if (detail.kind === "error") return { kind: "error", id: detail.id, file: detail.file, message: detail.error.message, ...(detail.error.line !== undefined ? { line: detail.error.line } : {}) };
  const { fields, extra } = detail;
  const access = roleToolAccess(fields);
  return {
    kind: "role",
    id: detail.id,
    file: detail.file,
    name: fields.name,
    description: fields.description,
    ...(fields.model !== undefined ? { model: fields.model } : {}),
    ...(fields.thinking_mode !== undefined ? { thinking_mode: fields.thinking_mode } : {}),
    capabilities: fields.capabilities ?? [],
    ...derivedCapabilitiesOf(fields, derive),
    tools: fields.tools ?? [],
    permissions: fields.permissions ?? [],
    access: { permissions: access.permissions, project_tools: offeredProjectTools(access) },
    ...(fields.mcp_servers?.length ? { mcp_servers: fields.mcp_servers } : {}),
    ...(fields.provides?.length ? { provides: fields.provides.map((a) => ({ name: a.name, description: a.description })) } : {}),
    ...(fields.gateway?.length ? { gateway: fields.gateway } : {}),
    ...(fields.tool_policy !== undefined ? { tool_policy: fields.tool_policy } : {}),
    ...(fields.allowed_commands !== undefined ? { allowed_commands: fields.allowed_commands } : {}),
    ...(typeof extra.color === "string" ? { color: extra.color } : {}),
    warnings: detail.warnings,
  };
}

/** The ids the folder's files take (their stems, misnamed ones included: a rename must not collide on a case-insensitive disk). */
export function takenIds(names: Iterable<string>): string[] {
  return [...names].map(stemOf);
}
