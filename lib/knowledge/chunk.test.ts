import { describe, expect, it } from "vitest";
import { chunkFile, chunkLines, chunkMarkdown, CHUNK_LIMITS } from "./chunk";

describe("chunking", () => {
  it("cuts Markdown by headings, keeps the heading path and the lines, and ignores # inside code fences", () => {
    const md = ["Intro line", "", "# Guide", "text a", "## Install", "npm i", "```sh", "# not a heading", "```", "### From source", "make", "## Use", "run it", "# Other", "x"].join("\n");
    const ps = chunkMarkdown(md);
    expect(ps.map((p) => [p.heading, p.start, p.end])).toEqual([
      ["", 1, 2],
      ["Guide", 3, 4],
      ["Guide > Install", 5, 9],
      ["Guide > Install > From source", 10, 11],
      ["Guide > Use", 12, 13],
      ["Other", 14, 15],
    ]);
    expect(ps[2]!.text).toContain("# not a heading");
  });

  it("cuts code into overlapping windows of lines, and long sections into windows that keep their heading", () => {
    const code = Array.from({ length: 100 }, (_, i) => `line ${i + 1}`).join("\n");
    const ps = chunkLines(code);
    expect(ps.map((p) => [p.start, p.end])).toEqual([
      [1, 40],
      [33, 72],
      [65, 100],
    ]);
    expect(ps[1]!.text.split("\n")[0]).toBe("line 33");
    const md = `# Big\n${Array.from({ length: 130 }, (_, i) => `row ${i}`).join("\n")}`;
    const sections = chunkMarkdown(md);
    expect(sections.length).toBe(3);
    expect(sections.every((p) => p.heading === "Big")).toBe(true);
    expect(sections.map((p) => p.start)).toEqual([1, 61, 121]);
  });

  it("bounds a passage's characters: a minified line is cut, a wide window has fewer lines", () => {
    const minified = `${"x".repeat(50_000)}\nnext`;
    const ps = chunkLines(minified);
    expect(ps[0]).toMatchObject({ start: 1, end: 1 });
    expect(ps[0]!.text.length).toBe(CHUNK_LIMITS.maxChars);
    expect(ps.at(-1)).toMatchObject({ start: 2, end: 2, text: "next" });
    const wide = Array.from({ length: 40 }, () => "y".repeat(200)).join("\n");
    for (const p of chunkLines(wide)) expect(p.text.length).toBeLessThanOrEqual(CHUNK_LIMITS.maxChars);
  });

  it("chooses by extension", () => {
    expect(chunkFile("a.md", "# T\nx")[0]!.heading).toBe("T");
    expect(chunkFile("a.ts", "# T\nx")[0]!.heading).toBe("");
  });
});
