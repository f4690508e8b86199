/**
 * Who may call what (issue 32): the one table of every API route and method that can change
 * something, with the role it needs, read by the one check in proxy.ts. A read (GET) needs a
 * signed-in person of any role unless the table says more; `public` needs no one signed in.
 *
 * A route file under app/api that exports POST, PUT, PATCH or DELETE without a row here fails
 * `route-roles.test.ts`, which walks the files: a new mutating route cannot ship unchecked. A
 * request whose path no row matches is held to the catch-all's row (`/api/[...path]`, which
 * answers 404). Pure.
 */
import type { PersonRole } from "@/lib/contracts/people";

/** The role a request needs: a person's role, or `public` (no sign-in). */
export type NeededRole = PersonRole | "public";

/**
 * `"<METHOD> <route>"` → the role it needs; `<route>` is the route file's path under app with its
 * `[param]` folders. Reads (GET) are listed only where a viewer may not make them.
 */
export const ROUTE_ROLES: Readonly<Record<string, NeededRole>> = {
  // Signing in and out, and accepting an invitation, come before anyone is signed in.
  "POST /api/auth/signin": "public",
  "POST /api/auth/signout": "public",
  "POST /api/people/join": "public",
  // The people: the owner's alone.
  "GET /api/people": "owner",
  "POST /api/people": "owner",
  "PATCH /api/people/[id]": "owner",
  "DELETE /api/people/[id]": "owner",
  // Conversations: editors start, message, stop and change them; approvers decide.
  "POST /api/conversations": "editor",
  "PATCH /api/conversations/[id]": "editor",
  "DELETE /api/conversations/[id]": "owner",
  "POST /api/conversations/[id]/messages": "editor",
  "POST /api/conversations/[id]/retry": "editor",
  "POST /api/conversations/[id]/stop": "editor",
  // Interventions in a running team (withdraw, reorder): what an editor may do to messages and tasks.
  "POST /api/conversations/[id]/interventions": "editor",
  // Presence's acknowledgment changes nothing stored: a viewer is present too.
  "POST /api/conversations/[id]/presence": "viewer",
  "PUT /api/conversations/[id]/shared-context": "editor",
  "POST /api/conversations/[id]/shared-context/decisions": "approver",
  "POST /api/conversations/[id]/agents/[agentId]/messages": "editor",
  "POST /api/conversations/[id]/agents/[agentId]/answers": "editor",
  "POST /api/conversations/[id]/agents/[agentId]/approvals": "approver",
  "DELETE /api/conversations/[id]/agents/[agentId]": "editor",
  "POST /api/conversations/import": "editor",
  // A zip of conversations one may read anyway: a read sent as POST (its body lists the ids).
  "POST /api/conversations/export": "viewer",
  // Roles and settings: editors.
  "POST /api/roles": "editor",
  "PUT /api/roles/[id]": "editor",
  "DELETE /api/roles/[id]": "editor",
  "POST /api/roles/import": "editor",
  "PUT /api/role-files": "editor",
  "DELETE /api/role-files": "editor",
  "POST /api/role-files/rename": "editor",
  "POST /api/models/entries": "editor",
  "PUT /api/models/entries/[key]": "editor",
  "DELETE /api/models/entries/[key]": "editor",
  "PUT /api/models/default": "editor",
  "POST /api/models/discovery": "editor",
  "POST /api/models/upstream": "editor",
  "POST /api/models/[key]/doctor": "editor",
  "POST /api/mcp/servers": "editor",
  "PUT /api/mcp/servers": "editor",
  "PUT /api/mcp/servers/[name]": "editor",
  "DELETE /api/mcp/servers/[name]": "editor",
  "POST /api/mcp/servers/[name]/test": "editor",
  "POST /api/memory/entries": "editor",
  "PATCH /api/memory/entries/[id]": "editor",
  "DELETE /api/memory/entries/[id]": "editor",
  "PUT /api/memory/redaction": "editor",
  "POST /api/knowledge/rebuild": "editor",
  // Any other path answers 404 whatever its method: nothing to guard.
  "POST /api/[...path]": "viewer",
  "PUT /api/[...path]": "viewer",
  "PATCH /api/[...path]": "viewer",
  "DELETE /api/[...path]": "viewer",
};

/** Methods that change something: each route's must be in {@link ROUTE_ROLES}. */
export const MUTATING_METHODS = ["POST", "PUT", "PATCH", "DELETE"] as const;

interface CompiledRow {
  method: string;
  pattern: RegExp;
  /** Static segments count first, then dynamic ones, so `/api/people/join` beats `/api/people/[id]`. */
  rank: number;
  needed: NeededRole;
}

/** A route path as a regular expression: `[x]` one segment, `[...x]` one or more. */
function compile(route: string): { pattern: RegExp; rank: number } {
  let rank = 0;
  const parts = route
    .split("/")
    .filter(Boolean)
    .map((segment) => {
      if (/^\[\.\.\.[^\]]+\]$/.test(segment)) return "(?:[^/]+/)*[^/]+";
      if (/^\[[^\]]+\]$/.test(segment)) {
        rank += 1;
        return "[^/]+";
      }
      rank += 100;
      return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    });
  return { pattern: new RegExp(`^/${parts.join("/")}/?$`), rank };
}

const ROWS: readonly CompiledRow[] = Object.entries(ROUTE_ROLES)
  .map(([key, needed]) => {
    const [method = "", route = ""] = key.split(" ");
    return { method, ...compile(route), needed };
  })
  .sort((a, b) => b.rank - a.rank);

/**
 * The role a request for `pathname` (already normalized) with `method` needs: its row, else for
 * a read any signed-in person (`viewer`), else the catch-all's row. Paths outside /api are pages:
 * reading them needs any signed-in person.
 */
export function neededRole(method: string, pathname: string): NeededRole {
  const m = method.toUpperCase();
  const row = ROWS.find((r) => r.method === m && r.pattern.test(pathname));
  if (row) return row.needed;
  if (!(MUTATING_METHODS as readonly string[]).includes(m)) return "viewer";
  // A mutating method no row names (a route file would fail the test first): the strictest role.
  return "owner";
}
