/** The index's agent count reads as a person would say it, in both languages. */
import { describe, expect, it } from "vitest";
import { makeTranslator } from "@/lib/i18n";
import { agentCountText } from "./agent-count";

describe("agentCountText", () => {
  it("says 1 agent, not 1 agents", () => {
    const en = makeTranslator("en");
    expect([0, 1, 2, 3].map((n) => agentCountText(en, n))).toEqual(["0 agents", "1 agent", "2 agents", "3 agents"]);
    const zh = makeTranslator("zh-CN");
    expect([1, 3].map((n) => agentCountText(zh, n))).toEqual(["1 个智能体", "3 个智能体"]);
  });
});
