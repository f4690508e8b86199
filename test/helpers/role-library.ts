/**
 * A role library for tests, given the capability derivation the server gives its own
 * (lib/server/app.ts): lib/governance's vocabulary.
 */
import { deriveCapabilities } from "@/lib/governance/vocabulary";
import { RoleLibrary } from "@/lib/roles/library";
import { FileQueues } from "@/lib/store/atomic";

/** A library over `rolesDir`, writing through `queues` (fresh ones unless a test shares them). */
export function newRoleLibrary(rolesDir: string, queues: FileQueues = new FileQueues()): RoleLibrary {
  return new RoleLibrary(rolesDir, { deriveCapabilities, queues });
}
