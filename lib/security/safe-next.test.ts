import { describe, expect, it } from "vitest";
import { safeNextPath } from "./safe-next";

/**
 * Values that would leave this origin (or could, after one more decode) in some browser or
 * proxy. Every one must fall back to "/".
 */
const HOSTILE = [
  "//evil.example",
  "//evil.example/path",
  "///evil.example",
  "////evil.example",
  "/\\evil.example",
  "\\\\evil.example",
  "\\/evil.example",
  "/\\/evil.example",
  "/%09/evil.example",
  "/%0a/evil.example",
  "/%0d%0a/evil.example",
  "/%2F/evil.example",
  "/%2f%2fevil.example",
  "/%5C/evil.example",
  "/%5cevil.example",
  "%2F%2Fevil.example",
  "%2f%2fevil.example",
  "/\t/evil.example",
  "/\n/evil.example",
  "/\r\n/evil.example",
  "\t//evil.example",
  " //evil.example",
  "/ /evil.example",
  "/\u0000/evil.example",
  "/\u00a0/evil.example",
  "/\u2028/evil.example",
  "/\ufeff/evil.example",
  "\u3000//evil.example",
  "https:evil.example",
  "https:/evil.example",
  "https://evil.example",
  "http://evil.example/",
  "HTTP://evil.example",
  "//evil.example@127.0.0.1",
  "javascript:alert(1)",
  "JaVaScRiPt:alert(1)",
  "/javascript:alert(1)/../..//evil.example",
  "data:text/html,<script>alert(1)</script>",
  "vbscript:msgbox(1)",
  "evil.example",
  "./evil",
  "../evil",
  "?next=//evil.example",
  "#//evil.example",
  "/%E0%A4%A",
  "/%FF",
  "/..//evil.example",
  "/./..//evil.example",
  "/a/../..//evil.example",
  "",
  "x".repeat(3000),
];

describe("safeNextPath", () => {
  it.each(HOSTILE)("refuses %j", (next) => {
    expect(safeNextPath(next)).toBe("/");
  });

  it.each([undefined, null, 42, ["/roles"], { path: "/roles" }])("refuses a non-string %j", (next) => {
    expect(safeNextPath(next)).toBe("/");
  });

  it.each([
    ["/", "/"],
    ["/roles", "/roles"],
    ["/roles/new", "/roles/new"],
    ["/conversations/conv_20260711_210000_001", "/conversations/conv_20260711_210000_001"],
    ["/settings?tab=models#health", "/settings?tab=models#health"],
    ["/?q=%E4%B8%AD%E6%96%87", "/?q=%E4%B8%AD%E6%96%87"],
    ["/roles/%E4%B8%AD", "/roles/%E4%B8%AD"],
    ["/a/../roles", "/roles"],
  ])("keeps the same-origin path %j", (next, expected) => {
    expect(safeNextPath(next)).toBe(expected);
  });

  it("never sends a person back to the sign-in page", () => {
    expect(safeNextPath("/signin")).toBe("/");
    expect(safeNextPath("/signin?next=/roles")).toBe("/");
  });

  it("whatever it answers resolves to this origin, also as a browser reads it", () => {
    for (const next of [...HOSTILE, "/roles", "/a/../roles"]) {
      const target = safeNextPath(next);
      expect(new URL(target, "http://127.0.0.1:3000").origin, JSON.stringify(next)).toBe("http://127.0.0.1:3000");
      expect(target.startsWith("/") && !target.startsWith("//"), JSON.stringify(next)).toBe(true);
    }
  });
});
