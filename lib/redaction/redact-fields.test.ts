import { describe, expect, it } from "vitest";
import { redactField, redactStatement } from "./redact-fields";

describe("redactField", () => {
  it("gives the markers' spans in the stored text, kind and offsets only", () => {
    const r = redactField("statement", "mail a@b.example, call +86 138 1234 5678 now", {});
    expect(r.text).toBe("mail [redacted:email], call [redacted:phone] now");
    for (const s of r.redactions) expect(r.text.slice(s.start, s.end)).toBe(`[redacted:${s.kind}]`);
    expect(JSON.stringify(r.redactions)).not.toContain("a@b.example");
  });

  it("keeps spans for markers already in the text (an edited entry)", () => {
    const r = redactField("statement", "ask [redacted:email] or 13812345678", {});
    expect(r.redactions.map((s) => [s.kind, s.start])).toEqual([
      ["email", 4],
      ["phone", 24],
    ]);
  });

  it("redacts the subject too, with configured account patterns, in Chinese text", () => {
    const r = redactStatement("退款转到 acct_12345678 账户", "客户 acct_87654321", { accountPatterns: ["acct_{digit:8}"] });
    expect(r.statement).toBe("退款转到 [redacted:account_id] 账户");
    expect(r.subject).toBe("客户 [redacted:account_id]");
    expect(r.redactions.map((s) => s.field)).toEqual(["subject", "statement"]);
  });
});
