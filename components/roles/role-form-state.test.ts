import { describe, expect, it } from "vitest";
import type { RoleFields } from "@/lib/roles/schema";
import { tooLongText } from "@/lib/client/input-errors";
import { makeTranslator } from "@/lib/i18n/translate";
import { EMPTY_FORM, fieldsFromForm, formFromFields, serverErrors, splitTags, validateFields } from "./role-form-state";

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

  it("edits the protocol gateway sources as a comma list, and leaves them alone when untouched", () => {
    const withGateway: RoleFields = { ...loaded, gateway: ["shop"] };
    const initial = { form: formFromFields(withGateway, "body"), fields: withGateway };
    expect(initial.form.gateway).toBe("shop");
    expect(fieldsFromForm(initial.form, initial, "bad").fields.gateway).toEqual(["shop"]);
    expect(fieldsFromForm({ ...initial.form, gateway: "shop, billing" }, initial, "bad").fields.gateway).toEqual(["shop", "billing"]);
    expect(fieldsFromForm({ ...initial.form, gateway: " " }, initial, "bad").fields).not.toHaveProperty("gateway");
    const bad = validateFields(fieldsFromForm({ ...initial.form, gateway: "bad__name" }, initial, "bad").fields);
    expect(bad.ok === false && bad.errors.gateway).toMatch(/bad__name.*gateway source name/);
  });

  it("flags a max concurrency that is not a number", () => {
    const { numberError } = fieldsFromForm({ ...EMPTY_FORM, max_concurrency: "abc" }, undefined, "a whole number");
    expect(numberError).toBe("a whole number");
  });
});

describe("the MCP servers input", () => {
  it("loads, sends back untouched, and splits a changed value on commas", () => {
    const fields: RoleFields = { id: "r", name: "R", description: "d", mcp_servers: ["github", "fs"] };
    const form = formFromFields(fields, "");
    expect(form.mcp_servers).toBe("github, fs");
    const initial = { form, fields };
    expect(fieldsFromForm(form, initial, "n").fields.mcp_servers).toEqual(["github", "fs"]);
    expect(fieldsFromForm({ ...form, mcp_servers: "github , postgres," }, initial, "n").fields.mcp_servers).toEqual(["github", "postgres"]);
    expect(fieldsFromForm({ ...form, mcp_servers: "" }, initial, "n").fields.mcp_servers).toBeUndefined();
    expect(validateFields({ ...fieldsFromForm({ ...EMPTY_FORM, id: "r", name: "R", description: "d", mcp_servers: "bad__name" }, undefined, "n").fields }).ok).toBe(false);
  });
  it("words a name or description over its limit with the page's sentence, when given one", () => {
    const fields = { id: "x", name: "n".repeat(121), description: "d".repeat(4001) };
    const worded = validateFields(fields, (field, max) => `${field} > ${max}`);
    expect(worded.ok).toBe(false);
    if (worded.ok) return;
    expect(worded.errors).toMatchObject({ name: "name > 120", description: "description > 4000" });
    const plain = validateFields(fields);
    expect(plain.ok ? {} : plain.errors).toMatchObject({ name: "at most 120 characters" });
  });

  it("words the server's limit of the prompt body (200,000 characters) and of a field in the page's language", () => {
    const zh = makeTranslator("zh-CN");
    const tooLong = (field: "body" | keyof RoleFields, max: number) => (field === "body" || field === "name" ? tooLongText(zh, "zh-CN", field, max) : undefined);
    const answer = serverErrors(
      [
        { path: "body", message: "at most 200000 characters", code: "too_long", limit: 200_000 },
        { path: "fields.name", message: "at most 200 characters", code: "too_long", limit: 200 },
        { path: "fields.model", message: "unknown model" },
        { path: "extra", message: "not allowed" },
      ],
      tooLong,
    );
    expect(answer.other).toEqual(["提示词太长：最多 200,000 个字符。", "extra: not allowed"]);
    expect(answer.fields).toEqual({ name: "名称太长：最多 200 个字符。", model: "unknown model" });
  });
});
