/**
 * The gray-matter adapter: role files are read through gray-matter (with the `yaml` engine and
 * always with options, so its unbounded cache stays empty), its `---yaml` language marker works,
 * other languages are refused without running anything, and over the whole Claude Code corpus
 * gray-matter's data is what the editor's YAML Document holds.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { parse as parseYaml } from "yaml";
import { applyRoleEdit } from "./edit";
import { parseFrontmatter, splitFrontmatter } from "./frontmatter";
import { readMatter } from "./matter";
import { parseRoleFile } from "./parse";

const seen = vi.hoisted(() => ({ calls: [] as unknown[][] }));
vi.mock("gray-matter", async (importOriginal) => {
  const real = ((await importOriginal()) as { default: (...args: unknown[]) => unknown }).default;
  return { default: (...args: unknown[]) => (seen.calls.push(args), real(...args)) };
});

const CORPUS = process.env.ASTRION_ROLE_CORPUS ?? "/work/shared/corpus/roles";
const files = existsSync(CORPUS) ? readdirSync(CORPUS).filter((f) => f.endsWith(".md") && f !== "SOURCE.md").sort() : [];

beforeEach(() => {
  seen.calls.length = 0;
});

describe("reading through gray-matter", () => {
  it("parses each role file once with gray-matter, always passing options (no cache)", async () => {
    const role = parseRoleFile("a.md", "---\nname: A\ndescription: B\ntools: Read\n---\nbody\n");
    expect(role).toMatchObject({ kind: "role", fields: { name: "A", description: "B", tools: ["Read"] } });
    expect(seen.calls).toHaveLength(1);
    const options = seen.calls[0]![1] as { language: string; engines: Record<string, { parse: unknown }> };
    expect(options.language).toBe("yaml");
    expect(typeof options.engines.yaml!.parse).toBe("function");
    const actual = (await vi.importActual<{ default: { cache: Record<string, unknown> } }>("gray-matter")).default;
    expect(Object.keys(actual.cache)).toEqual([]);
  });

  it("reads gray-matter's language marker: ---yaml and ---yml are YAML", () => {
    for (const open of ["---yaml", "---yml", "--- YAML"]) {
      const text = `${open}\nname: A\ndescription: B\n---\nbody\n`;
      const role = parseRoleFile("a.md", text);
      expect(role).toMatchObject({ kind: "role", fields: { name: "A", description: "B" }, body: "body\n" });
      // The editor keeps the marker line as written.
      expect(applyRoleEdit(text, { fields: { name: "A", description: "C" }, body: "body\n" })).toBe(`${open}\nname: A\ndescription: C\n---\nbody\n`);
    }
  });

  it("refuses other languages, and never runs a JavaScript frontmatter", () => {
    const g = globalThis as { __roleFrontmatterRan?: boolean };
    for (const lang of ["js", "javascript", "json", "toml", "coffee"]) {
      const text = `---${lang}\nglobalThis.__roleFrontmatterRan = true; module.exports = { name: "A", description: "B" }\n---\n`;
      const role = parseRoleFile("a.md", text);
      expect(role.kind === "error" && role.error).toEqual({ message: expect.stringMatching(`"${lang}" is not supported: only YAML`), line: 1 });
    }
    // The adapter itself refuses too, should a language reach it.
    const split = splitFrontmatter("---js\nglobalThis.__roleFrontmatterRan = true; ({ name: 'A' })\n---\n");
    if (!split.ok) throw new Error("did not split");
    expect(readMatter(split.parts)).toEqual({ ok: false, message: "frontmatter in javascript is not read: only YAML" });
    expect(g.__roleFrontmatterRan).toBeUndefined();
  });

  it("keeps today's error reporting: YAML errors with lines and the plain-words hint", () => {
    const role = parseRoleFile("a.md", "---\nname: A\ndescription: Use this agent when: you need help\n---\n");
    expect(role.kind === "error" && role.error).toEqual({ message: expect.stringMatching(/description contains ": " — put the value in quotes/), line: 3 });
  });

  it("reads CRLF files as gray-matter sees them (no stray carriage return)", () => {
    const role = parseRoleFile("a.md", "---\r\nname: A\r\ndescription: B\r\n---\r\nbody\r\n");
    expect(role).toMatchObject({ kind: "role", fields: { name: "A", description: "B" } });
  });
});

describe.skipIf(files.length === 0)("reading and editing agree on the corpus", () => {
  it.each(files)("%s: gray-matter's data is the editor Document's, before and after a no-op edit", (file) => {
    const text = readFileSync(path.join(CORPUS, file), "utf8");
    const parsed = parseFrontmatter(text);
    if (!parsed.ok) throw new Error(parsed.error.message);
    const read = readMatter(parsed.value.parts);
    if (!read.ok) throw new Error(read.message);
    expect(read.value.data).toEqual(parsed.value.doc.toJS());
    expect(read.value.data).toEqual(parseYaml(parsed.value.parts.yaml));
    const role = parseRoleFile(file, text);
    if (role.kind !== "role") throw new Error(role.error.message);
    const { id: _id, ...fields } = role.fields;
    void _id;
    const again = parseRoleFile(file, applyRoleEdit(text, { fields, body: role.body }));
    expect(again.kind === "role" && again.fields).toEqual(role.fields);
    expect(again.kind === "role" && again.extra).toEqual(role.extra);
  });
});
