import { describe, expect, it } from "vitest";
import { ValidationError } from "@/lib/contracts/errors";
import { GLOB_LIMITS, globMatcher } from "./glob";

describe("globMatcher: what a glob means", () => {
  it.each([
    ["*.ts", "a.ts", true],
    ["*.ts", "a.tsx", false],
    ["*.ts", "src/a.ts", true], // no "/": the file name anywhere
    ["*.ts", ".hidden.ts", true],
    ["src/*.ts", "src/a.ts", true],
    ["src/*.ts", "src/util/a.ts", false],
    ["src/**/*.ts", "src/a.ts", true],
    ["src/**/*.ts", "src/util/deep/a.ts", true],
    ["src/**/*.ts", "lib/a.ts", false],
    ["./src/*.ts", "src/a.ts", true],
    ["**/*.md", "README.md", true],
    ["**/*.md", "docs/a/b.md", true],
    ["**/test/**/*.ts", "a/test/b/c.ts", true],
    ["**/test/**/*.ts", "a/tests/b/c.ts", false],
    ["*.{ts,tsx}", "a.tsx", true],
    ["*.{ts,tsx}", "a.js", false],
    ["{src,lib}/*.ts", "lib/a.ts", true],
    ["a?.txt", "ab.txt", true],
    ["a?/.txt", "a//.txt", false],
    ["[ab].ts", "b.ts", true],
    ["[ab].ts", "c.ts", false],
    ["file(1).txt", "file(1).txt", true],
    ["a|b.txt", "a|b.txt", true],
    ["a|b.txt", "a", false],
    ["!x.ts", "!x.ts", true],
    ["!x.ts", "y.ts", false],
    ["a.b", "axb", false],
    ["docs/**", "docs/x/y", true],
    ["**", "any/thing/at/all", true],
    ["*.test.*", "src/a.test.ts", true],
  ])("%s matches %s: %s", (glob, p, expected) => {
    expect(globMatcher(glob)(p)).toBe(expected);
  });

  it("collapses repeated ** (which only add backtracking)", () => {
    const m = globMatcher(`${"**/".repeat(18)}Z`);
    expect(m("Z")).toBe(true);
    expect(m("a/b/c/Z")).toBe(true);
    expect(m("a/b/c/Y")).toBe(false);
  });
});

describe("globMatcher: refusals with a reason", () => {
  it.each([
    ["", /empty/],
    ["x".repeat(GLOB_LIMITS.maxLength + 1), /at most 200 characters/],
    ["{a,b", /unmatched "\{"/],
    ["a}", /unmatched "\}"/],
    ["{a,{b,c}}", /nested/],
    ["{1..100000}", /ranges/],
    ["{a/b,c}", /cannot contain "\/"/],
    [`{${Array.from({ length: 17 }, (_, i) => `a${i}`).join(",")}}`, /alternatives/],
    ["{a,b}{c,d}{e,f}{g,h}{i,j}", /groups/],
    ["*a*a*Z", /in one path segment/],
    ["*a*/*b*/*c", /in all/],
    ["**/a/**/b/**/c/**/d/**/e", /"\*\*"/],
    ["src\\*.ts", /"\/"/],
    ["a\u0000b", /control/],
    ["/", /names no file/],
  ])("refuses %j", (glob, reason) => {
    let error: unknown;
    try {
      globMatcher(glob);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toMatch(reason);
  });
});

describe("globMatcher: bounded work on hostile globs and paths", () => {
  // A long name of one letter and a deep path of one letter: what backtracking matchers choke on.
  const longName = "a".repeat(255);
  const deepPath = Array.from({ length: 2000 }, () => "a").join("/");
  const widePath = Array.from({ length: 16 }, () => longName).join("/");

  it.each([
    `${"**/".repeat(18)}Z`,
    `${"**".repeat(18)}Z`,
    "*a*Z",
    "*a*/*a*/Z",
    "**/a*a*/**/a*a*/**/Z",
    "**/a/**/a/**/a/**/Z",
    "{a,aa}{a,aa}{a,aa}{a,aa}*a*Z",
    "+(a|aa)+(a|aa)Z",
    "(a|aa)+(a|aa)+Z",
    `${"?".repeat(100)}*Z`,
    "[a]*[a]*Z",
  ])("%j never matches the hostile paths, and returns", (glob) => {
    const m = globMatcher(glob);
    for (const p of [longName, deepPath, widePath, `${longName}/${deepPath}`]) expect(m(p)).toBe(false);
  });
});
