/**
 * Every route that can change something checks the role on the server (issue 32): the table of
 * route × method → role covers exactly the mutating handlers under app/api (a new POST, PUT, PATCH
 * or DELETE without a row fails here), each row is the role a person of each role is allowed or
 * refused, and the matcher finds a concrete path's row (static segments before dynamic ones).
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { PERSON_ROLES, roleAllows, type PersonRole } from "@/lib/contracts/people";
import { MUTATING_METHODS, neededRole, ROUTE_ROLES } from "./route-roles";

const ROOT = path.resolve(__dirname, "..", "..");

/** `route.ts` files under app/api as route paths (`/api/people/[id]`). */
function routeFiles(): string[] {
  return readdirSync(path.join(ROOT, "app/api"), { recursive: true, encoding: "utf8" })
    .filter((f) => path.basename(f) === "route.ts")
    .map((f) => `/api/${path.dirname(f).split(path.sep).join("/")}`.replace(/\/\.$/, ""))
    .sort();
}

/** The handler methods a route file exports (`export const POST`, `export { x as PUT }`). */
function exportedMethods(route: string): string[] {
  const source = readFileSync(path.join(ROOT, "app", route, "route.ts"), "utf8");
  const direct = [...source.matchAll(/export\s+(?:const|let|async\s+function|function)\s+(GET|POST|PUT|PATCH|DELETE)\b/g)].map((m) => m[1]!);
  const renamed = [...source.matchAll(/export\s*\{([^}]*)\}/g)].flatMap((m) => [...m[1]!.matchAll(/\bas\s+(GET|POST|PUT|PATCH|DELETE)\b/g)].map((n) => n[1]!));
  return [...direct, ...renamed];
}

/** A concrete path of a route: every `[param]` filled in. */
function concrete(route: string): string {
  return route.replace(/\[\.\.\.[^\]]+\]/g, "some/unknown/path").replace(/\[[^\]]+\]/g, "x1");
}

const mutating = routeFiles().flatMap((route) => exportedMethods(route).filter((m) => (MUTATING_METHODS as readonly string[]).includes(m)).map((method) => `${method} ${route}`));

describe("the role table and app/api", () => {
  it("has a row for every mutating handler, and no row for a handler that does not exist", () => {
    expect(mutating.length).toBeGreaterThan(40);
    const rows = Object.keys(ROUTE_ROLES);
    const missing = mutating.filter((key) => !rows.includes(key));
    expect(missing, "mutating routes without a role: add them to lib/security/route-roles.ts").toEqual([]);
    const everyHandler = routeFiles().flatMap((route) => exportedMethods(route).map((method) => `${method} ${route}`));
    expect(rows.filter((key) => !everyHandler.includes(key))).toEqual([]);
  });

  it("finds each row from a concrete path of its route", () => {
    for (const [key, needed] of Object.entries(ROUTE_ROLES)) {
      const [method, route] = key.split(" ") as [string, string];
      expect(neededRole(method, concrete(route)), key).toBe(needed);
    }
    // A static segment wins over a parameter in the same place.
    expect(neededRole("POST", "/api/people/join")).toBe("public");
    expect(neededRole("PATCH", "/api/people/p_1")).toBe("owner");
    expect(neededRole("POST", "/api/conversations/import")).toBe("editor");
    expect(neededRole("POST", "/api/conversations/export")).toBe("viewer");
  });

  it("lets any signed-in person read, and holds an unknown mutating path to the catch-all", () => {
    expect(neededRole("GET", "/api/conversations/conv_20260101_000000_001/timeline")).toBe("viewer");
    expect(neededRole("GET", "/conversations/conv_20260101_000000_001")).toBe("viewer");
    expect(neededRole("GET", "/api/people")).toBe("owner");
    expect(neededRole("POST", "/api/nothing/here")).toBe("viewer");
  });
});

/** Who may do what, per role: what the issue says each role is for. */
const EXPECTED: Record<string, PersonRole | "public"> = {
  "POST /api/conversations": "editor",
  "POST /api/conversations/[id]/messages": "editor",
  "POST /api/conversations/[id]/stop": "editor",
  "POST /api/conversations/[id]/interventions": "editor",
  // Presence's acknowledgment stores nothing: a viewer is present too (issue 32).
  "POST /api/conversations/[id]/presence": "viewer",
  "POST /api/conversations/[id]/agents/[agentId]/messages": "editor",
  "POST /api/conversations/[id]/agents/[agentId]/approvals": "approver",
  "POST /api/conversations/[id]/shared-context/decisions": "approver",
  "PUT /api/roles/[id]": "editor",
  "PUT /api/models/default": "editor",
  "POST /api/people": "owner",
  "PATCH /api/people/[id]": "owner",
  "DELETE /api/people/[id]": "owner",
  "POST /api/auth/signin": "public",
  "POST /api/people/join": "public",
};

describe("route × role → allowed", () => {
  const cases = Object.entries(EXPECTED).flatMap(([key, needed]) => PERSON_ROLES.map((role) => [key, role, needed] as const));

  it.each(cases)("%s as %s", (key, role, needed) => {
    const [method, route] = key.split(" ") as [string, string];
    const allowed = roleAllows(role, neededRole(method, concrete(route)));
    const rank = (r: PersonRole) => PERSON_ROLES.indexOf(r);
    expect(allowed).toBe(needed === "public" || rank(role) <= rank(needed));
  });

  it("never lets a viewer change anything", () => {
    for (const key of mutating) {
      const [method, route] = key.split(" ") as [string, string];
      const needed = neededRole(method, concrete(route));
      // Reads sent as POST, and presence's acknowledgment, which changes nothing stored.
      if (needed === "public" || route === "/api/[...path]" || key === "POST /api/conversations/export" || key === "POST /api/conversations/[id]/presence") continue;
      expect(roleAllows("viewer", needed), key).toBe(false);
    }
  });

  it("lets only an approver or the owner approve and decide", () => {
    for (const key of ["POST /api/conversations/[id]/agents/[agentId]/approvals", "POST /api/conversations/[id]/shared-context/decisions"]) {
      const [method, route] = key.split(" ") as [string, string];
      const needed = neededRole(method, concrete(route));
      expect(PERSON_ROLES.filter((r) => roleAllows(r, needed))).toEqual(["owner", "approver"]);
    }
  });
});
