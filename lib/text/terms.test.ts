import { describe, expect, it } from "vitest";
import { canonicalStem, stems } from "./stems";
import { CHINESE_STOP_CHARS, isStopWord, RANK_STOP_WORDS } from "./stop-words";
import { codeTerms, matchTokens, pathWords, rankTerms } from "./terms";

describe("matchTokens", () => {
  it("gives words with light stems and CJK characters and bigrams", () => {
    const t = matchTokens("Reviewing the Tests 代码审查");
    expect(t).toEqual(expect.arrayContaining(["reviewing", "review", "tests", "test", "代", "代码", "码审", "审查", "查"]));
    expect(t).not.toContain("Tests");
  });

  it("reads Korean and katakana words as CJK, and full-width letters as ASCII", () => {
    expect(matchTokens("테스트를")).toEqual(expect.arrayContaining(["테스", "스트", "트를"]));
    expect(matchTokens("サーバー")).toEqual(expect.arrayContaining(["サー", "ーバ", "バー"]));
    expect(matchTokens("ＡＰＩ")).toEqual(["api"]);
  });
});

describe("rankTerms", () => {
  it("gives one stem per meaningful word and CJK bigrams, nothing for filler", () => {
    expect(rankTerms("Please help me with the failing tests and queries")).toEqual(["fail", "test", "query"]);
    expect(rankTerms("please help me with this")).toEqual([]);
    expect(rankTerms("写技术文档")).toEqual(["写技", "技术", "术文", "文档"]);
    expect(rankTerms("写 文档")).toEqual(["写", "文档"]);
    expect(rankTerms("k8s C++ C#")).toEqual(["k8s", "c++", "c#"]);
  });

  it("takes the stop words it is given", () => {
    expect(rankTerms("the agent role", new Set(["agent", "role"]))).toEqual(["the"]);
  });

  it("is linear on long CJK runs: a pair per character", () => {
    expect(rankTerms("字".repeat(100_000))).toHaveLength(99_999);
  });
});

describe("codeTerms and pathWords", () => {
  it("splits identifiers and Chinese", () => {
    expect(codeTerms("createEmbedder max_file_bytes")).toEqual(expect.arrayContaining(["createembedder", "create", "embedder", "max", "byte"]));
    expect(codeTerms("默认值配置")).toEqual(expect.arrayContaining(["默认", "认值", "配置"]));
    expect(codeTerms("parseHTTPResponse")).toEqual(expect.arrayContaining(["parsehttpresponse", "parse", "http", "response"]));
  });

  it("reads a path as words", () => {
    expect(pathWords("lib/knowledge/chunk-markdown.ts")).toBe("lib knowledge chunk markdown ts");
  });
});

describe("stems and stop words", () => {
  it("stems lightly", () => {
    expect(stems("libraries")).toEqual(["libraries", "library", "librarie"]);
    expect(stems("reviewing")).toEqual(["reviewing", "review", "reviewe"]);
    expect(canonicalStem("queries")).toBe("query");
    expect(canonicalStem("status")).toBe("status");
    expect(canonicalStem("agreed")).toBe("agreed");
  });

  it("keeps negations out of the function words, and in the ranking stop words", () => {
    expect(isStopWord("the")).toBe(true);
    expect(isStopWord("的")).toBe(true);
    expect(isStopWord("not")).toBe(false);
    expect(isStopWord("deprecated")).toBe(false);
    expect(RANK_STOP_WORDS.has("not")).toBe(true);
    expect(RANK_STOP_WORDS.has("please")).toBe(true);
    expect([...CHINESE_STOP_CHARS].every((c) => [...c].length === 1)).toBe(true);
  });
});
