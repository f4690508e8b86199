import { describe, expect, it } from "vitest";
import { formatTokens } from "./format";

describe("formatTokens", () => {
  it("writes counts compactly in each locale", () => {
    expect(formatTokens(12_400, "en")).toBe("12.4K");
    expect(formatTokens(12_400, "zh-CN")).toBe("1.2万");
  });
});
