import { describe, expect, it } from "vitest";
import { cjkBigrams, fold, hasCjk, normalizeText, segmentCjk, splitWords, tokenize } from "./words";

const words = (text: string) => tokenize(text).map((t) => t.word);

describe("tokenize (FTS5 unicode61's cut)", () => {
  it("cuts at every character that is not a letter, digit or mark, and folds case and Latin diacritics", () => {
    expect(words("Ünïcödé café, naïve-résumé_x2 İstanbul")).toEqual(["unicode", "cafe", "naive", "resume", "x2", "istanbul"]);
    expect(tokenize("ab  Cd")).toEqual([
      { word: "ab", start: 0, end: 2 },
      { word: "cd", start: 4, end: 6 },
    ]);
  });

  it("keeps the marks of other scripts, as FTS5 indexes them", () => {
    expect(words("ёлка йод ΆΣΤΡΟ")).toEqual(["ёлка", "йод", "άστρο"]);
    expect(words("ガイド")).toEqual(["ガ", "イ", "ド"]);
    expect(words("हिंदी")).toEqual(["हिंदी"]);
    // a mark on no letter is nothing, as for FTS5
    expect(words("\u0301 x \u0301y")).toEqual(["x", "y"]);
  });

  it("makes every CJK character a word of its own, Han, kana and Hangul, with its offsets", () => {
    expect(words("原子ab写")).toEqual(["原", "子", "ab", "写"]);
    expect(words("テストを書くサーバー")).toEqual(["テ", "ス", "ト", "を", "書", "く", "サ", "ー", "バ", "ー"]);
    expect(words("테스트를 했다")).toEqual(["테", "스", "트", "를", "했", "다"]);
    expect(tokenize("a𠮷b")).toEqual([
      { word: "a", start: 0, end: 1 },
      { word: "𠮷", start: 1, end: 3 },
      { word: "b", start: 3, end: 4 },
    ]);
  });

  it("keeps offsets in the text as written (no width folding here)", () => {
    const text = "ＡＰＩ 用 Python";
    expect(tokenize(text).map((t) => text.slice(t.start, t.end))).toEqual(["ＡＰＩ", "用", "Python"]);
    expect(words(text)).toEqual(["ａｐｉ", "用", "python"]);
  });

  it("is linear on long runs: one word of 1,000,000 letters, 200,000 CJK characters, 100,000 separators", () => {
    expect(tokenize("a".repeat(1_000_000))).toEqual([{ word: "a".repeat(1_000_000), start: 0, end: 1_000_000 }]);
    expect(tokenize("字".repeat(200_000))).toHaveLength(200_000);
    expect(tokenize(`${"-".repeat(100_000)}x`)).toEqual([{ word: "x", start: 100_000, end: 100_001 }]);
    expect(tokenize("a\u0301".repeat(100_000))[0]!.word).toBe("a".repeat(100_000));
  });
});

describe("fold, normalizeText, segmentCjk", () => {
  it("folds as FTS5 compares", () => {
    expect(fold("Résumé")).toBe("resume");
    expect(fold("Straße")).toBe("straße");
    expect(fold("테스트")).toBe("테스트");
  });

  it("normalizes width and case for matching", () => {
    expect(normalizeText("ＡＰＩ ｶﾞｲﾄﾞ")).toBe("api ガイド");
  });

  it("sets every CJK character apart for FTS5", () => {
    expect(segmentCjk("原子ab")).toBe(" 原  子 ab");
    expect(hasCjk("한")).toBe(true);
    expect(hasCjk("a")).toBe(false);
    expect(hasCjk("审查 review")).toBe(true);
    expect(hasCjk("review")).toBe(false);
  });
});

describe("splitWords", () => {
  it("gives the words and the CJK runs of normalized text, mixed scripts apart", () => {
    expect(splitWords("用Python写 代码审查，ＡＰＩ文档 Café")).toEqual({ words: ["python", "api", "cafe"], cjkRuns: ["用", "写", "代码审查", "文档"] });
  });

  it("keeps the + and # of c++ and c#", () => {
    expect(splitWords("C++ or C# or F#, a+b").words).toEqual(["c++", "or", "c#", "or", "f#", "a+", "b"]);
  });

  it("stays linear on long runs", () => {
    expect(splitWords("字".repeat(200_000)).cjkRuns).toEqual(["字".repeat(200_000)]);
    expect(splitWords("c+".repeat(100_000)).words).toHaveLength(100_000);
  });

  it("pairs adjacent CJK characters", () => {
    expect(cjkBigrams("代码审查")).toEqual(["代码", "码审", "审查"]);
    expect(cjkBigrams("字")).toEqual([]);
    expect(cjkBigrams("𠮷野家")).toEqual(["𠮷野", "野家"]);
  });
});
