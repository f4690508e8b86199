import { describe, expect, it } from "vitest";
import { countLines, ListResultSchema, ReadResultSchema, SearchResultSchema, shapeListResult, shapeReadResult, shapeSearchResult, type SearchMatch } from "./results";
import { rng } from "@/test/helpers/rng";


const PIECES = ["atomic", " ", "中文", "🎨", '"', "\\", "\t", "\u0001", "x", "é"];
const randomText = (rand: () => number, max: number) => Array.from({ length: Math.floor(rand() * max) }, () => PIECES[Math.floor(rand() * PIECES.length)]).join("");

describe("shapeSearchResult", () => {
  const matches = (n: number): SearchMatch[] => Array.from({ length: n }, (_, i) => ({ path: `src/f${i}.ts`, line: i + 1, text: `atomic ${i}` }));

  it("a result that fits is sent whole, with no omission fields", () => {
    expect(shapeSearchResult({ matches: matches(3), found: 3, filesScanned: 9, complete: true }, 12_000)).toEqual({ matches: matches(3), truncated: false, filesScanned: 9 });
  });

  it("counts matches found beyond those kept, one or many", () => {
    expect(shapeSearchResult({ matches: matches(2), found: 3, filesScanned: 1, complete: true }, 12_000)).toMatchObject({
      truncated: true,
      omitted: 1,
      note: "1 more match not shown; narrow the query (a more specific word, or path/glob)",
    });
    const r = shapeSearchResult({ matches: matches(100), found: 1334, filesScanned: 50, complete: true }, 1000);
    expect(JSON.stringify(r).length).toBeLessThanOrEqual(1000);
    expect(r.matches).toEqual(matches(r.matches.length));
    expect(r).toMatchObject({ omitted: 1334 - r.matches.length, note: `${1334 - r.matches.length} more matches not shown; narrow the query (a more specific word, or path/glob)` });
  });

  it("a search stopped early says its count is a lower bound, or that more may match", () => {
    expect(shapeSearchResult({ matches: matches(100), found: 400, filesScanned: 5000, complete: false }, 12_000).note).toBe(
      "at least 300 more matches not shown; narrow the query (a more specific word, or path/glob)",
    );
    const r = shapeSearchResult({ matches: matches(2), found: 2, filesScanned: 5000, complete: false }, 12_000);
    expect(r).toMatchObject({ truncated: true, note: expect.stringMatching(/^the search stopped before the end/) });
    expect(r.omitted).toBeUndefined();
  });

  it("random matches (CJK, emoji, escapes) under random caps: valid, schema-accepted, whole matches, within the cap", () => {
    for (let seed = 1; seed <= 60; seed++) {
      const rand = rng(seed);
      const all = Array.from({ length: 1 + Math.floor(rand() * 100) }, (_, i): SearchMatch => ({ path: `src/${randomText(rand, 8)}.ts`, line: i + 1, text: randomText(rand, 150) }));
      const found = all.length + Math.floor(rand() * 5000);
      const cap = 300 + Math.floor(rand() * 12_000);
      const r = shapeSearchResult({ matches: all, found, filesScanned: 7, complete: rand() < 0.5 }, cap);
      const text = JSON.stringify(r);
      expect(text.length, `seed ${seed}`).toBeLessThanOrEqual(cap);
      expect(SearchResultSchema.parse(JSON.parse(text))).toEqual(r);
      expect(r.matches).toEqual(all.slice(0, r.matches.length));
      expect((r.omitted ?? 0) + r.matches.length).toBe(found);
    }
  });
});

describe("shapeListResult", () => {
  const entries = (n: number) => Array.from({ length: n }, (_, i) => ({ path: `dir/file-${i}.txt`, type: "file" as const, size: i }));

  it("whole entries within the cap and a count; a walk that stopped counting says at least", () => {
    const r = shapeListResult({ path: "dir", entries: entries(200), seen: 10_000, complete: false }, 2000);
    expect(JSON.stringify(r).length).toBeLessThanOrEqual(2000);
    expect(ListResultSchema.parse(r)).toEqual(r);
    expect(r.entries).toEqual(entries(r.entries.length));
    expect(r).toMatchObject({ truncated: true, omitted: 10_000 - r.entries.length, note: `at least ${10_000 - r.entries.length} more files not shown; list a subfolder` });
    expect(shapeListResult({ path: ".", entries: entries(2), seen: 2, complete: true }, 2000)).toEqual({ path: ".", entries: entries(2), truncated: false });
  });
});

describe("shapeReadResult", () => {
  const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i} "中文" \\ 🎨\n`).join("");

  it("a file that fits is whole, with its line count", () => {
    expect(shapeReadResult({ path: "a.txt", text: "a\nb", size: 3, complete: true, totalLines: null }, 12_000)).toEqual({ path: "a.txt", content: "a\nb", size: 3, truncated: false, linesShown: 2, totalLines: 2 });
    expect(shapeReadResult({ path: "e.txt", text: "", size: 0, complete: true, totalLines: null }, 200)).toMatchObject({ content: "", linesShown: 0, totalLines: 0 });
  });

  it("a file too long is cut after its last whole line that fits", () => {
    const text = lines(500);
    for (const cap of [400, 1000, 5000]) {
      const r = shapeReadResult({ path: "a.txt", text, size: 99_999, complete: true, totalLines: null }, cap);
      const json = JSON.stringify(r);
      expect(json.length).toBeLessThanOrEqual(cap);
      expect(ReadResultSchema.parse(JSON.parse(json))).toEqual(r);
      expect(r.content).toBe(lines(r.linesShown));
      expect(r).toMatchObject({ truncated: true, totalLines: 500, note: `lines 1-${r.linesShown} of 500 shown; the rest was cut (read_file has no line range; search_files with this file as path finds text further on)` });
      expect(JSON.stringify({ ...r, content: lines(r.linesShown + 1) }).length).toBeGreaterThan(cap);
    }
  });

  it("the beginning of a file read in part drops its last, partial line", () => {
    const r = shapeReadResult({ path: "a.txt", text: "one\ntwo\nthr", size: 10_000, complete: false, totalLines: 1234 }, 12_000);
    expect(r).toMatchObject({ content: "one\ntwo\n", linesShown: 2, totalLines: 1234, truncated: true });
    const unknown = shapeReadResult({ path: "a.txt", text: "one\ntwo\nthr", size: 20_000_000, complete: false, totalLines: null }, 12_000);
    expect(unknown.totalLines).toBeNull();
    expect(unknown.note).toMatch(/^lines 1-2 of a file of 20000000 bytes shown/);
  });

  it("a first line too long to show whole is cut inside, never splitting a character", () => {
    const text = `${"中🎨".repeat(5000)}\nsecond\n`;
    const r = shapeReadResult({ path: "min.js", text, size: 30_000, complete: true, totalLines: null }, 1000);
    expect(JSON.stringify(r).length).toBeLessThanOrEqual(1000);
    expect(text.startsWith(r.content)).toBe(true);
    expect(r.content).not.toMatch(/[\ud800-\udbff]$/);
    expect(r).toMatchObject({ linesShown: 1, totalLines: 2, note: expect.stringMatching(new RegExp(`^line 1 alone is too long to show: only its first ${r.content.length} characters are shown`)) });
    // a newline at the very start does not count as a line that fits
    const lead = shapeReadResult({ path: "x", text: `\n${"y".repeat(5000)}`, size: 5001, complete: true, totalLines: null }, 300);
    expect(lead.content).toBe("\n");
    expect(lead.linesShown).toBe(1);
  });

  it("random texts under random caps: within the cap, a prefix, cut at a line unless line 1 is too long", () => {
    for (let seed = 1; seed <= 60; seed++) {
      const rand = rng(seed);
      const text = Array.from({ length: Math.floor(rand() * 300) }, () => randomText(rand, 60)).join(rand() < 0.5 ? "\n" : "\r\n");
      const complete = rand() < 0.6;
      const cap = 400 + Math.floor(rand() * 6000);
      const r = shapeReadResult({ path: "r.txt", text, size: text.length * 2, complete, totalLines: complete ? null : countLines(text) + 7 }, cap);
      const json = JSON.stringify(r);
      expect(json.length, `seed ${seed}`).toBeLessThanOrEqual(cap);
      expect(ReadResultSchema.parse(JSON.parse(json))).toEqual(r);
      expect(text.startsWith(r.content)).toBe(true);
      if (r.truncated && r.content.includes("\n")) expect(r.content.endsWith("\n")).toBe(true);
      if (!r.truncated) expect(r.content).toBe(text);
    }
  });
});

describe("countLines", () => {
  it("counts newlines, and a last line without one", () => {
    expect([countLines(""), countLines("a"), countLines("a\n"), countLines("a\nb"), countLines("\n\n")]).toEqual([0, 1, 1, 2, 2]);
  });
});
