import { describe, expect, it } from "vitest";
import { checkLevel, editedSpans } from "./edit";
import type { MemoryEntry } from "./schema";

describe("a person's edit", () => {
  it("refuses an entry nobody could read", () => {
    expect(() => checkLevel("project", null, [])).toThrow(/project folder/);
    expect(() => checkLevel("restricted", "/p", [])).toThrow(/grant/);
    expect(() => checkLevel("restricted", null, ["leader"])).not.toThrow();
    expect(() => checkLevel("public", null, [])).not.toThrow();
  });

  it("keeps the spans of the field not edited and takes the new ones of the edited field", () => {
    const old = { redactions: [{ field: "subject", kind: "email", start: 0, end: 16 }, { field: "statement", kind: "phone", start: 4, end: 20 }] } as MemoryEntry;
    const fresh = [{ field: "statement" as const, kind: "ipv4", start: 3, end: 18 }, { field: "subject" as const, kind: "bogus", start: 0, end: 1 }];
    expect(editedSpans(old, fresh, { statement: "x" })).toEqual([old.redactions[0], fresh[0]]);
    expect(editedSpans(old, fresh, { level: "public" })).toEqual(old.redactions);
  });
});
