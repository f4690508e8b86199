import { describe, expect, it } from "vitest";
import { ValidationError } from "@/lib/contracts/errors";
import { applyRoleEdit, scalarText, serializeNewRole } from "./edit";
import { parseRoleFile, type RoleEditFields } from "./parse";
import type { RoleDetail } from "./schema";

function role(text: string, file = "demo.md"): RoleDetail {
  const detail = parseRoleFile(file, text);
  if (detail.kind !== "role") throw new Error(detail.error.message);
  return detail;
}

function fieldsOf(detail: RoleDetail): RoleEditFields {
  const { id: _id, ...rest } = detail.fields;
  void _id;
  return rest;
}

/** Applies `patch` to the file's own fields, as the form does when one input changes. */
function edit(text: string, patch: Partial<RoleEditFields>, body?: string): string {
  const detail = role(text);
  return applyRoleEdit(text, { fields: { ...fieldsOf(detail), ...patch }, body: body ?? detail.body });
}

const COMMENTED = [
  "---",
  "# Role used by the nightly review job",
  "id: demo",
  "name: Demo Reviewer   # shown in the team view",
  "description: Reviews pull requests",
  "",
  "# model chosen for cost",
  "model: sonnet",
  "color: blue",
  "x-owner: { team: platform, since: 2024 }",
  "tools: Read, Grep",
  "capabilities: code-review|python",
  "---",
  "Body line",
  "",
].join("\n");

describe("applyRoleEdit", () => {
  it("returns the original string when nothing changed, even when values are written differently", () => {
    const text = COMMENTED;
    const detail = role(text);
    expect(detail.fields.tools).toEqual(["Read", "Grep"]);
    expect(detail.fields.capabilities).toEqual(["code-review", "python"]);
    expect(applyRoleEdit(text, { fields: fieldsOf(detail), body: detail.body })).toBe(text);
    // The form trims and re-lists: still no change.
    const same = applyRoleEdit(text, {
      fields: { ...fieldsOf(detail), name: " Demo Reviewer ", tools: ["Read", "Grep"] },
      body: detail.body,
    });
    expect(same).toBe(text);
  });

  it("keeps unknown keys, comments, blank lines and inline comments when a field changes", () => {
    const next = edit(COMMENTED, { name: "Senior Reviewer", model: "opus" });
    expect(next).toBe(
      COMMENTED.replace("name: Demo Reviewer   # shown", "name: Senior Reviewer   # shown").replace(
        "model: sonnet",
        "model: opus",
      ),
    );
    const detail = role(next);
    expect(detail.extra).toEqual({ color: "blue", "x-owner": { team: "platform", since: 2024 } });
    expect(detail.fields.name).toBe("Senior Reviewer");
  });

  it("keeps the style of list fields: comma string, pipe string, flow list, block list", () => {
    const next = edit(COMMENTED, { tools: ["Read", "Grep", "Glob"], capabilities: ["code-review", "go"] });
    expect(next).toContain("\ntools: Read, Grep, Glob\n");
    expect(next).toContain("\ncapabilities: code-review|go\n");

    const flow = "---\nname: a\ndescription: b\ntools: [Read, Write]\n---\n";
    expect(edit(flow, { tools: ["Read"] })).toBe("---\nname: a\ndescription: b\ntools: [Read]\n---\n");

    const block = "---\nname: a\ndescription: b\npermissions:\n    - read\n# keep me\nmodel: opus\n---\nbody\n";
    expect(edit(block, { permissions: ["read", "write"] })).toBe(
      "---\nname: a\ndescription: b\npermissions:\n    - read\n    - write\n# keep me\nmodel: opus\n---\nbody\n",
    );
  });

  it("writes a list that cannot stay a comma string as a flow list", () => {
    const next = edit(COMMENTED, { tools: ["Bash(git diff, git log)", "Read"] });
    expect(next).toContain('\ntools: ["Bash(git diff, git log)", Read]\n');
    expect(role(next).fields.tools).toEqual(["Bash(git diff, git log)", "Read"]);
  });

  it("removes a field's lines, including a block list, and nothing else", () => {
    expect(edit(COMMENTED, { model: undefined })).toBe(COMMENTED.replace("model: sonnet\n", ""));
    const block = "---\nname: a\ndescription: b\ntools:\n  - Read\n  - Write\ncolor: red\n---\n";
    expect(edit(block, { tools: undefined })).toBe("---\nname: a\ndescription: b\ncolor: red\n---\n");
  });

  it("removes an optional text field the form cleared instead of writing an empty string", () => {
    expect(edit(COMMENTED, { model: "  " })).toBe(COMMENTED.replace("model: sonnet\n", ""));
  });

  it("appends a new field at the end of the frontmatter, lists in flow style", () => {
    const text = "---\nname: a\ndescription: b\n---\nbody\n";
    expect(edit(text, { thinking_mode: "thinking", capabilities: ["research", "docs"], max_concurrency: 2 })).toBe(
      "---\nname: a\ndescription: b\nthinking_mode: thinking\ncapabilities: [research, docs]\nmax_concurrency: 2\n---\nbody\n",
    );
  });

  it("replaces a folded block scalar description with one unfolded line", () => {
    for (const indicator of [">", ">-", "|"]) {
      const text = `---\nname: a\ndescription: ${indicator}\n  First line of a long\n  description.\n\nmodel: haiku\n---\nbody\n`;
      const detail = role(text);
      expect(detail.fields.description).toBe(
        indicator === ">" ? "First line of a long description.\n" : indicator === ">-" ? "First line of a long description." : "First line of a long\ndescription.\n",
      );
      // The form sends the value trimmed: not a change.
      expect(edit(text, { description: detail.fields.description.trim() })).toBe(text);
      const long = "Plans the work and checks it. ".repeat(15).trim();
      const next = edit(text, { description: long });
      expect(next).toBe(`---\nname: a\ndescription: ${long}\n\nmodel: haiku\n---\nbody\n`);
    }
  });

  it("quotes values that would not read back as the same string, and never folds them", () => {
    expect(scalarText("plain text, with commas")).toBe("plain text, with commas");
    expect(scalarText("key: value")).toBe('"key: value"');
    expect(scalarText("true")).toBe('"true"');
    expect(scalarText("123")).toBe('"123"');
    expect(scalarText("- item")).toBe('"- item"');
    expect(scalarText("a # b")).toBe('"a # b"');
    expect(scalarText("line\nbreak")).toBe('"line\\nbreak"');
    expect(scalarText("中文描述 — 带破折号")).toBe("中文描述 — 带破折号");
    const text = "---\nname: a\ndescription: b\n---\n";
    for (const description of ['He said "hi": ok', "'quoted'", "[not a list]", "*star", "x".repeat(600), "tab\there"]) {
      const next = edit(text, { description });
      expect(role(next).fields.description).toBe(description);
      expect(next.split("\n")).toHaveLength(text.split("\n").length);
    }
  });

  it("preserves CRLF line endings, in the frontmatter and in a new body", () => {
    const text = "---\r\nid: demo\r\nname: Demo\r\ndescription: Old\r\nmodel: opus\r\n---\r\nLine one\r\n\r\nLine two\r\n";
    const detail = role(text);
    expect(detail.body).toBe("Line one\r\n\r\nLine two\r\n");
    expect(applyRoleEdit(text, { fields: fieldsOf(detail), body: detail.body })).toBe(text);
    // A browser sends LF: not a change.
    expect(applyRoleEdit(text, { fields: fieldsOf(detail), body: "Line one\n\nLine two\n" })).toBe(text);
    const next = applyRoleEdit(text, {
      fields: { ...fieldsOf(detail), description: "New", tools: ["Read"] },
      body: "New body\n\nsecond\n",
    });
    expect(next).toBe(
      "---\r\nid: demo\r\nname: Demo\r\ndescription: New\r\nmodel: opus\r\ntools: [Read]\r\n---\r\nNew body\r\n\r\nsecond\r\n",
    );
  });

  it("treats only the first closing fence as the end of the frontmatter", () => {
    const text = "---\nname: a\ndescription: b\n---\nIntro\n\n---\n\nname: not a field\n---\nend\n";
    const detail = role(text);
    expect(detail.body).toBe("Intro\n\n---\n\nname: not a field\n---\nend\n");
    expect(edit(text, { name: "Renamed" })).toBe(text.replace("name: a", "name: Renamed"));
    expect(edit(text, {}, "Only body\n---\n")).toBe("---\nname: a\ndescription: b\n---\nOnly body\n---\n");
  });

  it("keeps a byte order mark and a `...` closing fence", () => {
    const text = "\uFEFF---\nname: a\ndescription: b\n...\nbody";
    expect(role(text).body).toBe("body");
    expect(edit(text, { description: "c" })).toBe("\uFEFF---\nname: a\ndescription: c\n...\nbody");
  });

  it("adds a line ending to a closing fence at the end of the file when a body is added", () => {
    expect(edit("---\nname: a\ndescription: b\n---", {}, "Hello\n")).toBe("---\nname: a\ndescription: b\n---\nHello\n");
  });

  it("edits a flow-mapping frontmatter through the YAML document", () => {
    const text = "---\n{name: a, description: b, color: red}\n---\nbody\n";
    const next = edit(text, { description: "changed" });
    const detail = role(next);
    expect(detail.fields.description).toBe("changed");
    expect(detail.extra.color).toBe("red");
    expect(detail.body).toBe("body\n");
  });

  it("refuses to edit a file that does not load", () => {
    expect(() =>
      applyRoleEdit("---\nname: [\n---\n", { fields: { name: "a", description: "b" }, body: "" }),
    ).toThrow(ValidationError);
  });
});

describe("serializeNewRole", () => {
  it("writes the fields in a fixed order and reads back the same role", () => {
    const text = serializeNewRole(
      {
        id: "test-engineer",
        name: "Test Engineer",
        description: "Writes tests: unit and e2e",
        thinking_mode: "fast",
        max_concurrency: 3,
        permissions: ["read", "write"],
        capabilities: ["testing", "vitest"],
      },
      "You write tests.\n",
      { color: "green" },
    );
    expect(text).toBe(
      [
        "---",
        "id: test-engineer",
        "name: Test Engineer",
        'description: "Writes tests: unit and e2e"',
        "thinking_mode: fast",
        "capabilities: [testing, vitest]",
        "permissions: [read, write]",
        "max_concurrency: 3",
        "color: green",
        "---",
        "You write tests.",
        "",
      ].join("\n"),
    );
    const detail = role(text, "test-engineer.md");
    expect(detail.fields).toEqual({
      id: "test-engineer",
      name: "Test Engineer",
      description: "Writes tests: unit and e2e",
      thinking_mode: "fast",
      max_concurrency: 3,
      permissions: ["read", "write"],
      capabilities: ["testing", "vitest"],
    });
    expect(detail.warnings).toEqual([]);
  });
});

describe("provides: (a nested list of objects) through the line-preserving editor", () => {
  const file = [
    "---",
    "name: Tester",
    "description: Writes tests",
    "# abilities other agents call",
    "provides:",
    "  - name: generate_test_cases",
    "    description: Test cases for a module",
    "    input:",
    "      type: object",
    "      properties:",
    "        module: { type: string }   # the module path",
    "      required: [module]",
    "    output:",
    "      type: object",
    "      properties:",
    "        cases: { type: array, items: { type: string } }",
    "max_concurrency: 2",
    "---",
    "You test.",
    "",
  ].join("\n");

  it("loads it as a field, not an extra key", () => {
    const d = role(file);
    expect(d.fields.provides?.[0]).toMatchObject({ name: "generate_test_cases", input: { required: ["module"] } });
    expect(d.extra).toEqual({});
  });

  it("keeps its lines byte for byte when the form saves other fields, with or without it", () => {
    const d = role(file);
    const { provides: _p, ...withoutProvides } = fieldsOf(d);
    void _p;
    for (const fields of [fieldsOf(d), withoutProvides]) {
      const out = applyRoleEdit(file, { fields: { ...fields, description: "Writes better tests" }, body: d.body });
      expect(out).toBe(file.replace("description: Writes tests", "description: Writes better tests"));
      expect(role(out).fields.provides).toEqual(d.fields.provides);
    }
  });

  it("rewrites it as block YAML when a save names a new value, which reads back equal", () => {
    const d = role(file);
    const next = [{ name: "summarize", description: "Sum up", input: { type: "object", properties: { text: { type: "string" } } } }];
    const out = applyRoleEdit(file, { fields: { ...fieldsOf(d), provides: next }, body: d.body });
    expect(role(out).fields.provides).toEqual(next);
    expect(out).toContain("max_concurrency: 2\n");
    expect(out).toContain("provides:\n  - name: summarize\n");
    // A new role created with abilities writes them too.
    expect(role(serializeNewRole({ id: "demo", name: "N", description: "D", provides: next }, "")).fields.provides).toEqual(next);
  });

  it("makes a file with a bad declaration an error entry that names the line", () => {
    const bad = parseRoleFile("demo.md", file.replace("type: object\n      properties:\n        module", "type: string\n      properties:\n        module"));
    expect(bad.kind).toBe("error");
    expect(bad.kind === "error" && bad.error).toMatchObject({ message: expect.stringMatching(/provides\[0\.input\]: the input schema must be an object schema/), line: 5 });
  });
});
