/** An action's target (a path, a search, a command) is set apart as code, in both languages. */
import { describe, expect, it } from "vitest";
import { makeTranslator } from "@/lib/i18n";
import { actionWords } from "./action-words";

describe("actionWords", () => {
  it("puts the target between the phrase's words, and in backticks in the title", () => {
    const en = makeTranslator("en");
    expect(actionWords({ kind: "read", target: "dist/pregel/loop.js" }, en)).toEqual({ before: "reading ", target: "dist/pregel/loop.js", after: "", title: "reading `dist/pregel/loop.js`" });
    const zh = makeTranslator("zh-CN");
    const words = actionWords({ kind: "search", target: "import" }, zh);
    expect(words.target).toBe("import");
    expect(`${words.before}${words.after}`).not.toMatch(/[A-Za-z]/);
    expect(words.title).toContain("`import`");
  });

  it("is the plain phrase when the action has no target", () => {
    const en = makeTranslator("en");
    expect(actionWords({ kind: "ask_leader" }, en)).toEqual({ before: "asking the leader…", target: "", after: "", title: "asking the leader…" });
  });
});
