import { describe, expect, it } from "vitest";
import { FRONTMATTER_LIMITS, frontmatterShapeProblem, parseFrontmatter } from "./frontmatter";
import { parseRoleFile } from "./parse";

const file = (yaml: string) => `---\nid: x\nname: X\ndescription: A role.\n${yaml}\n---\nThe prompt.\n`;

describe("frontmatter limits, checked before the YAML parser runs", () => {
  // Each of these made the parser recurse thousands of levels deep (which can abort the whole
  // process), or spend seconds on work that grows with the square of the input.
  it.each([
    ["nested block lists", `${"- ".repeat(3000)}x`, /opens more than 4 nested collections/],
    ["a block list of 1,000 items", Array.from({ length: 1000 }, () => "- x").join("\n"), /more than 200 lines/],
    ["nested complex keys", "? ".repeat(3000), /opens more than 4 nested collections/],
    ["nested flow lists", `k: ${"[".repeat(4000)}${"]".repeat(4000)}`, /more than 8 nested \[ or \{/],
    ["deep indentation", Array.from({ length: 100 }, (_, i) => `${" ".repeat(i)}k${i}:`).join("\n"), /indented more than 64/],
    ["a flow list of 1,000 items", `k: [${"1, ".repeat(1000)}1]`, /more than 256 items in \[ \]/],
    ["hundreds of anchors", `k: [${Array.from({ length: 100 }, (_, i) => `&a${i} x`).join(", ")}]`, /more than 64 "&" anchors, tags or aliases/],
    ["a huge frontmatter", `k: ${"x".repeat(100_000)}`, /characters; at most 8192/],
  ])("refuses %s with a clear error", (_name, yaml, reason) => {
    expect(frontmatterShapeProblem(`${yaml}\n`)).toMatch(reason);
    const parsed = parseFrontmatter(file(yaml));
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error.message).toMatch(/^frontmatter too large or too deeply nested: /);
    const role = parseRoleFile("x.md", file(yaml));
    expect(role.kind).toBe("error");
  });

  it("accepts what role files hold: lists of tools and tags, long descriptions, comments", () => {
    const yaml = [
      `description: "${"A careful reviewer, who reads R&D notes * and !important flags. ".repeat(50)}"`,
      `tools: [${Array.from({ length: 100 }, (_, i) => `tool_${i}`).join(", ")}]`,
      "capabilities:",
      ...Array.from({ length: 64 }, (_, i) => `  - tag-${i}`),
      "# a comment",
      "extra: {nested: {deeper: [1, 2, {x: y}]}}",
    ].join("\n");
    expect(yaml.length).toBeLessThan(FRONTMATTER_LIMITS.maxChars);
    expect(frontmatterShapeProblem(yaml)).toBeNull();
    expect(parseRoleFile("x.md", `---\nid: x\nname: X\n${yaml}\n---\nbody\n`).kind).toBe("role");
  });
});

describe("YAML errors in plain words", () => {
  it("says which key holds an unquoted \": \" and on which file line, and how to fix it", () => {
    const text = "---\nname: Reviewer\ndescription: Use this agent when: you need a second pair of eyes\ntools: Read, Grep\n---\nPrompt.\n";
    const parsed = parseFrontmatter(text);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.error.line).toBe(3);
    expect(parsed.error.message).toMatch(/^YAML error: .+ — description contains ": " — put the value in quotes$/);
    // quoting it, as the hint says, loads the file
    expect(parseRoleFile("reviewer.md", text.replace("description: Use this agent when: you need a second pair of eyes", 'description: "Use this agent when: you need a second pair of eyes"')).kind).toBe("role");
  });

  it("adds no hint to errors it has no plain words for", () => {
    const parsed = parseFrontmatter("---\nname: [unclosed\n---\nPrompt.\n");
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error.message).not.toMatch(/put the value in quotes/);
  });
});

describe("YAML errors point at the line of the file that holds the mistake", () => {
  // Lines are counted in the whole file: the opening `---` fence is line 1.
  it.each([
    ["an unclosed double quote on line 3", '---\nname: Reviewer\ndescription: "Reviews code\nmodel: offline\ntools: Read\n---\nPrompt.\n', 3],
    ["an unclosed single quote on line 4, after a blank line", "---\nname: Reviewer\n\ndescription: 'Reviews code\nmodel: offline\n---\nPrompt.\n", 4],
    ["an unclosed quote in a list item on line 4", '---\nname: Reviewer\ncapabilities:\n  - "code-review\n  - python\ndescription: Reviews.\n---\n', 4],
    ["an unclosed [ on line 3", "---\nname: Reviewer\ntools: [Read, Grep\ndescription: Reviews.\n---\n", 3],
    ["an unclosed { on line 2", "---\nextra: {a: 1\nname: Reviewer\ndescription: Reviews.\n---\n", 2],
    ["an unclosed quote on line 3 of a CRLF file", '---\r\nname: Reviewer\r\ndescription: "Reviews code\r\nmodel: offline\r\n---\r\nPrompt.\r\n', 3],
    ["an unclosed quote on line 3 of a file with a BOM and a ---yaml fence", '\uFEFF---yaml\nname: Reviewer\ndescription: "Reviews code\nmodel: offline\n---\n', 3],
    ["a stray quote after a closed one on line 3", '---\nname: Reviewer\ndescription: "he said "hi" twice"\nmodel: offline\n---\n', 3],
    ["a duplicate key on line 4", "---\nname: Reviewer\ndescription: Reviews.\nname: Again\n---\n", 4],
  ])("%s", (_name, text, line) => {
    const parsed = parseFrontmatter(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error.line).toBe(line);
    const role = parseRoleFile("reviewer.md", text);
    expect(role.kind).toBe("error");
    if (role.kind === "error") expect(role.error.line).toBe(line);
  });
});
