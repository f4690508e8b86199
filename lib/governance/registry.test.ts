import { describe, expect, it } from "vitest";
import { buildRegistry, classifierModelKey, restrictRegistry, rolesForTag, rolesInState } from "./registry";
import { roleEntry, SHIPPED_ROLES } from "@/test/helpers/role-entries";

describe("buildRegistry", () => {
  it("indexes roles by lowercased tag and skips files that failed to load", () => {
    const reg = buildRegistry([
      ...SHIPPED_ROLES,
      { kind: "error", id: "broken", file: "broken.md", message: "bad YAML" },
      roleEntry("shouty", ["Code-Review", "code-review", "GO"]),
    ]);
    expect(reg.byId.has("broken")).toBe(false);
    expect(rolesForTag(reg, "testing").map((r) => r.id)).toEqual(["code-reviewer", "test-engineer"]);
    expect(rolesForTag(reg, "CODE-REVIEW").map((r) => r.id)).toEqual(["code-reviewer", "shouty"]);
    expect(reg.byId.get("shouty")?.capabilities).toEqual(["code-review", "go"]);
    expect(rolesForTag(reg, "nothing")).toEqual([]);
  });

  it("registers a role without capabilities under tags derived from its name and description", () => {
    const plain = { ...roleEntry("sql-pro", []), name: "SQL Pro", description: "Tunes slow PostgreSQL queries" };
    const reg = buildRegistry([...SHIPPED_ROLES, plain, { ...roleEntry("listed", []), derived_capabilities: ["Payment"] }]);
    expect(reg.byId.get("sql-pro")).toMatchObject({ capabilities: ["sql", "database", "performance"], capabilities_source: "derived" });
    expect(reg.byId.get("code-reviewer")?.capabilities_source).toBe("declared");
    expect(rolesForTag(reg, "database").map((r) => r.id)).toEqual(["full-stack-engineer", "sql-pro"]);
    // The list entry's derived tags are used as the library computed them.
    expect(reg.byId.get("listed")).toMatchObject({ capabilities: ["payment"], capabilities_source: "derived" });
  });

  it("computes IDLE, BUSY and DEGRADED from the facts the runtime passes", () => {
    const roles = [...SHIPPED_ROLES, roleEntry("local-checker", ["lint"], ["read"], "local-mini"), roleEntry("inheriting", ["x"], ["read"], "inherit")];
    const reg = buildRegistry(roles, {
      agents: [
        { role_id: "code-reviewer", status: "running" },
        { role_id: "code-reviewer", status: "waiting" },
        { role_id: "researcher", status: "completed" },
        { role_id: "test-engineer", status: "running", degraded: true },
      ],
      degradedModels: ["local-mini"],
    });
    expect(reg.byId.get("code-reviewer")).toMatchObject({ state: "BUSY", active_agents: 2 });
    expect(reg.byId.get("researcher")).toMatchObject({ state: "IDLE", active_agents: 0 });
    expect(reg.byId.get("test-engineer")?.state).toBe("DEGRADED");
    expect(reg.byId.get("local-checker")?.state).toBe("DEGRADED");
    expect(reg.byId.get("inheriting")?.model).toBeUndefined();
    expect(rolesInState(reg, "BUSY").map((r) => r.id)).toEqual(["code-reviewer"]);
    expect(reg.byState.DEGRADED).toEqual(["test-engineer", "local-checker"]);
  });

  it("marks roles that run on the conversation's degraded model as DEGRADED", () => {
    const reg = buildRegistry(SHIPPED_ROLES, { defaultModelKey: "qwen", degradedModels: ["qwen"] });
    expect(reg.byState.DEGRADED).toHaveLength(SHIPPED_ROLES.length);
    expect(buildRegistry(SHIPPED_ROLES, { defaultModelKey: "other", degradedModels: ["qwen"] }).byState.DEGRADED).toEqual([]);
  });

  it("restricts to an allow list, keeping the indexes consistent", () => {
    const reg = restrictRegistry(buildRegistry(SHIPPED_ROLES), ["researcher", "test-engineer"]);
    expect(reg.roles.map((r) => r.id)).toEqual(["researcher", "test-engineer"]);
    expect(rolesForTag(reg, "testing").map((r) => r.id)).toEqual(["test-engineer"]);
    expect(reg.byTag.has("code-review")).toBe(false);
    expect(reg.byState.IDLE).toEqual(["researcher", "test-engineer"]);
  });
});

describe("classifierModelKey", () => {
  it("names the classifier only when it is a registered model", () => {
    expect(classifierModelKey({ classifier: "mini", models: { mini: {} } })).toBe("mini");
    expect(classifierModelKey({ classifier: "gone", models: { mini: {} } })).toBeNull();
    expect(classifierModelKey({ models: { mini: {} } })).toBeNull();
    expect(classifierModelKey({ classifier: "toString", models: {} })).toBeNull();
  });
});
