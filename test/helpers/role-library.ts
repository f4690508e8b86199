/**
 * A role library for tests, given the capability derivation the server gives its own
 * (lib/server/app.ts): lib/governance's vocabulary.
 */
import { deriveCapabilities } from "@/lib/governance/vocabulary";
import { RoleLibrary } from "@/lib/roles/library";

export function newRoleLibrary(rolesDir: string): RoleLibrary {
  return new RoleLibrary(rolesDir, { deriveCapabilities });
}
