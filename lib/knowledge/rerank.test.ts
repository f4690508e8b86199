import { describe, expect, it } from "vitest";
import { knowledgeLimitsFromEnv, DEFAULT_KNOWLEDGE_LIMITS } from "./config";
import { orderFromAnswer, rerankMessages } from "./rerank";
import { pathFilter } from "./rank";

describe("reranker contract", () => {
  it("orders by score, ties and unscored passages keeping the lexical order", () => {
    expect(orderFromAnswer('{"scores":[{"id":1,"score":0.2},{"id":2,"score":0.9},{"id":3,"score":0.2}]}', 3)).toEqual([1, 0, 2]);
    expect(orderFromAnswer('```json\n{"scores":[{"id":3,"score":1}]}\n```', 4)).toEqual([2, 0, 1, 3]);
  });

  it("refuses answers that do not fit: unknown ids, repeats, scores out of range, extra keys, prose", () => {
    expect(() => orderFromAnswer('{"scores":[{"id":5,"score":1}]}', 3)).toThrow(/not shown/);
    expect(() => orderFromAnswer('{"scores":[{"id":1,"score":1},{"id":1,"score":0}]}', 3)).toThrow(/twice/);
    expect(() => orderFromAnswer('{"scores":[{"id":1,"score":7}]}', 3)).toThrow();
    expect(() => orderFromAnswer('{"scores":[{"id":1,"score":1,"why":"x"}]}', 3)).toThrow();
    expect(() => orderFromAnswer("passage 2 is best", 3)).toThrow();
    expect(() => orderFromAnswer('{"scores":[]}', 3)).toThrow(/no scores/);
  });

  it("shows numbered passages with their location and heading, cut to a bound", () => {
    const [system, user] = rerankMessages("q?", [{ location: "a.md:1-4", heading: "A > B", text: "x".repeat(5000) }]);
    expect(system!.content).toContain('{"scores"');
    expect(user!.content).toContain("[1] a.md:1-4 (A > B)");
    expect(user!.content.length).toBeLessThan(1400);
  });
});

describe("limits and paths", () => {
  it("reads limits from the environment, falling back on bad values", () => {
    const logs: string[] = [];
    const l = knowledgeLimitsFromEnv({ ASTRION_KNOWLEDGE_MAX_FILE_BYTES: "4096", ASTRION_KNOWLEDGE_MAX_FILES: "0", ASTRION_KNOWLEDGE_WAIT_MS: "abc" }, (m) => logs.push(m));
    expect(l).toEqual({ ...DEFAULT_KNOWLEDGE_LIMITS, maxFileBytes: 4096 });
    expect(logs.length).toBe(2);
  });

  it("turns paths into a filter of folders, files and globs; refuses escapes", () => {
    const f = pathFilter(["docs", "src/*.ts"])!;
    expect(["docs/a.md", "docs/x/b.md", "src/a.ts", "src/x/b.ts", "docsy/a.md", "README.md"].filter(f)).toEqual(["docs/a.md", "docs/x/b.md", "src/a.ts"]);
    expect(pathFilter(undefined)).toBeNull();
    for (const bad of ["../x", "/etc", "~/x", "a/%2e%2e/b", "a\\b", "docs/../../x"]) expect(() => pathFilter([bad])).toThrow();
  });
});
