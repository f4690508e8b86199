import { describe, expect, it } from "vitest";
import { canRead } from "./access";

const entry = (level: "public" | "project" | "restricted", project_path: string | null, grant: string[] = []) => ({ level, project_path, grant });

describe("canRead", () => {
  it("lets everyone read a public entry, with or without a project or role", () => {
    expect(canRead(entry("public", "/p"), { project_path: null, role_id: null })).toBe(true);
    expect(canRead(entry("public", "/p"), { project_path: "/other", role_id: "coder" })).toBe(true);
  });

  it("lets only readers on the same project folder read a project entry", () => {
    expect(canRead(entry("project", "/p"), { project_path: "/p", role_id: null })).toBe(true);
    expect(canRead(entry("project", "/p"), { project_path: "/p2", role_id: "leader" })).toBe(false);
    expect(canRead(entry("project", "/p"), { project_path: "/p/", role_id: "leader" })).toBe(false);
    expect(canRead(entry("project", "/p"), { project_path: null, role_id: "leader" })).toBe(false);
    // an entry on no project is readable by no project reader: null never equals null here
    expect(canRead(entry("project", null), { project_path: null, role_id: "leader" })).toBe(false);
  });

  it("lets only granted roles read a restricted entry, and only on its project", () => {
    const e = entry("restricted", "/p", ["reviewer"]);
    expect(canRead(e, { project_path: "/p", role_id: "reviewer" })).toBe(true);
    expect(canRead(e, { project_path: "/p", role_id: "leader" })).toBe(false);
    expect(canRead(e, { project_path: "/p", role_id: null })).toBe(false);
    expect(canRead(e, { project_path: "/other", role_id: "reviewer" })).toBe(false);
    expect(canRead(entry("restricted", null, ["reviewer"]), { project_path: "/any", role_id: "reviewer" })).toBe(true);
    expect(canRead(entry("restricted", null, []), { project_path: null, role_id: "leader" })).toBe(false);
  });

  it("refuses an unknown level", () => {
    expect(canRead({ level: "secret" as never, project_path: null, grant: ["x"] }, { project_path: null, role_id: "x" })).toBe(false);
  });
});
