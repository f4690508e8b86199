import { describe, expect, it } from "vitest";
import { ValidationError } from "@/lib/contracts/errors";
import { compileAccountPattern, compileAccountPatterns, redact } from "./index";

describe("compileAccountPattern", () => {
  it("compiles literals and placeholders to a bounded, boundary-checked regex", () => {
    const { regex } = compileAccountPattern("cust-{hex:4}-{digit:2-3}");
    expect(regex.source).toBe("(?<![A-Za-z0-9_])cust\\-[0-9A-Fa-f]{4}\\-[0-9]{2,3}(?![A-Za-z0-9_])");
    expect("id cust-0aF9-12 and cust-0aF9-1234".match(regex)).toEqual(["cust-0aF9-12"]);
  });

  it("supports every class", () => {
    const cases: Array<[string, string, string]> = [
      ["AB{digit:3}", "AB123", "AB12a"],
      ["AB{upper:3}", "ABXYZ", "ABxyz"],
      ["AB{lower:3}", "ABxyz", "ABXYZ"],
      ["AB{alpha:3}", "ABxYz", "ABx1z"],
      ["AB{alnum:3}", "ABx1Z", "ABx_Z"],
      ["AB{hex:3}", "ABf0A", "ABg0A"],
      ["AB{word:3}", "ABx_1", "ABx-1"],
    ];
    for (const [pattern, yes, no] of cases) {
      const { regex } = compileAccountPattern(pattern);
      expect(`${yes}`.match(regex), pattern).toEqual([yes]);
      expect(`${no}`.match(regex), pattern).toBeNull();
    }
  });

  it.each([
    ["{digit:8}", "literal prefix"],
    ["a{digit:8}", "literal prefix"],
    ["acct_", "at least one placeholder"],
    ["acct_{digit:8", "no closing"],
    ["acct_{digits:8}", "unknown class"],
    ["acct_{digit}", "must read"],
    ["acct_{digit:0}", "1 ≤ min ≤ max"],
    ["acct_{digit:9-3}", "1 ≤ min ≤ max"],
    ["acct_{digit:65}", "1 ≤ min ≤ max"],
    ["acct_{digit:4}{alpha:4}", "adjacent"],
    ["acct_{alnum:1-20}x{digit:2}", "may not be followed by \"x\""],
    ["acct_(a+)+", "not allowed in a literal"],
    ["acct_.*", "not allowed in a literal"],
    ["acct_[0-9]{8}", "not allowed in a literal"],
    ["ab-{digit:1}-{digit:1}-{digit:1}-{digit:1}-{digit:1}-{digit:1}-{digit:1}-{digit:1}-{digit:1}", "at most 8"],
    ["ab", "string of 3 to 128"],
    [`ab${"x".repeat(130)}{digit:2}`, "string of 3 to 128"],
  ])("refuses %j with a clear ValidationError (%s)", (pattern, reason) => {
    let error: unknown;
    try {
      compileAccountPattern(pattern);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).code).toBe("validation_failed");
    expect((error as ValidationError).message).toContain(pattern.slice(0, 20));
    expect((error as ValidationError).message).toContain(reason);
  });

  it("allows a variable placeholder followed by a literal outside its class", () => {
    expect("UID-123456-x".match(compileAccountPattern("UID-{digit:3-8}-x").regex)).toEqual(["UID-123456-x"]);
  });

  it("compileAccountPatterns refuses a non-list and a list with one bad pattern; redact surfaces the error", () => {
    expect(() => compileAccountPatterns("acct_{digit:4}" as unknown as string[])).toThrow(ValidationError);
    expect(() => compileAccountPatterns(["acct_{digit:4}", "x"])).toThrow(/refused/);
    expect(() => redact("anything", { accountPatterns: ["acct_.*"] })).toThrow(ValidationError);
  });

  it("precompiled patterns work the same as raw ones", () => {
    const compiled = compileAccountPatterns(["acct_{alnum:16}"]);
    const text = "owner acct_7Hq2Lm9Xw4Za1BcD";
    expect(redact(text, { accountPatterns: compiled })).toEqual(redact(text, { accountPatterns: ["acct_{alnum:16}"] }));
    expect(redact(text, { accountPatterns: compiled }).text).toBe("owner [redacted:account_id]");
  });
});
