import { DatabaseSync } from "node:sqlite";
import { afterAll, describe, expect, it } from "vitest";
import { matchExpression, parseQuery } from "./query";
import { filterTagGroups, tagsOf } from "./tags";
import { segmentCjk, tokenize } from "@/lib/text/words";

// A real FTS5 table like the index's, so every expression is checked by SQLite itself.
const db = new DatabaseSync(":memory:");
db.exec("CREATE VIRTUAL TABLE fts USING fts5(body, tags, tokenize = 'unicode61 remove_diacritics 2')");
const insert = db.prepare("INSERT INTO fts(rowid, body, tags) VALUES (?, ?, ?)");
const DOCS = [
  "The atomic rename replaces messages.json",
  "NEAR the end, AND OR NOT are just words here",
  "检查原子写入和临时文件的重命名",
  "Ünïcödé café naïve résumé",
  'quotes " and stars * and minus - and colons : everywhere',
  "renaming files atomically",
  "테스트를 실행했다",
  "ガイドを読む, ёлка и άστρο",
];
DOCS.forEach((d, i) => insert.run(i + 1, segmentCjk(d), tagsOf({ status: "active", agentId: i % 2 ? 3 : null, roleId: "role-x", modelKey: "qwen3-max", messageRole: "assistant", createdAt: "2026-07-11T21:00:00" })));
afterAll(() => db.close());

function run(text: string, groups: string[][] = []): number[] {
  const expr = matchExpression(parseQuery(text), groups);
  if (expr === null) return [];
  return db.prepare("SELECT rowid FROM fts WHERE fts MATCH ? ORDER BY rowid").all(expr).map((row) => row.rowid as number);
}

describe("parseQuery and matchExpression", () => {
  it("makes words, quoted phrases and a typed prefix", () => {
    expect(parseQuery('atomic "temp file" ren')).toEqual({
      terms: [
        { tokens: ["atomic"], prefix: false },
        { tokens: ["temp", "file"], prefix: false },
        { tokens: ["ren"], prefix: true },
      ],
    });
    // A trailing space ends the word: no prefix.
    expect(parseQuery("ren ").terms[0]!.prefix).toBe(false);
    // Too short to be a useful prefix.
    expect(parseQuery("re").terms[0]!.prefix).toBe(false);
  });

  it("matches words, prefixes, phrases, case and diacritics like FTS5 does", () => {
    expect(run("ATOMIC rename")).toEqual([1]);
    expect(run("renam")).toEqual([1, 6]);
    expect(run('"atomic rename"')).toEqual([1]);
    expect(run('"rename atomic"')).toEqual([]);
    expect(run("unicode cafe")).toEqual([4]);
    expect(run("résumé")).toEqual([4]);
  });

  it("finds Chinese text by a Chinese query, its characters side by side", () => {
    expect(run("原子写入")).toEqual([3]);
    expect(run("临时文件")).toEqual([3]);
    expect(run("原写")).toEqual([]);
    expect(tokenize("原子ab写").map((t) => t.word)).toEqual(["原", "子", "ab", "写"]);
  });

  it("finds Korean, Japanese, Russian and Greek words as FTS5 indexed them", () => {
    // a Korean word with its particle, found by the word alone; voiced kana, ё and accented Greek kept
    expect(run("테스트")).toEqual([7]);
    expect(run("테스트를 실행")).toEqual([7]);
    expect(run("ガイド")).toEqual([8]);
    expect(run("カイト")).toEqual([]);
    expect(run("Ёлка")).toEqual([8]);
    expect(run("άστρο")).toEqual([8]);
  });

  it("treats query syntax as plain words", () => {
    expect(run("NEAR")).toEqual([2]);
    expect(run("AND OR NOT")).toEqual([2]);
    expect(run("NEAR(end words)")).toEqual([]);
    expect(run("stars*")).toEqual([5]);
    expect(run("colons:")).toEqual([5]);
    expect(run("-minus")).toEqual([5]);
    expect(run("body:atomic")).toEqual([]); // "body atomic" as a phrase, not a column filter
    expect(run("tags:role")).toEqual([]);
  });

  it("never gives FTS5 an expression it rejects, whatever the input", () => {
    const alphabet = ['"', "'", "*", "-", "+", ":", "(", ")", "^", "{", "}", "[", "]", ",", ".", "NEAR", "AND", "OR", "NOT", " ", "\t", "\n", "\\", "/", "%", "_", "a", "rename", "原", "子", "é", "\u0301", "\u0000", "😀", "NEAR/2", "col:", "'\"", "*\"", ";", "--", "DROP TABLE fts;"];
    let seed = 12345;
    const random = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed / 0x7fffffff;
    };
    for (let i = 0; i < 3000; i++) {
      const n = 1 + Math.floor(random() * 12);
      let text = "";
      for (let k = 0; k < n; k++) text += alphabet[Math.floor(random() * alphabet.length)];
      expect(() => run(text, filterTagGroups({ status: "active", agent: 3, role: "role-x", model: "qwen3-max" }))).not.toThrow();
    }
  });

  it("has no terms, and no expression, for text without letters or digits", () => {
    expect(parseQuery('"" * - : () ^').terms).toEqual([]);
    expect(matchExpression(parseQuery("*-:"))).toBeNull();
  });

  it("applies the filters as tag constraints", () => {
    expect(run("rename")).toEqual([1]);
    expect(run("rename atomic", filterTagGroups({ agent: "leader" }))).toEqual([1]);
    expect(run("renaming", filterTagGroups({ agent: 3 }))).toEqual([6]);
    expect(run("renaming", filterTagGroups({ agent: "leader" }))).toEqual([]);
    expect(run("renaming", filterTagGroups({ status: "archived" }))).toEqual([]);
    expect(run("renaming", filterTagGroups({ role: "role-x", model: "qwen3-max", message_role: "assistant" }))).toEqual([6]);
    expect(run("renaming", filterTagGroups({ model: "offline" }))).toEqual([]);
    expect(run("renaming", filterTagGroups({ from: "2026-06-01", to: "2026-08-31" }))).toEqual([6]);
    expect(run("renaming", filterTagGroups({ from: "2026-08-01", to: "2026-08-31" }))).toEqual([]);
  });
});
