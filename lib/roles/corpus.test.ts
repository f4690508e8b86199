/**
 * The 202 real Claude Code subagent files in shared/corpus/roles must load, survive a no-change
 * save byte for byte, and take a description or tools edit on exactly the lines of that field.
 */
import { readFileSync, readdirSync, existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { applyRoleEdit } from "./edit";
import { splitFrontmatter, splitLines } from "./frontmatter";
import { parseRoleFile, type RoleEditFields } from "./parse";
import type { RoleDetail } from "./schema";

const CORPUS = process.env.ASTRION_ROLE_CORPUS ?? "/work/shared/corpus/roles";
const files = existsSync(CORPUS)
  ? readdirSync(CORPUS)
      .filter((f) => f.endsWith(".md") && f !== "SOURCE.md")
      .sort()
  : [];

function load(file: string): { text: string; role: RoleDetail; data: Record<string, unknown> } {
  const text = readFileSync(path.join(CORPUS, file), "utf8");
  const role = parseRoleFile(file, readFileSync(path.join(CORPUS, file)));
  if (role.kind !== "role") throw new Error(`${file}: ${role.error.message}`);
  const split = splitFrontmatter(text);
  if (!split.ok) throw new Error(`${file}: no frontmatter`);
  return { text, role, data: parseYaml(split.parts.yaml) as Record<string, unknown> };
}

function formFields(role: RoleDetail): RoleEditFields {
  const { id: _id, ...rest } = role.fields;
  void _id;
  return rest;
}

/** Line numbers (0-based) in `before` whose text is not the same line in `after`, outside `span`. */
function linesOutside(before: string, after: string, span: { start: number; end: number }, added: number): string[] {
  const a = splitLines(before);
  const b = splitLines(after);
  const outsideA = [...a.slice(0, span.start), ...a.slice(span.end + 1)];
  const outsideB = [...b.slice(0, span.start), ...b.slice(span.start + added)];
  return outsideA.length === outsideB.length && outsideA.every((l, i) => l === outsideB[i]) ? [] : ["differs"];
}

/** The 0-based line span of `key:` in the file (its key line through the last line before the next key/fence). */
function keySpan(text: string, key: string): { start: number; end: number } {
  const lines = splitLines(text);
  const start = lines.findIndex((l, i) => i > 0 && l.startsWith(`${key}:`));
  let end = start;
  while (end + 1 < lines.length && /^\s+\S/.test(lines[end + 1] ?? "")) end++;
  return { start, end };
}

describe.skipIf(files.length === 0)("Claude Code subagent corpus", () => {
  it("has the 202 files of the survey", () => {
    expect(files).toHaveLength(202);
  });

  it.each(files)("%s loads with the fields YAML reads and saves unchanged byte for byte", (file) => {
    const { text, role, data } = load(file);
    expect(role.id).toBe(file.replace(/\.md$/, ""));
    expect(role.fields.name).toBe(data.name);
    expect(role.fields.description).toBe(data.description);
    expect(role.fields.model).toBe(data.model);
    if ("tools" in data) {
      const expected =
        typeof data.tools === "string"
          ? data.tools
              .split(",")
              .map((s) => s.trim())
              .filter(Boolean)
          : data.tools;
      expect(role.fields.tools).toEqual(expected);
    } else expect(role.fields.tools).toBeUndefined();
    if ("color" in data) expect(role.extra.color).toBe(data.color);
    expect(role.raw).toBe(text);
    expect(applyRoleEdit(text, { fields: formFields(role), body: role.body })).toBe(text);
  });

  it.each(files)("%s: a new description rewrites only the description lines", (file) => {
    const { text, role } = load(file);
    const description = `Reviews ${role.fields.name} work: ${"checks every change against the plan, ".repeat(8)}and reports: findings, risks # not a comment`;
    expect(description.length).toBeGreaterThan(300);
    const next = applyRoleEdit(text, { fields: { ...formFields(role), description }, body: role.body });
    const reparsed = parseRoleFile(file, next);
    expect(reparsed.kind).toBe("role");
    if (reparsed.kind !== "role") return;
    expect(reparsed.fields.description).toBe(description);
    expect(reparsed.fields.name).toBe(role.fields.name);
    expect(reparsed.body).toBe(role.body);
    const span = keySpan(text, "description");
    expect(span.start).toBeGreaterThan(0);
    expect(linesOutside(text, next, span, 1)).toEqual([]);
    const newLine = splitLines(next)[span.start] ?? "";
    expect(newLine.startsWith("description: ")).toBe(true);
    expect(newLine).toContain(description.slice(0, 100));
  });

  const commaTools = files.filter((f) => /^tools: [^[\n]+$/m.test(readFileSync(path.join(CORPUS, f), "utf8")));

  it("finds the comma-string tools files", () => {
    expect(commaTools.length).toBeGreaterThanOrEqual(14);
  });

  it.each(commaTools)("%s: changing tools keeps a comma string on one line", (file) => {
    const { text, role } = load(file);
    const tools = [...(role.fields.tools ?? []), "WebSearch"];
    const next = applyRoleEdit(text, { fields: { ...formFields(role), tools }, body: role.body });
    const span = keySpan(text, "tools");
    expect(splitLines(next)[span.start]).toBe(`tools: ${tools.join(", ")}\n`);
    expect(linesOutside(text, next, span, 1)).toEqual([]);
    const reparsed = parseRoleFile(file, next);
    expect(reparsed.kind === "role" && reparsed.fields.tools).toEqual(tools);
  });

  it.each(files)("%s converted to CRLF round-trips and keeps CRLF on every line after an edit", (file) => {
    const { role } = load(file);
    const text = readFileSync(path.join(CORPUS, file), "utf8").replace(/\n/g, "\r\n");
    const crlf = parseRoleFile(file, text);
    expect(crlf.kind).toBe("role");
    if (crlf.kind !== "role") return;
    expect(crlf.fields.name).toBe(role.fields.name);
    expect(crlf.fields.description.replace(/\r\n/g, "\n")).toBe(role.fields.description);
    expect(applyRoleEdit(text, { fields: formFields(crlf), body: crlf.body })).toBe(text);
    const next = applyRoleEdit(text, {
      fields: { ...formFields(crlf), description: "Edited on Windows", model: "opus" },
      body: `${role.body}\nAppended line\n`,
    });
    expect(next.replace(/\r\n/g, "")).not.toContain("\n");
    const reparsed = parseRoleFile(file, next);
    expect(reparsed.kind === "role" && reparsed.fields).toMatchObject({ description: "Edited on Windows", model: "opus" });
  });

  it("changing the [] tools list of arm-cortex-expert keeps a flow list", () => {
    const { text, role } = load("arm-cortex-expert.md");
    expect(role.fields.tools).toEqual([]);
    const next = applyRoleEdit(text, { fields: { ...formFields(role), tools: ["Read", "Grep"] }, body: role.body });
    expect(next).toBe(text.replace(/^tools: \[\]$/m, "tools: [Read, Grep]"));
  });
});
