import { describe, expect, it } from "vitest";
import type { RoleFields } from "@/lib/roles/schema";
import { EMPTY_FORM, fieldsFromForm, formFromFields, splitTags, validateFields } from "./role-form-state";

const loaded: RoleFields = {
  id: "team-lead",
  name: "team-lead",
  description: "Orchestrates.",
  tools: ["Read", "Glob", "Grep"],
};

describe("role form state", () => {
  it("sends back untouched lists exactly as loaded and adds no empty optional fields", () => {
    const initial = { form: formFromFields(loaded, "body"), fields: loaded };
    const edited = { ...initial.form, description: "New description." };
    const { fields } = fieldsFromForm(edited, initial, "bad");
    expect(fields).toEqual({ ...loaded, description: "New description." });
    expect(fields).not.toHaveProperty("permissions");
    expect(fields).not.toHaveProperty("capabilities");
  });

  it("reads and writes the execute permission, and leaves the approval policy to the file", () => {
    const withPolicy: RoleFields = { ...loaded, permissions: ["read", "execute"], tool_policy: { run_command: "ask" }, allowed_commands: ["npm test"] };
    const form = formFromFields(withPolicy, "body");
    expect(form).toMatchObject({ read: true, write: false, execute: true });
    const { fields } = fieldsFromForm({ ...form, execute: false, write: true }, { form, fields: withPolicy }, "bad");
    expect(fields.permissions).toEqual(["read", "write"]);
    // The policy is edited in the file: the form never sends it, so a save leaves its lines alone.
    expect(fields).not.toHaveProperty("tool_policy");
    expect(fields).not.toHaveProperty("allowed_commands");
  });

  it("splits capability tags on commas, spaces and |", () => {
    expect(splitTags("code-review, python|security  go")).toEqual(["code-review", "python", "security", "go"]);
  });

  it("reports the server schema's messages per field", () => {
    const { fields } = fieldsFromForm({ ...EMPTY_FORM, id: "has space", name: "X" }, undefined, "bad");
    const result = validateFields(fields);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.errors.id).toMatch(/letters, digits/);
      expect(result.errors.description).toBe("a description is required");
    }
  });

  it("flags a max concurrency that is not a number", () => {
    const { numberError } = fieldsFromForm({ ...EMPTY_FORM, max_concurrency: "abc" }, undefined, "a whole number");
    expect(numberError).toBe("a whole number");
  });
});
