/**
 * The capability registry (seed 003 §2.2): every loaded role indexed by its capability tags and
 * by its lifecycle state. It is built from data only — the role list and facts the runtime
 * passes — so a new role file becomes a routing candidate without any code change. Pure.
 */
import type { RoleListEntry } from "@/lib/roles/schema";
import { deriveCapabilities } from "./vocabulary";
import { auxModelKey } from "@/lib/models/schema";

/** Lifecycle of a role in the registry (seed 003 §2.2). */
export type RoleLifecycle = "IDLE" | "BUSY" | "DEGRADED";

/** Agent statuses in which an agent of a role is still occupied with work. */
const BUSY_STATUSES: ReadonlySet<string> = new Set(["running", "waiting"]);

/** A role as the registry holds it. Tags are lowercased and deduplicated. */
export interface RegisteredRole {
  id: string;
  name: string;
  description: string;
  /** The tags routing uses: the declared ones, or the derived ones when the file declares none. */
  capabilities: string[];
  /** Where `capabilities` came from: the file (`declared`) or its name and description (`derived`). */
  capabilities_source: "declared" | "derived";
  permissions: string[];
  /** The role's own model key, when its file names one (not `inherit`). */
  model?: string;
  state: RoleLifecycle;
  /** Agents of this role currently running or waiting (across the facts given). */
  active_agents: number;
}

/** What the runtime knows about the roles' work right now; all optional. */
export interface RegistryFacts {
  /** The agents of the conversation (or of all conversations): their role and seed status. */
  agents?: ReadonlyArray<{ role_id: string; status: string; model_key?: string | null; degraded?: boolean }>;
  /** Model keys currently degraded (circuit open, repeated failures). */
  degradedModels?: Iterable<string>;
  /** Role ids marked degraded explicitly. */
  degradedRoles?: Iterable<string>;
  /** The model a role without its own `model` runs on (the conversation's model). */
  defaultModelKey?: string;
}

/** The registry: roles by id, by tag and by state. */
export interface CapabilityRegistry {
  roles: RegisteredRole[];
  byId: ReadonlyMap<string, RegisteredRole>;
  /** Lowercased tag → ids of the roles declaring it, in role order. */
  byTag: ReadonlyMap<string, string[]>;
  byState: Readonly<Record<RoleLifecycle, string[]>>;
}

/** Normalizes a capability tag for matching: trimmed, lowercased. */
export function normalizeTag(tag: string): string {
  return tag.trim().toLowerCase();
}

/**
 * Builds the registry from the role library's list. Entries that failed to load (`kind: "error"`)
 * are not registered: a role that cannot be read cannot be created either. A role that declares
 * no `capabilities` is registered under the tags derived from its name and description (the list
 * entry's `derived_capabilities`, computed here when the entry lacks them).
 *
 * State: DEGRADED when the role (or the model it runs on, or any of its live agents) is
 * degraded; else BUSY when an agent of the role is running or waiting; else IDLE. Degraded wins
 * because a busy but failing role should not be offered as if it were healthy.
 */
export function buildRegistry(entries: readonly RoleListEntry[], facts: RegistryFacts = {}): CapabilityRegistry {
  const degradedModels = new Set(facts.degradedModels ?? []);
  const degradedRoles = new Set(facts.degradedRoles ?? []);
  const active = new Map<string, number>();
  for (const a of facts.agents ?? []) {
    if (a.degraded && BUSY_STATUSES.has(a.status)) degradedRoles.add(a.role_id);
    if (a.model_key && degradedModels.has(a.model_key) && BUSY_STATUSES.has(a.status)) degradedRoles.add(a.role_id);
    if (BUSY_STATUSES.has(a.status)) active.set(a.role_id, (active.get(a.role_id) ?? 0) + 1);
  }

  const roles: RegisteredRole[] = [];
  const seen = new Set<string>();
  for (const entry of entries) {
    if (entry.kind !== "role" || seen.has(entry.id)) continue;
    seen.add(entry.id);
    const model = entry.model && entry.model !== "inherit" ? entry.model : undefined;
    const runsOn = model ?? facts.defaultModelKey;
    const count = active.get(entry.id) ?? 0;
    const state: RoleLifecycle =
      degradedRoles.has(entry.id) || (runsOn !== undefined && degradedModels.has(runsOn)) ? "DEGRADED" : count > 0 ? "BUSY" : "IDLE";
    const declared = entry.capabilities.map(normalizeTag).filter(Boolean);
    roles.push({
      id: entry.id,
      name: entry.name,
      description: entry.description,
      capabilities: [...new Set(declared.length ? declared : (entry.derived_capabilities ?? deriveCapabilities(entry.name, entry.description)).map(normalizeTag).filter(Boolean))],
      capabilities_source: declared.length ? "declared" : "derived",
      permissions: [...entry.permissions],
      ...(model ? { model } : {}),
      state,
      active_agents: count,
    });
  }

  const byTag = new Map<string, string[]>();
  const byState: Record<RoleLifecycle, string[]> = { IDLE: [], BUSY: [], DEGRADED: [] };
  for (const r of roles) {
    byState[r.state].push(r.id);
    for (const tag of r.capabilities) {
      const list = byTag.get(tag);
      if (list) list.push(r.id);
      else byTag.set(tag, [r.id]);
    }
  }
  return { roles, byId: new Map(roles.map((r) => [r.id, r])), byTag, byState };
}

/** The roles declaring `tag` (case-insensitive). */
export function rolesForTag(registry: CapabilityRegistry, tag: string): RegisteredRole[] {
  return (registry.byTag.get(normalizeTag(tag)) ?? []).map((id) => registry.byId.get(id)!).filter(Boolean);
}

/** The roles in `state`. */
export function rolesInState(registry: CapabilityRegistry, state: RoleLifecycle): RegisteredRole[] {
  return registry.byState[state].map((id) => registry.byId.get(id)!).filter(Boolean);
}

/** A registry narrowed to some role ids (e.g. the ones this conversation is authorized for). */
export function restrictRegistry(registry: CapabilityRegistry, ids: Iterable<string>): CapabilityRegistry {
  const keep = new Set(ids);
  const roles = registry.roles.filter((r) => keep.has(r.id));
  const byTag = new Map<string, string[]>();
  for (const [tag, list] of registry.byTag) {
    const kept = list.filter((id) => keep.has(id));
    if (kept.length) byTag.set(tag, kept);
  }
  const byState: Record<RoleLifecycle, string[]> = {
    IDLE: registry.byState.IDLE.filter((id) => keep.has(id)),
    BUSY: registry.byState.BUSY.filter((id) => keep.has(id)),
    DEGRADED: registry.byState.DEGRADED.filter((id) => keep.has(id)),
  };
  return { roles, byId: new Map(roles.map((r) => [r.id, r])), byTag, byState };
}

/**
 * The key of the small intent-classifier model, when `models.json` names one as a top-level
 * `classifier` key that is a registered model; null otherwise (deterministic matching is used).
 */
export function classifierModelKey(modelsFile: { classifier?: unknown; models: Record<string, unknown> }): string | null {
  return auxModelKey(modelsFile, "classifier");
}
