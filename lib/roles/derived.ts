/**
 * The derived capability tags of a role list entry (issue 9): a role file that declares no
 * `capabilities` is still routed to, under the vocabulary tags its name and description name.
 * Kept apart from the library's reading code; the library calls it once per parsed file, with the
 * derivation its creator gave it (the server gives lib/governance's `deriveCapabilities`: the
 * vocabulary is governance's, the role library sits below it).
 */
import type { RoleFields } from "./schema";

/** The vocabulary tags a role's name and description name. */
export type DeriveCapabilities = (name: string, description: string) => string[];

// Parsed files stay in the folder cache until the folder changes, so keying on the parsed fields
// object derives each file's tags once per library version rather than on every list.
const memos = new WeakMap<DeriveCapabilities, WeakMap<RoleFields, string[]>>();

/**
 * `derived_capabilities` of a role's list entry, spread into it: absent when the file declares
 * capabilities (nothing is derived then), else the derived tags (possibly none).
 */
export function derivedCapabilitiesOf(fields: RoleFields, derive: DeriveCapabilities): { derived_capabilities?: string[] } {
  if (fields.capabilities?.length) return {};
  let memo = memos.get(derive);
  if (!memo) memos.set(derive, (memo = new WeakMap()));
  let tags = memo.get(fields);
  if (!tags) {
    tags = derive(fields.name, fields.description);
    memo.set(fields, tags);
  }
  return { derived_capabilities: [...tags] };
}
