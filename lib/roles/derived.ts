/**
 * The derived capability tags of a role list entry (issue 9): a role file that declares no
 * `capabilities` is still routed to, under the vocabulary tags its name and description name.
 * Kept apart from the library's reading code; the library calls it once per parsed file.
 */
import { deriveCapabilities } from "@/lib/governance";
import type { RoleFields } from "./schema";

// Parsed files stay in the folder cache until the folder changes, so keying on the parsed fields
// object derives each file's tags once per library version rather than on every list.
const memo = new WeakMap<RoleFields, string[]>();

/**
 * `derived_capabilities` of a role's list entry, spread into it: absent when the file declares
 * capabilities (nothing is derived then), else the derived tags (possibly none).
 */
export function derivedCapabilitiesOf(fields: RoleFields): { derived_capabilities?: string[] } {
  if (fields.capabilities?.length) return {};
  let tags = memo.get(fields);
  if (!tags) {
    tags = deriveCapabilities(fields.name, fields.description);
    memo.set(fields, tags);
  }
  return { derived_capabilities: [...tags] };
}
