/**
 * The approval policy's keys in a role file (`tool_policy`, `allowed_commands`): read into the
 * fields, validated with a line number, kept by a save of the form, listed on the card.
 */
import { describe, expect, it } from "vitest";
import { applyRoleEdit } from "./edit";
import { parseRoleFile } from "./parse";

const file = (extra: string) => `---\nname: Runner\ndescription: Runs things\npermissions: [read, execute]\n${extra}\n---\nBody.\n`;

describe("tool_policy and allowed_commands in a role file", () => {
  it("load into the fields, not the unknown keys", () => {
    const role = parseRoleFile("runner.md", file('tool_policy: { write_file: allow, "mcp__github__*": ask }\nallowed_commands: ["npm test", "npm run lint*"]'));
    if (role.kind !== "role") throw new Error(role.error.message);
    expect(role.fields.tool_policy).toEqual({ write_file: "allow", "mcp__github__*": "ask" });
    expect(role.fields.allowed_commands).toEqual(["npm test", "npm run lint*"]);
    expect(role.fields.permissions).toEqual(["read", "execute"]);
    expect(role.extra).toEqual({});
  });

  it("survive a save of the form that changes another field, line for line", () => {
    const text = file('tool_policy: { write_file: allow }\nallowed_commands: ["npm test"]');
    const role = parseRoleFile("runner.md", text);
    if (role.kind !== "role") throw new Error(role.error.message);
    // What the form sends: the editable fields, never the policy.
    const fields = { name: role.fields.name, description: "Runs tests", permissions: role.fields.permissions };
    const saved = applyRoleEdit(text, { fields, body: "Body.\n" });
    expect(saved).toBe(text.replace("description: Runs things", "description: Runs tests"));
  });

  it("refuse a bad value with the key and its line", () => {
    const bad = parseRoleFile("runner.md", file("tool_policy: { write_file: sometimes }"));
    expect(bad.kind).toBe("error");
    if (bad.kind === "error") {
      expect(bad.error.message).toMatch(/^tool_policy\[write_file\]: /);
      expect(bad.error.line).toBe(5);
    }
    const notAList = parseRoleFile("runner.md", file("allowed_commands: 3"));
    expect(notAList.kind).toBe("error");
    const badPermission = parseRoleFile("runner.md", file("").replace("[read, execute]", "[read, run]"));
    expect(badPermission.kind === "error" && badPermission.error.message).toMatch(/each must be "read", "write" or "execute"/);
  });
});
