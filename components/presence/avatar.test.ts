import { describe, expect, it } from "vitest";
import { avatarColour, hueOf, initialsOf } from "./avatar";

describe("avatars", () => {
  it("takes up to two initials, and one character of a CJK name", () => {
    expect(initialsOf("ann lee")).toBe("AL");
    expect(initialsOf("  Bob  ")).toBe("B");
    expect(initialsOf("Mary Ann Smith")).toBe("MA");
    expect(initialsOf("王小明")).toBe("王");
    expect(initialsOf("")).toBe("?");
  });

  it("gives one person one colour and two people different ones", () => {
    expect(avatarColour("p_ann")).toBe(avatarColour("p_ann"));
    expect(hueOf("p_ann")).not.toBe(hueOf("p_bob"));
    expect(hueOf("owner")).toBeGreaterThanOrEqual(0);
    expect(hueOf("owner")).toBeLessThan(360);
  });
});
