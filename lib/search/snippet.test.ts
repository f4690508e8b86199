import { describe, expect, it } from "vitest";
import { parseQuery } from "./query";
import { snippetOf } from "./snippet";

const hits = (segments: Array<{ text: string; hit: boolean }>) => segments.filter((s) => s.hit).map((s) => s.text);
const text = (segments: Array<{ text: string; hit: boolean }>) => segments.map((s) => s.text).join("");

describe("snippetOf", () => {
  it("marks every match, whole words and phrases, and keeps the text as text", () => {
    const s = snippetOf("Use <b>atomic</b> writes: an Atomic rename.", parseQuery("atomic"));
    expect(hits(s)).toEqual(["atomic", "Atomic"]);
    expect(text(s)).toBe("Use <b>atomic</b> writes: an Atomic rename.");
    expect(hits(snippetOf("the temp file then the file", parseQuery('"temp file"')))).toEqual(["temp file"]);
    expect(hits(snippetOf("renamed and renaming", parseQuery("renam")))).toEqual(["renamed", "renaming"]);
    expect(hits(snippetOf("检查原子写入和临时文件", parseQuery("原子写入")))).toEqual(["原子写入"]);
    expect(hits(snippetOf("Café", parseQuery("cafe")))).toEqual(["Café"]);
  });

  it("cuts a long text around its matches, with … where it was cut, on one line", () => {
    const long = `${"lorem ipsum ".repeat(60)}the needle\nis here ${"dolor sit ".repeat(60)}`;
    const s = snippetOf(long, parseQuery("needle"));
    const joined = text(s);
    expect(joined.startsWith("…")).toBe(true);
    expect(joined.endsWith("…")).toBe(true);
    expect(joined).toContain("the needle is here");
    expect(joined.length).toBeLessThan(220);
    expect(hits(s)).toEqual(["needle"]);
  });

  it("shows the start of a text whose match it cannot place", () => {
    const s = snippetOf("nothing to see here", parseQuery("absent"));
    expect(s).toEqual([{ text: "nothing to see here", hit: false }]);
  });
});
