import { describe, expect, it } from "vitest";
import { applyRoleEdit, serializeNewRole } from "./edit";
import { parseRoleFile } from "./parse";
import { RoleFieldsSchema } from "./schema";

function role(text: string) {
  const detail = parseRoleFile("demo.md", text);
  if (detail.kind !== "role") throw new Error(detail.error.message);
  return detail;
}

describe("the mcp_servers role field", () => {
  it("loads from a YAML list or a comma string", () => {
    expect(role("---\nname: a\ndescription: b\nmcp_servers: [github, postgres]\n---\n").fields.mcp_servers).toEqual(["github", "postgres"]);
    expect(role("---\nname: a\ndescription: b\nmcp_servers: github, postgres\n---\n").fields.mcp_servers).toEqual(["github", "postgres"]);
    expect(role("---\nname: a\ndescription: b\n---\n").fields.mcp_servers).toBeUndefined();
  });

  it("refuses a name that cannot be part of mcp__<server>__<tool>", () => {
    expect(RoleFieldsSchema.shape.mcp_servers.safeParse(["git__hub"]).success).toBe(false);
    expect(RoleFieldsSchema.shape.mcp_servers.safeParse(["git hub"]).success).toBe(false);
    expect(RoleFieldsSchema.shape.mcp_servers.safeParse(["my_server-2"]).success).toBe(true);
    const broken = parseRoleFile("demo.md", "---\nname: a\ndescription: b\nmcp_servers: [git__hub]\n---\n");
    expect(broken.kind).toBe("error");
  });

  it("is written by a new role and changed by an edit in its own style, nothing else touched", () => {
    expect(serializeNewRole({ id: "a", name: "a", description: "b", mcp_servers: ["github"] }, "body")).toMatch(/\nmcp_servers: \[github\]\n/);
    const text = "---\nname: a\ndescription: b\nmcp_servers: github, fs   # servers\ncolor: red\n---\nbody\n";
    const detail = role(text);
    const { id: _id, ...fields } = detail.fields;
    void _id;
    expect(applyRoleEdit(text, { fields, body: detail.body })).toBe(text);
    expect(applyRoleEdit(text, { fields: { ...fields, mcp_servers: ["github", "postgres"] }, body: detail.body })).toBe(
      "---\nname: a\ndescription: b\nmcp_servers: github, postgres   # servers\ncolor: red\n---\nbody\n",
    );
  });
});
