import { describe, expect, it } from "vitest";
import { copyBase, copyTitle } from "./copy-title";
import { en } from "@/lib/i18n/dictionaries/en";
import { zhCN } from "@/lib/i18n/dictionaries/zh-cn";

const EN = { first: en["import.copyTitle"], nth: en["import.copyTitle.n"] };
const ZH = { first: zhCN["import.copyTitle"], nth: zhCN["import.copyTitle.n"] };

describe("the title of an imported copy", () => {
  it("adds the importing person's suffix, in English and in Chinese", () => {
    expect(copyTitle("Review the payment module", EN, new Set())).toBe("Review the payment module (imported copy)");
    expect(copyTitle("审查支付模块", ZH, new Set())).toBe("审查支付模块（导入的副本）");
  });

  it("counts on while a title is taken, and from a copy's base rather than stacking suffixes", () => {
    const taken = new Set(["Review", "Review (imported copy)", "Review (imported copy 2)"]);
    expect(copyTitle("Review", EN, taken)).toBe("Review (imported copy 3)");
    expect(copyTitle("Review (imported copy)", EN, taken)).toBe("Review (imported copy 3)");
    expect(copyTitle("Review (imported copy 2)", EN, new Set(["Review (imported copy 2)"]))).toBe("Review (imported copy)");
    expect(copyTitle("审查（导入的副本）", ZH, new Set(["审查（导入的副本）"]))).toBe("审查（导入的副本 2）");
    expect(copyBase("Review (imported copy 12)", EN)).toBe("Review");
    expect(copyBase("Review (copy)", EN)).toBe("Review (copy)");
  });

  it("gives an untitled conversation's copy the suffix alone, and keeps a long title within 200 characters", () => {
    expect(copyTitle("", EN, new Set())).toBe("(imported copy)");
    const long = copyTitle("x".repeat(200), EN, new Set());
    expect(long.length).toBe(200);
    expect(long.endsWith("… (imported copy)")).toBe(true);
    // special characters of the title or the templates are taken as they are
    expect(copyTitle("$& (a|b) {n}", EN, new Set())).toBe("$& (a|b) {n} (imported copy)");
  });
});
