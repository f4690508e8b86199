/**
 * The roles an agent of a run may be made of, worked out from the role folder's catalog (every
 * readable, id-named role file) once per catalog snapshot by {@link TeamState.roleChoices}. Pure.
 */
import type { RoleCatalog, RoleDetail } from "@/lib/roles";
import type { RoleChoice } from "@/lib/team-tools";

/** The roles an agent may be made of, and their details by id. */
export interface RoleChoices {
  readonly choices: readonly RoleChoice[];
  readonly byId: ReadonlyMap<string, RoleDetail>;
}

/** The choices of `catalog`. */
export function roleChoicesOf(catalog: RoleCatalog): RoleChoices {
  const choices: RoleChoice[] = [];
  for (const entry of catalog.entries) {
    // A file whose name is no valid id cannot be addressed by id until it is renamed.
    if (entry.kind !== "role" || entry.suggested_id !== undefined || !catalog.details.has(entry.id)) continue;
    const derived = entry.capabilities.length === 0 && entry.derived_capabilities !== undefined;
    choices.push({
      id: entry.id,
      name: entry.name,
      description: entry.description,
      capabilities: derived ? entry.derived_capabilities! : entry.capabilities,
      ...(derived ? { capabilities_source: "derived" as const } : {}),
    });
  }
  return { choices, byId: catalog.details };
}
