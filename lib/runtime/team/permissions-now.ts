import "server-only";
/**
 * What a resumed agent may do: the permissions it was given, narrowed to what its role allows now
 * (a role edited meanwhile never widens them). Split from lib/runtime/team-run.ts's resume.
 */
import { roleToolAccess } from "@/lib/roles/tool-mapping";
import type { TeamState } from "./state";
import type { AgentMeta } from "./types";

/** The agent's permissions now, or null when its role is gone (it then gets no token). */
export async function permissionsNow(s: TeamState, a: AgentMeta): Promise<string[] | null> {
  const role = await s.deps.roles.get(a.role_id).catch(() => null);
  if (role?.kind !== "role") return null;
  const now: readonly string[] = roleToolAccess(role.fields).permissions;
  return (a.permissions ?? ["read"]).filter((p) => now.includes(p));
}
