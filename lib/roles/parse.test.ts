import { describe, expect, it } from "vitest";
import { splitFrontmatter } from "./frontmatter";
import { computeEtag } from "@/lib/store/etag";
import { parseRoleFile } from "./parse";
import type { RoleErrorDetail } from "./schema";

function broken(text: string, file = "broken.md"): RoleErrorDetail {
  const detail = parseRoleFile(file, text);
  if (detail.kind !== "error") throw new Error("expected an error entry");
  return detail;
}

describe("splitFrontmatter", () => {
  it("gives back parts that join to the original text", () => {
    for (const text of [
      "---\nname: a\n---\nbody\n",
      "\uFEFF---\r\nname: a\r\n---\r\nbody\r\n---\r\nmore",
      "---\n---\n",
      "---  \nname: a\n...\n",
    ]) {
      const split = splitFrontmatter(text);
      expect(split.ok).toBe(true);
      if (!split.ok) continue;
      const { bom, open, yaml, close, body } = split.parts;
      expect(bom + open + yaml + close + body).toBe(text);
    }
  });
});

describe("parseRoleFile", () => {
  it("reads a seed role file", () => {
    const text =
      "---\nid: ui-operator\nname: UI Operator\ndescription: 负责前端设计、UI 还原、配色方案\nmodel: qwen3-max\nthinking_mode: fast\n---\n你是团队的前端设计专家...\n";
    const detail = parseRoleFile("ui-operator.md", text);
    expect(detail).toEqual({
      kind: "role",
      id: "ui-operator",
      file: "ui-operator.md",
      etag: computeEtag(text),
      fields: {
        id: "ui-operator",
        name: "UI Operator",
        description: "负责前端设计、UI 还原、配色方案",
        model: "qwen3-max",
        thinking_mode: "fast",
      },
      extra: {},
      body: "你是团队的前端设计专家...\n",
      raw: text,
      warnings: [],
    });
    expect(parseRoleFile("ui-operator.md", Buffer.from(text, "utf8")).etag).toBe(detail.etag);
  });

  it("normalizes capabilities, tools and permissions from strings and lists", () => {
    const detail = parseRoleFile(
      "r.md",
      "---\nname: a\ndescription: b\ncapabilities: code-review|python|diff-analysis\ntools: Read, Write , Bash\npermissions: [read]\nmax_concurrency: 2\n---\n",
    );
    expect(detail.kind === "role" && detail.fields).toMatchObject({
      capabilities: ["code-review", "python", "diff-analysis"],
      tools: ["Read", "Write", "Bash"],
      permissions: ["read"],
      max_concurrency: 2,
    });
    const gateway = parseRoleFile("r.md", "---\nname: a\ndescription: b\ngateway: shop, billing\n---\n");
    expect(gateway.kind === "role" && gateway.fields.gateway).toEqual(["shop", "billing"]);
    const badGateway = parseRoleFile("r.md", "---\nname: a\ndescription: b\ngateway: [bad__name]\n---\n");
    expect(badGateway.kind).toBe("error");
    const commas = parseRoleFile("r.md", "---\nname: a\ndescription: b\ncapabilities: research, docs\ntools:\n  - Read\n---\n");
    expect(commas.kind === "role" && commas.fields).toMatchObject({ capabilities: ["research", "docs"], tools: ["Read"] });
  });

  it("loads a file whose id differs from its file name, with the file name as id and a warning", () => {
    const detail = parseRoleFile("reviewer.md", "---\nid: code-reviewer\nname: a\ndescription: b\n---\n");
    expect(detail.kind).toBe("role");
    if (detail.kind !== "role") return;
    expect(detail.id).toBe("reviewer");
    expect(detail.fields.id).toBe("reviewer");
    expect(detail.warnings[0]).toMatch(/code-reviewer.*differs from the file name/);
  });

  it("accepts Claude Code model names as model keys", () => {
    for (const model of ["sonnet", "opus", "inherit", "haiku", "fable", "qwen3-max", "deepseek/deepseek-r1:free"]) {
      const detail = parseRoleFile("r.md", `---\nname: a\ndescription: b\nmodel: ${model}\n---\n`);
      expect(detail.kind === "role" && detail.fields.model).toBe(model);
    }
  });

  it("reports a file without frontmatter", () => {
    const detail = broken("Just a prompt\n");
    expect(detail.error).toEqual({ message: expect.stringMatching(/no frontmatter/), line: 1 });
    expect(detail.raw).toBe("Just a prompt\n");
    expect(detail.id).toBe("broken");
  });

  it("reports an unclosed fence", () => {
    expect(broken("---\nname: a\ndescription: b\n").error.message).toMatch(/unclosed frontmatter/);
  });

  it("reports a YAML syntax error with the line in the file", () => {
    const detail = broken("---\nname: a\ndescription: b\ntools: [Read, Write\nmodel: opus\n---\nbody\n");
    expect(detail.error.message).toMatch(/^YAML error/);
    expect(detail.error.line).toBeGreaterThanOrEqual(4);
    expect(detail.error.line).toBeLessThanOrEqual(6);
    expect(broken("---\nname: a\nname: b\ndescription: c\n---\n").error).toEqual({
      message: expect.stringMatching(/unique/),
      line: 3,
    });
  });

  it("reports frontmatter that is not a mapping, or empty", () => {
    expect(broken("---\n- a\n- b\n---\n").error.message).toMatch(/mapping/);
    expect(broken("---\n---\nbody\n").error.message).toMatch(/empty/);
  });

  it("reports missing or empty name and description", () => {
    expect(broken("---\ndescription: b\n---\n").error.message).toMatch(/^name: is required/);
    const empty = broken("---\nname: '  '\ndescription: b\n---\n");
    expect(empty.error).toEqual({ message: expect.stringMatching(/^name: /), line: 2 });
    expect(broken("---\nname: a\n---\n").error.message).toMatch(/description: is required/);
  });

  it("reports wrong types and invalid values by field and line", () => {
    expect(broken("---\nname: a\ndescription: b\nthinking_mode: slow\n---\n").error).toEqual({
      message: expect.stringMatching(/^thinking_mode: must be "fast" or "thinking"/),
      line: 4,
    });
    expect(broken("---\nname: [a]\ndescription: b\n---\n").error.message).toMatch(/^name: must be text/);
    expect(broken("---\nname: a\ndescription: b\nmodel: has spaces\n---\n").error.message).toMatch(/^model:/);
    expect(broken("---\nname: a\ndescription: b\npermissions: [read, admin]\n---\n").error.message).toMatch(
      /^permissions:/,
    );
    expect(broken("---\nname: a\ndescription: b\nmax_concurrency: 1.5\n---\n").error.message).toMatch(
      /^max_concurrency:/,
    );
    expect(broken("---\nname: a\ndescription: b\ncapabilities: {a: 1}\n---\n").error.message).toMatch(
      /^capabilities:/,
    );
  });

  it("loads a file whose name is not a valid id (the library offers a rename), and reports bytes that are not UTF-8", () => {
    const misnamed = parseRoleFile("Power Shell 5.1.md", "---\nname: a\ndescription: b\n---\n");
    expect(misnamed).toMatchObject({ kind: "role", id: "Power Shell 5.1", file: "Power Shell 5.1.md", fields: { name: "a" } });
    const bytes = Buffer.concat([Buffer.from("---\nname: a\ndescription: b\n---\n"), Buffer.from([0xff, 0xfe])]);
    const detail = parseRoleFile("r.md", bytes);
    expect(detail.kind === "error" && detail.error.message).toMatch(/UTF-8/);
  });
});
